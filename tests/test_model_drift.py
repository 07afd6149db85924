"""Where every model misses, the study says where the held-out point's extra cycles went, from
the curve's own counters (vmscale_model/drift.py)."""

import sys
from pathlib import Path

import pytest

from vmscale_model import drift, study

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "sim-configs"))
TABLE = REPO / "results" / "gem5-e7-8870-to-80c" / "table.csv"


def _row(n, cycles, insts, misses, latency, ipis=0):
    """One point whose threads each sent one shoot-down in the ROI, beside the 2N - 1 of their
    creation and exit that the guest's count also holds, each received by as many CPUs."""
    ops, sent = 100 * n, 3 * n - 1
    return {"workload": "fault", "kernel_variant": "stock", "backend": "gem5", "ok": "True", "cores": str(n),
            "threads": str(n), "ops": str(ops), "window_cycles_per_op": str(cycles),
            "gem5.roi_insts_per_op": str(insts), "gem5.l1d_demand_misses_per_op": str(misses),
            "gem5.ruby_miss_latency_mean": str(latency), "vmstat.nr_tlb_remote_flush": str(sent),
            "vmstat.nr_tlb_remote_flush_received": str(ipis * ops * sent / n)}


class Distances:
    """A board whose misses' round trips grow by 10 cycles per core past 10."""
    def miss_cycles(self, n):
        return {"l1_bank": 10.0 * max(0, n - 10), "bank_memory": 0.0}


def test_the_extra_cycles_split_into_latency_misses_instructions_and_the_rest():
    rows = [_row(4, 50_000, 12_000, 100, 100), _row(10, 50_000, 12_000, 100, 100, ipis=0.1),
            _row(40, 90_000, 15_000, 110, 300, ipis=0.6)]
    ex = drift.explain(rows, 10, Distances())
    assert ex["from"] == 10 and list(ex["at"]) == [40]
    d = ex["at"][40]
    assert d["cycles"] == pytest.approx(40_000)
    assert d["latency"] == pytest.approx(110 * 200)          # the held-out misses, each dearer
    assert d["misses"] == pytest.approx(10 * 100)            # the new misses at the fitted latency
    assert d["insts"] == pytest.approx(3_000)
    assert d["rest"] == pytest.approx(40_000 - 22_000 - 1_000 - 3_000)
    assert d["board_latency"] == pytest.approx(110 * 300)    # what the board's distances alone add
    assert (d["ipis_from"], d["ipis_to"]) == pytest.approx((0.1, 0.6))
    text = drift.line(ex)
    assert "from 10 cores" in text and "+40.0k cycles/op" in text and "0.10->0.60/op" in text


def test_the_threads_exits_are_not_the_rois_shoot_downs():
    # local under per-core RadixVM at 80 cores: 159 = 2N - 1 sent, none of them in the ROI
    row = {"threads": "80", "vmstat.nr_tlb_remote_flush": "159", "vmstat.nr_tlb_remote_flush_received": "12120"}
    assert drift.roi_ipis(row) == 0
    # fault/stock at 80: four rounds per thread add 4N shoot-downs to the 2N - 1
    row = {"threads": "80", "vmstat.nr_tlb_remote_flush": "478", "vmstat.nr_tlb_remote_flush_received": "31727"}
    assert drift.roi_ipis(row) == pytest.approx(31727 * 319 / 478)
    assert drift.roi_ipis({"threads": "80"}) != drift.roi_ipis({"threads": "80"})    # nan without counts
    # a harness whose threads wait for the process's exit adds none: every shoot-down is the ROI's
    row = {"threads": "4", "threads_end": "parked", "vmstat.nr_tlb_remote_flush": "8",
           "vmstat.nr_tlb_remote_flush_received": "17"}
    assert drift.roi_ipis(row) == 17


def test_no_account_without_the_counters():
    rows = [{"cores": str(n), "ops": "10", "cycles_per_op": "100"} for n in (1, 10, 40)]
    assert drift.explain(rows, 10) == {}
    assert drift.line({}) == ""


def test_the_verdict_explains_the_shipped_fault_miss_at_80_cores():
    from vmscale_gem5 import board
    r = study.study_table(TABLE, 10, 5, boards=lambda label: board.with_sockets(label) if label else None)
    text = study.verdict(r)
    lines = text.splitlines()
    i = next(k for k, s in enumerate(lines) if s.startswith("fault/stock/"))
    key = lines[i].split(" at ")[0]
    assert r[key]["drift"]["from"] == 10 and 0.9 < r[key]["drift"]["at"]["80"]["ipis_to"] < 79 / 64
    worst = study.best(r[key])[1]
    if worst > study.EXPLAIN_ABOVE:
        assert lines[i + 1].startswith("  why (from 10 cores)") and "at 80:" in lines[i + 1]
        assert "shoot-down IPIs received" in lines[i + 1]
    # a curve some method predicts within the goal gets no account
    for k, s in enumerate(lines[:-1]):
        key = s.split(" at ")[0]
        if key in r and study.best(r[key])[1] <= study.EXPLAIN_ABOVE:
            assert not lines[k + 1].startswith("  why")


def test_the_busiest_traced_line_is_set_against_what_the_measured_rate_leaves_a_visit():
    """A trace at 10 cores: line A (2 visits/op x 300 cycles) and B (0.5 x 200).  At 40 cores a
    thread's operation takes 90,000 window cycles: 40 threads complete 40 / 90,000 per cycle, so A
    may take 90,000 / (40 x 2) = 1,125 cycles a visit before it is busy all the time; the board
    carries its hand-off 300 by the transfer path's growth, 150 - 9."""
    class Board(Distances):
        def transfer_cycles(self, n):
            return 9.0 if n <= 10 else 150.0
    trace = [{"cores": "10", "rank": str(i + 1), "name": f"{name} what", "kind": "object", "getx_per_op": str(v / 2),
              "gets_per_op": str(v / 2), "handoff_cycles": str(s), "mean_latency_cycles": str(s)}
             for i, (name, v, s) in enumerate([("B", 0.5, 200), ("A", 2.0, 300)])]
    trace.append(dict(trace[0], cores="40", handoff_cycles="9999"))        # past the fitted counts: unused
    rows = [_row(4, 50_000, 12_000, 100, 100), _row(10, 50_000, 12_000, 100, 100), _row(40, 90_000, 15_000, 110, 300)]
    ln = drift.explain(rows, 10, Board(), trace)["at"][40]["line"]
    assert ln["name"] == "A what" and ln["visits"] == 2.0 and ln["traced_at"] == 10
    assert ln["allowed"] == pytest.approx(1_125) and ln["carried"] == pytest.approx(300 + 141)
    assert "busiest traced line (A, 2.00 visits/op)" in drift.line(drift.explain(rows, 10, Board(), trace))
    assert "line" not in drift.explain(rows, 10, Board())["at"][40]       # no trace, no line
    # a trace of A at the held-out count is set beside what was carried, never used for it
    assert "traced" not in ln
    trace.append(dict(trace[1], cores="40", handoff_cycles="480"))
    ln = drift.explain(rows, 10, Board(), trace)["at"][40]["line"]
    assert ln["traced"] == 480 and ln["carried"] == pytest.approx(300 + 141)
    assert "a trace at 40 cores measured 480" in drift.line(drift.explain(rows, 10, Board(), trace))
