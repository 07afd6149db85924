"""`vmscale verify`: every record in results/ says what its raw files say; a tampered one does not."""

import json
import shutil

from conftest import REPO, vmscale
from vmscale import verify

RUN = REPO / "results" / "gem5-scaling-l2-128" / "jobs" / "002c-r0-e547ec26"


def test_every_record_in_results_matches_its_raw_files():
    records = sorted(p for p in (REPO / "results").iterdir() if p.is_dir())
    r = vmscale("verify", *records, timeout=1800)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr
    assert "FAIL" not in r.stdout and r.stdout.count("0 with findings") >= 20, r.stdout[-2000:]


def _copy(tmp_path):
    d = tmp_path / "rec" / RUN.name
    shutil.copytree(RUN, d)
    return d


def test_a_changed_figure_a_lost_dump_and_another_board_are_found(tmp_path):
    d = _copy(tmp_path)
    assert verify.verify(tmp_path / "rec") == {str(d): []}
    rows = [json.loads(line) for line in (d / "results.jsonl").read_text().splitlines()]
    rows[0]["gem5.roi_cycles"] += 1
    rows[1]["cycles_per_op"] = 1.0
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = verify.verify(tmp_path / "rec")[str(d)]
    assert any("gem5.roi_cycles" in f and "from the stats dump" in f for f in found), found
    assert any("cycles_per_op = 1.0 in the row" in f for f in found), found
    cmd = d / "m5out" / "gem5.cmd"
    cmd.write_text(cmd.read_text().replace("--l2-banks 8", "--l2-banks 4"))
    (d / "m5out" / "stats.txt.gz").unlink()
    found = verify.verify(tmp_path / "rec")[str(d)]
    assert any("gem5 was given another board" in f and "l2_banks 4 vs 8" in f for f in found), found
    assert any("no m5out/stats.txt(.gz)" in f for f in found), found
    r = vmscale("verify", tmp_path / "rec")
    assert r.returncode == 1 and "FAIL" in r.stdout


def test_a_boot_cost_table_is_checked_against_the_boots_it_keeps(tmp_path):
    """A boot-cost record has no run directory: its table's rows are read again from each boot's
    gem5.log (exit tick, host seconds) and stats (instructions)."""
    rec = tmp_path / "boots"
    shutil.copytree(REPO / "results" / "gem5-boot-cost-lapic", rec)
    table = rec / "boot-cost.csv"
    assert verify.verify(rec) == {str(table): []}
    lines = table.read_text().splitlines()
    head, rows = lines[0].split(","), [line.split(",") for line in lines[1:]]
    rows[1][head.index("instructions")] = str(int(rows[1][head.index("instructions")]) + 1)
    rows[2][head.index("host_seconds")] = "1.0"
    table.write_text("\n".join([lines[0]] + [",".join(r) for r in rows]) + "\n")
    shutil.rmtree(rec / f"boot-{rows[3][0]}c")
    found = verify.verify(rec)[str(table)]
    assert any(f.startswith(f"boot-{rows[1][0]}c: instructions") for f in found), found
    assert any(f.startswith(f"boot-{rows[2][0]}c: host_seconds 1.0") for f in found), found
    assert any(f.startswith(f"not checked: the {rows[3][0]}-core boot") for f in found), found
    assert len(verify.failures(found)) == 2


def test_verify_refuses_what_is_not_a_record(tmp_path):
    r = vmscale("verify", tmp_path / "nothing")
    assert r.returncode == 2 and "not a directory" in r.stderr


def test_every_record_has_a_make_sh_and_a_line_in_the_results_readme():
    import subprocess
    readme = (REPO / "results" / "README.md").read_text()
    for d in sorted(p for p in (REPO / "results").iterdir() if p.is_dir()):
        assert f"`{d.name}/`" in readme, f"results/README.md does not list {d.name}/"
        make = d / "make.sh"
        assert make.is_file(), f"{d.name}/ has no make.sh"
        r = subprocess.run(["bash", "-n", str(make)], capture_output=True, text=True)
        assert r.returncode == 0, (d.name, r.stderr)
