"""vmscale_model.ring: the pipeline's ring at its slowest thread's pace, carried by the reference
board's distances from the shipped 20-core trace (`vmscale ring`'s ring.csv) -- nothing fitted."""

import csv
from pathlib import Path

import pytest

from vmscale_gem5.board import Board
from vmscale_model import methods, ring, study

RECORD = Path(__file__).resolve().parents[1] / "results" / "gem5-e7-8870-pipeline-global"
TRACE = RECORD / "020c-pipeline-radixvm-percore-hotlines" / "ring.csv"
BOARD = Board.make("board=e7-8870")


def rows(variant="radixvm-percore", pages=40):
    """The curve at one ROI size (pages a thread): the record holds 40 and 160."""
    return [r for r in csv.DictReader(open(RECORD / "table.csv")) if r["workload"] == "pipeline"
            and r["kernel_variant"] == variant and study.roi_size(r) == pages]


def threads():
    return list(csv.DictReader(open(TRACE)))


def window(rs, n):
    return next(float(r["window_ops_per_cycle"]) for r in rs if int(r["cores"]) == n)


def test_the_traced_count_is_the_window_it_was_read_from():
    rs = rows()
    m = ring.RingOnBoard(threads(), BOARD).fit([r for r in rs if int(r["cores"]) <= 20])
    assert m.predict([20]).throughput[0] == pytest.approx(window(rs, 20), rel=1e-6)
    assert m.params["slowest_cpu"] == 10 and m.params["traced_at"] == 20


def test_one_socket_is_the_slowest_thread_without_the_socket_link():
    # 2-10 cores sit on one socket: the 20-core thread's work with on-socket distances, nothing fitted
    rs = rows()
    m = ring.RingOnBoard(threads(), BOARD).fit([r for r in rs if int(r["cores"]) <= 20])
    for n in (2, 4, 10):
        assert m.predict([n]).throughput[0] / window(rs, n) - 1 == pytest.approx(0, abs=0.05)


def test_the_slowest_thread_is_a_consumer_across_a_socket_link():
    r = ring.Ring(rows(), threads(), BOARD)
    d = ring.Distances(BOARD, 40)
    worst = max(range(40), key=lambda c: ring.network(d, c, r.a, r.b, r.m))
    assert worst // 10 != (worst - 1) % 40 // 10
    # more sockets, longer trips to the homes: the period only grows past one socket
    assert r.period(10) < r.period(20) < r.period(40) < r.period(80)


def test_no_trace_at_or_below_the_fitted_counts_is_no_model():
    rs = [r for r in rows() if int(r["cores"]) <= 10]
    with pytest.raises(methods.NoModel, match="no ring trace"):
        ring.RingOnBoard(threads(), BOARD).fit(rs)


def test_the_study_judges_a_ringed_curve_by_it():
    trace = [dict(r, board="board=e7-8870") for r in threads()]
    out = study.study(rows(), train_max=20, rings=trace, boards=lambda label: BOARD)
    curve = next(v for k, v in out.items() if k.startswith("pipeline/radixvm-percore"))
    assert "ring" in curve["methods"] and curve["methods"]["ring"]["error"]


