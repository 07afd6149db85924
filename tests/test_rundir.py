import json

import pytest

from vmscale.errors import VmscaleError
from vmscale.rundir import RunDir, load_rows, rows_to_csv


def test_complete_run_is_renamed_and_readable(tmp_path):
    rd = RunDir(tmp_path / "r1")
    assert rd.path.name == "r1.partial" and not (tmp_path / "r1").exists()
    rows = [{"run_id": "r1", "workload": "local", "cores": 2, "ok": True, "params": {"iters": "5"},
             "vmstat": {"pgfault": 10}, "thread_cycles": [1, 2]}]
    final = rd.complete({"backend": "native"}, rows)
    assert final == tmp_path / "r1" and not (tmp_path / "r1.partial").exists()
    assert json.loads((final / "manifest.json").read_text())["status"] == "complete"
    assert load_rows(final) == rows
    header = (final / "results.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["run_id", "workload"] and "params.iters" in header and "vmstat.pgfault" in header
    with pytest.raises(VmscaleError, match="already holds"):
        RunDir(tmp_path / "r1")


def test_failed_run_never_looks_complete(tmp_path):
    rd = RunDir(tmp_path / "r2")
    (rd.file("console.log")).write_text("boot...\n")
    failed = rd.fail({"backend": "qemu"}, "timed out")
    assert failed.name == "r2.failed" and (failed / "error.txt").read_text().strip() == "timed out"
    assert not (failed / "manifest.json").exists() and not (tmp_path / "r2").exists()
    with pytest.raises(VmscaleError, match="not a complete run"):
        load_rows(failed)


def test_csv_columns_union_over_rows():
    text = rows_to_csv([{"run_id": "a", "x": 1}, {"run_id": "b", "y": 2}])
    assert text.splitlines() == ["run_id,x,y", "a,1,", "b,,2"]
