"""`vmscale threads`: each thread of a gem5 ROI beside its core's instructions and misses, read from
real records (the reference board's `local` at 40 and 80 cores)."""

import json
import math
import shutil
from pathlib import Path

import pytest

from conftest import vmscale
from vmscale import threads
from vmscale.errors import VmscaleError

ROOT = Path(__file__).resolve().parents[1]
FIG5 = ROOT / "results/gem5-e7-8870-fig5"
R80 = next((FIG5 / "sweep-local-80-percore/jobs").glob("080c-*"))
R40 = next((FIG5 / "sweep-local-40/jobs").glob("040c-*"))


def test_fit_recovers_a_line_and_says_nothing_of_a_constant():
    f = threads.fit([1, 2, 3, 4], [5, 7, 9, 11])
    assert (f["slope"], f["intercept"], f["r"]) == pytest.approx((2, 3, 1))
    assert math.isnan(threads.fit([1, 1, 1], [2, 3, 4])["slope"])
    assert math.isnan(threads.fit([1], [2])["r"])


def test_threads_are_their_cores_by_socket():
    (case,) = threads.load(R80)
    ts = case["threads"]
    result = json.loads(next(line.split(" ", 1)[1] for line in (R80 / "console.log").read_text().splitlines()
                             if line.startswith("VMSCALE-RESULT {")))
    assert [t["cycles"] for t in ts] == [float(c) for c in result["thread_cycles"]]
    assert case["socket_cores"] == 10 and [t["socket"] for t in ts] == [i // 10 for i in range(80)]
    # the spread the collected row carries (stats.summary, computed apart) is these threads' instructions'
    row = json.loads((R80 / "results.jsonl").read_text().splitlines()[0])
    insts = [t["insts"] for t in ts]
    assert max(insts) / min(insts) == pytest.approx(row["gem5.core_insts_spread"])
    socks = threads.by_socket(ts)
    assert [s["threads"] for s in socks] == [10] * 8
    assert sum(s["cycles"] for s in socks) * 10 == pytest.approx(sum(t["cycles"] for t in ts))


def test_one_run_directory_holds_each_cases_roi():
    cases = threads.load(R40)
    assert [(c["variant"], c["workload"]) for c in cases] == \
        [("stock", "local"), ("radixvm", "local"), ("radixvm-percore", "local")]
    # Linux 6.12's threads sleep on mmap_lock: their cores are busy for a small share of the ROI,
    # where per-core RadixVM's run (the three ROIs are three dumps, not one read thrice)
    busy = [sum(t["busy_cycles"] for t in c["threads"]) / sum(t["cycles"] for t in c["threads"]) for c in cases]
    assert busy[0] < 0.5 < busy[2]


def test_the_command_writes_its_table_and_figure(tmp_path):
    r = vmscale("threads", str(R80), "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "radixvm-percore/local: 80 threads" in r.stdout and "cycles on instructions" in r.stdout
    lines = (tmp_path / "threads.csv").read_text().splitlines()
    assert lines[0].startswith("case,variant,workload,thread") and len(lines) == 81
    assert (tmp_path / "threads.png").stat().st_size > 0 and (tmp_path / "threads.svg").is_file()


def test_a_run_directory_without_stats_is_refused(tmp_path):
    shutil.copy(R80 / "console.log", tmp_path / "console.log")
    with pytest.raises(VmscaleError, match="no m5out/stats"):
        threads.load(tmp_path)
    r = vmscale("threads", str(tmp_path))
    assert r.returncode != 0 and "no m5out/stats" in r.stderr
