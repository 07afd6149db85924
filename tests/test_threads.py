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
    assert case["per_socket"] == 10 and [t["socket"] for t in ts] == [i // 10 for i in range(80)]
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


PROFILED = ROOT / "tests/fixtures/gem5/roi-profile-2c"


def test_a_profiled_run_is_sampled_by_symbol_inside_its_roi_only():
    (case,) = threads.load(PROFILED)
    symbols = case["symbols"]
    assert set(symbols) == {0, 1}
    (begin, end), = [tuple(int(line.split()[1]) for line in pair) for pair in
                     zip(*[iter((PROFILED / "m5out/profile-rois.txt").read_text().splitlines())] * 2)]
    import gzip
    with gzip.open(PROFILED / "m5out/trace.out.gz", "rt") as f:
        inside = sum(1 for line in f if ": board.processor.cores" in line and begin <= int(line.split(":")[0]) <= end)
    assert sum(sum(c["insts"].values()) for c in symbols.values()) == inside > 0
    # each CPU's sampled time is at most its windows' (four windows of 500 ns in this 381 us ROI)
    for c in symbols.values():
        assert 0 < sum(c["ticks"].values()) <= 4 * 500_000
        assert set(c["ticks"]) <= set(c["insts"])
    # the RadixVM fault path is kernel code gem5 named from the run's vmlinux
    assert any(s.startswith("vr_") for c in symbols.values() for s in c["insts"])
    gaps = threads.slower_by_symbol(case["threads"], symbols)
    assert gaps and all(slow > fast for _, slow, fast in gaps)
    for _, tops in threads.socket_shares(case["threads"], symbols):
        assert 0 < sum(v for _, v in tops) <= 1
    # the timeline holds the same time, window by window (four windows)
    assert sorted(case["timeline"]) == [0, 1, 2, 3]
    assert sum(sum(w.values()) for w in case["timeline"].values()) == \
        sum(sum(c["ticks"].values()) for c in symbols.values())


def _profiled_with(tmp_path, **options) -> Path:
    """A copy of the profiled fixture whose manifest gives these gem5 options."""
    run = tmp_path / "run"
    shutil.copytree(PROFILED, run)
    m = json.loads((run / "manifest.json").read_text())
    m["gem5_options"].update(options)
    (run / "manifest.json").write_text(json.dumps(m))
    return run


def test_a_profile_made_with_a_longer_period_is_read_by_its_own_windows(tmp_path):
    """roi_profile_period (us between windows) is the run's, read from its manifest: the same trace
    read as taken every 200 us has half as many windows (the fixture's four, 100 us apart, fall two
    to a period) and the same sampled time."""
    (case,) = threads.load(_profiled_with(tmp_path, roi_profile_period="200"))
    (base,) = threads.load(PROFILED)
    assert sorted(case["timeline"]) == [0, 1] and sorted(base["timeline"]) == [0, 1, 2, 3]
    assert sum(sum(w.values()) for w in case["timeline"].values()) == \
        sum(sum(w.values()) for w in base["timeline"].values())


def test_a_profile_begun_late_in_its_roi_counts_the_spans_share_of_the_operations(tmp_path):
    assert threads.span_share(1000, 4000, 0) == 1.0
    assert threads.span_share(1000, 4000, 1000) == pytest.approx(0.75)
    assert threads.span_share(4000, 4000, 1000) == 0.0          # the ROI ended before its first window
    # a manifest with roi_profile_start loads (an option the Board lacks would not), its windows numbered from the
    # span's begin as before (the fixture has no holds, whose per-operation figures the share scales)
    (case,) = threads.load(_profiled_with(tmp_path, roi_profile_start="50"))
    (base,) = threads.load(PROFILED)
    assert sorted(case["timeline"]) == sorted(base["timeline"])


def test_sampled_lines_outside_every_roi_are_dropped_and_time_stays_in_its_window():
    lines = ["100: board.processor.cores1.core: 0xffffffff81000000 @vr_fault+3    : mov",
             "130: board.processor.cores1.core: 0xffffffff81000000 @vr_walk_node+3    : mov",
             "250: board.processor.cores0.core: 0x401000    : ret",
             "260: board.processor.cores0.core: 0x401004    : ret",
             "900: board.processor.cores0.core: 0xffffffff81000010 @vr_fault+9    : mov",
             "      0: board.pc.south_bridge.cmos.rtc: Real-time clock set"]
    (a, b), (ta, tb) = threads.sampled(lines, [(0, 200), (240, 300)], window_ticks=50, period_ticks=100)
    assert a == {1: {"insts": {"vr_fault": 1, "vr_walk_node": 1}, "ticks": {"vr_fault": 30}}}
    assert b == {0: {"insts": {"user": 2}, "ticks": {"user": 10}}}
    assert ta == {1: {"vr_fault": 30}} and tb == {0: {"user": 10}}     # by period from each ROI's begin


def test_the_command_writes_the_samples(tmp_path):
    r = vmscale("threads", str(PROFILED), "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "where the slower half of the threads spent more time" in r.stdout
    rows = (tmp_path / "symbols.csv").read_text().splitlines()
    assert rows[0] == "case,variant,workload,cpu,symbol,instructions,ticks" and len(rows) > 10
