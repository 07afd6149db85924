"""`vmscale validate`: this machine natively against its twin board in gem5."""

import json
import os
import shutil

import pytest

from conftest import vmscale
from vmscale import validate
from vmscale.errors import VmscaleError


def _row(w, n, ops_per_cycle, ok=True):
    return {"workload": w, "kernel_variant": "stock", "cores": n, "threads": n, "ok": ok,
            "window_ops_per_cycle": ops_per_cycle}


def test_ratios_are_per_point_and_against_each_sides_fewest_cores():
    native = [_row("fault", 1, 0.010), _row("fault", 2, 0.016), _row("fault", 4, 0.5, ok=False)]
    sim = [_row("fault", 1, 0.020), _row("fault", 2, 0.040), _row("fault", 4, 0.070)]
    rows = {r["cores"]: r for r in validate.table(native, sim)}
    assert sorted(rows) == [1, 2]                      # a failed native point is not compared
    assert rows[1]["throughput_ratio_sim_over_native"] == pytest.approx(2.0)
    assert rows[2]["throughput_ratio_sim_over_native"] == pytest.approx(2.5)
    # cost per op per thread at 2 over at 1: native (2 / 0.016) / (1 / 0.010) = 1.25; the twin scales perfectly
    assert rows[2]["native_scaling_ratio"] == pytest.approx(1.25) and rows[2]["sim_scaling_ratio"] == pytest.approx(1.0)
    # speedups 1.6 native, 2.0 twin: the twin scales 25% better (compare's scaling error)
    assert rows[2]["scaling_error"] == pytest.approx(0.25)
    with pytest.raises(VmscaleError, match="share no"):
        validate.table(native, [_row("local", 1, 0.1)])


def test_the_native_side_runs_here_and_a_second_call_keeps_it(tmp_path, workloads_built):
    out = tmp_path / "v"
    args = ("validate", "--workload", "fault,local", "--cores", "1,2", "--side", "native", "--repeat", 2, "--out", out,
            "--param", "fault.iters=2", "--param", "local.iters=20")
    r = vmscale(*args)
    assert r.returncode == 0, r.stderr
    assert "the comparison needs both" in r.stdout
    stamps = {}
    for n in (1, 2):
        m = json.loads((out / f"native-{n}c/manifest.json").read_text())
        assert m["status"] == "complete" and m["cores"] == n and m["backend"] == "native"
        stamps[n] = os.stat(out / f"native-{n}c/manifest.json").st_mtime_ns
        assert json.loads((out / f"native-{n}c-r2/manifest.json").read_text())["status"] == "complete"
    r = vmscale(*args)                 # a validation that died goes on where it stopped: nothing re-runs
    assert r.returncode == 0 and "native at" not in r.stdout, r.stdout
    assert all(os.stat(out / f"native-{n}c/manifest.json").st_mtime_ns == stamps[n] for n in (1, 2))


def test_a_bad_board_or_core_list_is_refused_before_running(tmp_path):
    r = vmscale("validate", "--workload", "local", "--board", tmp_path / "none.json", "--out", tmp_path / "v")
    assert r.returncode == 2 and "not a board file" in r.stderr
    r = vmscale("validate", "--workload", "local", "--cores", "1,two", "--out", tmp_path / "v")
    assert r.returncode == 2 and "expected comma-separated integers" in r.stderr


@pytest.mark.gem5
@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("GEM5"), reason="GEM5 is not set: export GEM5=/path/to/build/X86/gem5.opt")
def test_validate_at_1_and_2_cores_on_this_machines_twin(kernel_built, workloads_built, tmp_path):
    """Both sides, as results/validate-host/make.sh runs them (two boots of the twin: ~15 host
    minutes, so in the slow tier; the record is results/validate-host)."""
    out = tmp_path / "v"
    r = vmscale("validate", "--workload", "fault", "--cores", "1,2", "--out", out,
                "--param", "fault.iters=2", "--param", "fault.mmap_pct=0", timeout=3600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    points = json.loads((out / "validate.json").read_text())["points"]
    assert {p["cores"] for p in points} == {1, 2}
    assert all(p["throughput_ratio_sim_over_native"] > 0 for p in points)
    assert (out / "validate.png").is_file()
    # board=host became the twin's values: the run names them, not the machine it was read on
    opts = json.loads((out / "sim-2c/manifest.json").read_text())["gem5_options"]
    assert "board" not in opts and opts["topology"] == "sockets", opts


def test_verify_works_a_validation_out_again_from_its_runs(tmp_path, workloads_built):
    """Two native runs stand for both sides (their rows are what a comparison reads); a
    changed ratio in validate.json is found."""
    from vmscale import verify
    out = tmp_path / "v"
    r = vmscale("validate", "--workload", "local", "--cores", "1,2", "--side", "native", "--repeat", 1, "--out", out,
                "--param", "local.iters=20")
    assert r.returncode == 0, r.stderr
    for n in (1, 2):
        shutil.copytree(out / f"native-{n}c", out / f"sim-{n}c")
    # (validate itself refuses runs without the twin's board as its sim side: the table is written here)
    from vmscale.rundir import load_rows
    rows = {s: [r for n in (1, 2) for r in load_rows(out / f"{s}-{n}c")] for s in ("native", "sim")}
    (out / "validate.json").write_text(json.dumps({"points": validate.table(rows["native"], rows["sim"])}))
    found = verify.check_validation(out / "validate.json")
    assert found == [], found
    data = json.loads((out / "validate.json").read_text())
    data["points"][0]["throughput_ratio_sim_over_native"] *= 1.5
    (out / "validate.json").write_text(json.dumps(data))
    found = verify.check_validation(out / "validate.json")
    assert len(found) == 1 and "throughput_ratio_sim_over_native" in found[0], found


def test_a_kept_run_of_other_cases_is_refused(tmp_path, workloads_built):
    out = tmp_path / "v"
    r = vmscale("validate", "--workload", "local", "--cores", "1", "--side", "native", "--repeat", 1, "--out", out,
                "--param", "local.iters=20")
    assert r.returncode == 0, r.stderr
    r = vmscale("validate", "--workload", "local", "--cores", "1", "--side", "native", "--repeat", 1, "--out", out,
                "--param", "local.iters=30")
    assert r.returncode == 2 and "holds a run of other cases" in r.stderr, r.stderr
