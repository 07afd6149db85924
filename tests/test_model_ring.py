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


def rows(variant="radixvm-percore"):
    return [r for r in csv.DictReader(open(RECORD / "table.csv")) if r["workload"] == "pipeline"
            and r["kernel_variant"] == variant]


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
