"""The window's edges (harness.c, vmscale_gem5.stats.window_edges): each edge is a scan of every
thread's count, one line each.  Untimed, as before session 63, the scans' operations were counted
without their cycles; the shipped records show it, and the report says so."""

import csv

import pytest

from conftest import REPO
from vmscale_gem5 import stats

TO_80 = REPO / "results" / "gem5-e7-8870-to-80c" / "table.csv"
# the reference board's measured line transfers (results/gem5-calibration: load from modified, medians)
SAME_SOCKET, TWO_HOPS = 116, 448


def _rows(path, **match):
    return [r for r in csv.DictReader(open(path, newline="")) if all(r[k] == v for k, v in match.items())]


def _untimed_cycles_per_count(r) -> float:
    """What an untimed window over-counted, as cycles per count read: percpu_ref's threads run at one
    steady rate (the thread mean), so the window's operations beyond that rate were done while the two
    scans ran, 2 x threads counts."""
    n = float(r["threads"])
    per_op = float(r["cycles_per_op"])          # the threads' mean cycles per operation
    extra_ops = float(r["window_ops"]) - n * float(r["window_cycles"]) / per_op
    return extra_ops * per_op / n / (2 * n)


def test_untimed_windows_over_count_by_a_line_transfer_per_count_read():
    """percpu_ref at 20-160 cores (every core's own counter: one steady rate per thread): the window
    counted more operations than the threads' rate gives it, by about one cross-socket line transfer per
    count its two scans read, more with more sockets (2, 4, 8 and 16), never above the estimate the
    report uses for untimed rows."""
    per_count = {int(r["cores"]): _untimed_cycles_per_count(r) for r in _rows(TO_80, workload="refcount",
                                                                               kernel_variant="percpu-ref")
                 if int(r["cores"]) >= 20}
    assert sorted(per_count) == [20, 40, 80, 160]
    assert all(SAME_SOCKET < c <= stats.UNTIMED_SCAN_CYCLES for c in per_count.values()), per_count
    assert per_count[20] < per_count[40] < per_count[80] < per_count[160], per_count
    assert per_count[80] > TWO_HOPS       # eight sockets: most counts are two or more hops away
    # the bias on the window's throughput: a quarter at 80 cores, about double at 160
    shares = {n: stats.window_edges(r)[0] for n in (80, 160)
              for r in _rows(TO_80, workload="refcount", kernel_variant="percpu-ref", cores=str(n))}
    assert shares[80] > 0.25 and shares[160] > 1


def test_long_windows_hardly_notice_their_edges():
    """fault's 80-core window lasts millions of cycles: two scans of 80 counts are under 1% of it."""
    faults = _rows(TO_80, workload="fault", cores="80")
    assert faults and all(not stats.wide_edges(r) and stats.window_edges(r)[0] < 0.01 for r in faults)


def test_timed_edges_are_their_scans_share_and_one_thread_has_none():
    timed = {"threads": "40", "window_cycles": "300000", "window_open_scan_cycles": "12000",
             "window_close_scan_cycles": "9000"}
    assert stats.window_edges(timed) == (pytest.approx(0.07), True) and stats.wide_edges(timed)
    assert not stats.wide_edges(dict(timed, window_cycles="3000000"))
    assert stats.window_edges({"threads": "1", "window_cycles": "100"})[1] is False
    assert not stats.wide_edges({"threads": "1", "window_cycles": "100"})
    assert not stats.wide_edges({"threads": "8", "window_cycles": ""})      # no window: no flag


def test_the_report_flags_wide_edges_timed_and_untimed(tmp_path):
    """A table of shipped refcount rows at 160 cores (untimed) and one of them given timed scans."""
    from vmscale import report
    rows = _rows(REPO / "results" / "gem5-e7-8870-160c" / "table.csv", workload="refcount")
    timed = dict(next(r for r in rows if r["kernel_variant"] == "refcache"), run_id="timed", kernel_variant="timed",
                 window_open_scan_cycles="40000", window_close_scan_cycles="35000")
    rows.append(timed)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    table = tmp_path / "table.csv"
    with open(table, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    text = report.report(table, tmp_path / "rep").read_text()
    lines = {line.split(" | ")[0][2:].split(" (")[0]: line for line in text.splitlines() if line.startswith("| ")}
    share = stats.window_edges(timed)[0]
    assert f"edges {share:.0%}" in lines["timed"] and "untimed" not in lines["timed"]
    assert "untimed edges ~" in lines["refcache"] and "untimed edges" in lines["percpu-ref"]
    assert "edges" not in lines["stock"]       # its window lasts 11M cycles
    assert "**edges**" in text and "**untimed edges**" in text
