"""`vmscale collect` on real run directories: only complete runs, clear refusals, and a table
that the model reads."""

import csv

from conftest import vmscale


def _native(out, cores):
    r = vmscale("run", "--backend", "native", "--cores", cores, "--workload", "local", "--param", "iters=20",
                "--out", out)
    assert r.returncode == 0, r.stdout + r.stderr


def test_collect_takes_complete_runs_and_refuses_empty_ones(workloads_built, tmp_path):
    runs = tmp_path / "runs"
    _native(runs / "one", 1)
    _native(runs / "two", 2)
    # a run that died before writing its manifest: a directory with a script and a console only
    dead = runs / "three.partial"
    dead.mkdir()
    (dead / "run.sh").write_text("#!/bin/sh\n")
    (dead / "console.log").write_text("VMSCALE-CASE-BEGIN 1 stock local\n")
    table = tmp_path / "table.csv"
    r = vmscale("collect", runs, "-o", table)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(table)))
    assert sorted(int(x["cores"]) for x in rows) == [1, 2]
    assert all(x["workload"] == "local" and x["ok"] == "True" and float(x["cycles_per_op"]) > 0 for x in rows)

    empty = tmp_path / "empty"
    empty.mkdir()
    for bad, message in ((empty, "holds no complete run directory"), (dead, "holds no complete run directory"),
                         (tmp_path / "nowhere", "is not a directory")):
        r = vmscale("collect", bad, "-o", tmp_path / "bad.csv")
        assert r.returncode != 0 and message in r.stderr, (bad, r.stderr)
        assert not (tmp_path / "bad.csv").exists()

    # the model reads collect's table as it is: two core counts are too few for two parameters
    r = vmscale("model", "fit", table, "--workload", "local")
    assert r.returncode != 0 and "2 distinct core counts cannot fit 2 parameters" in r.stdout + r.stderr


def test_gem5_rows_without_a_board_column_take_it_from_their_manifest(tmp_path):
    """Run directories written before rows named their board still say which board they ran on."""
    import json
    from vmscale.rundir import load_rows
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"backend": "gem5", "gem5_options": {"cpu": "timing", "l2_assoc": "64"}}))
    (run / "results.jsonl").write_text(json.dumps({"workload": "refcount", "cores": 32}) + "\n")
    assert load_rows(run)[0]["gem5.board"] == "l2_assoc=64"
    (run / "manifest.json").write_text(json.dumps({"backend": "gem5", "gem5_options": {"cpu": "timing"}}))
    assert load_rows(run)[0]["gem5.board"] == ""


def test_restat_works_a_real_gem5_run_out_again_from_what_it_kept(tmp_path):
    """A shipped 16-core gem5 run (results/gem5-refcache): --restat reads its kept stats.txt.gz
    and console and gives every case the figures it was reported with, plus the counts of its
    single L2 bank and directory that the parser of the day missed; the run is not changed."""
    import shutil
    from pathlib import Path
    src = Path(__file__).parent.parent / "results" / "gem5-refcache" / "runs" / "scale-16c"
    run = tmp_path / "scale-16c"
    shutil.copytree(src, run)
    before = (run / "results.jsonl").read_text()
    for restat in ([], ["--restat"]):
        r = vmscale("collect", run, "-o", tmp_path / f"t{len(restat)}.csv", *restat)
        assert r.returncode == 0, r.stderr
    old, new = ([x for x in csv.DictReader(open(tmp_path / f"t{i}.csv"))] for i in (0, 1))
    assert len(old) == len(new) == 6 and (run / "results.jsonl").read_text() == before
    for o, n in zip(old, new):
        assert (o["kernel_variant"], o["workload"]) == (n["kernel_variant"], n["workload"])
        for k in ("cycles_per_op", "gem5.roi_cycles", "gem5.l1_fwd_getx_per_op", "gem5.l1_inv_per_op",
                  "gem5.ruby_miss_latency_mean"):
            assert float(o[k]) == float(n[k]), k
        assert not o.get("gem5.l2_getx_per_op") and float(n["gem5.l2_getx_per_op"]) > 0
        assert float(n["gem5.dir_fetch"]) >= 0
    # a run that kept no stats cannot be worked out again
    (run / "m5out" / "stats.txt.gz").unlink()
    r = vmscale("collect", run, "-o", tmp_path / "t2.csv", "--restat")
    assert r.returncode != 0 and "no m5out/stats.txt" in r.stderr


def test_replace_lets_a_later_record_supersede_an_earlier_ones_cases(tmp_path):
    """Two shipped records of the reference board that both measured refcount at 10 cores: with
    --replace the later argument's rows are the table's for every case it measured, and the earlier
    record keeps the cases only it has (fault); without it both are kept."""
    from pathlib import Path
    res = Path(__file__).parent.parent / "results"
    old, new = res / "gem5-e7-8870" / "jobs", res / "gem5-e7-8870-refcount" / "010c"
    for flags, name in (([], "all.csv"), (["--replace"], "rep.csv")):
        r = vmscale("collect", old, new, "-o", tmp_path / name, *flags)
        assert r.returncode == 0, r.stderr
    every, rep = (list(csv.DictReader(open(tmp_path / n))) for n in ("all.csv", "rep.csv"))
    new_rows = list(csv.DictReader(open(res / "gem5-e7-8870-refcount" / "table.csv")))
    ten = [x for x in new_rows if x["cores"] == "10"]

    def at(rows, w, c):
        return sorted((x["kernel_variant"], x["cycles_per_op"]) for x in rows if x["workload"] == w and x["cores"] == c)
    assert at(rep, "refcount", "10") == sorted((x["kernel_variant"], x["cycles_per_op"]) for x in ten)
    assert len(at(every, "refcount", "10")) == 2 * len(ten)
    assert at(rep, "fault", "10") == at(every, "fault", "10") and at(rep, "fault", "10")
    assert at(rep, "refcount", "4") == at(every, "refcount", "4") and at(rep, "refcount", "4")