def test_past_the_machine_the_ring_is_carried_by_each_interconnect():
    from vmscale_model import beyond, fit as fitlib
    table = fitlib.load_table(RECORD / "table.csv", "pipeline")
    trace = [dict(r, board="board=e7-8870") for r in threads()]
    pred = beyond.predict(table, [], [], 20, (20, 160, 320), ("sockets", "crossbar", "mesh"), rings=trace)
    got = {(p["variant"], p["method"], p["interconnect"], p["cores"]): p for p in pred}
    assert {v for v, *_ in got} == {"radixvm-percore"}      # the only ring traced
    per_page = {k: k[3] / p["throughput"] for k, p in got.items() if k[1] == "ring"}
    # the traced count is its window on every interconnect (the model reads it there) ...
    for topo in ("sockets", "crossbar", "mesh"):
        assert per_page[("radixvm-percore", "ring", topo, 20)] == per_page[("radixvm-percore", "ring", "sockets", 20)]
    # ... a crossbar's transfer costs the same at any size: the ring keeps its pace; the sockets' and
    # the mesh's paths grow, and the page's lines and misses with them
    x = [per_page[("radixvm-percore", "ring", "crossbar", n)] for n in (20, 160, 320)]
    assert max(x) / min(x) - 1 < 1e-9
    for topo in ("sockets", "mesh"):
        s = [per_page[("radixvm-percore", "ring", topo, n)] for n in (20, 160, 320)]
        assert s[0] < s[1] < s[2]
    assert "| pipeline / radixvm-percore (40 ops per thread) | ring | mesh |" in beyond.table_md(pred)


PROFILES = RECORD.parent / "gem5-e7-8870-profiles"


def ipi_rows():
    return [r for n in (10, 20) for r in csv.DictReader(open(PROFILES / f"{n:03d}c-pipeline-radixvm-40" / "holds.csv"))]


def test_the_shared_tables_threads_lose_the_others_ipis_past_the_trace():
    trace = list(csv.DictReader(open(RECORD / "020c-pipeline-radixvm-hotlines" / "ring.csv")))
    fitted = [r for r in rows("radixvm") if int(r["cores"]) <= 20]
    bare, recv = ring.Ring(fitted, trace, BOARD), ring.Ring(fitted, trace, BOARD, ipi_rows())
    assert bare.received is None and recv.received and recv.received.broadcast
    # the profile's handler time, each other CPU's munmap an item: what a thread loses grows with N - 1 ...
    extra = recv.period(40) - bare.period(40)
    h = recv.received.line(40, BOARD.transfer_cycles) * recv.received.work
    assert extra == pytest.approx(recv.received.q * (39 - 19) / 19 * h, rel=0.02) and extra > 0
    # ... and at the traced count the trace's busy time holds it: the same period there
    assert recv.period(20) == pytest.approx(bare.period(20))
    m = ring.RingOnBoard(trace, BOARD, ipi_rows()).fit(fitted)
    assert "IPIs received" in m.params["received"]


def test_the_per_core_rings_cpus_spin_on_kernel_locks_at_80_cores_and_not_at_20():
    # the shipped sampled profiles (docs/model.md; their time lines, not read here, put the spinning in the ROI's start-up)
    def share(n, symbol):
        rs = list(csv.DictReader(open(PROFILES / f"{n:03d}c-pipeline-radixvm-percore-500" / "symbols.csv")))
        return sum(int(r["ticks"]) for r in rs if r["symbol"] == symbol) / sum(int(r["ticks"]) for r in rs)
    assert share(20, "queued_spin_lock_slowpath") < 0.005 < 0.05 < share(80, "queued_spin_lock_slowpath")
    assert share(80, "osq_lock") > share(20, "osq_lock")


def test_past_the_machine_a_profile_without_locks_leaves_the_hot_lines():
    # the per-core profiles hold only the IPIs' handler: beyond keeps the hot lines alone for that curve
    from vmscale_model import beyond, fit as fitlib
    table = fitlib.load_table(RECORD / "table.csv", "pipeline")
    hot = [dict(r, board="board=e7-8870") for r in
           csv.DictReader(open(RECORD / "020c-pipeline-radixvm-percore-hotlines" / "hotlines.csv"))]
    held = [dict(r, board="board=e7-8870") for r in
            csv.DictReader(open(PROFILES / "020c-pipeline-radixvm-percore-500" / "holds.csv"))]
    pred = beyond.predict(table, hot, held, 20, (20, 160), ("crossbar",), rings=[])
    assert {p["method"] for p in pred if p["variant"] == "radixvm-percore"} >= {"hotboard", "usl"}
