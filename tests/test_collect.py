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
