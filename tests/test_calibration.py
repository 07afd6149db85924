"""The calibration path: ccbench's per-pair lines, classed by the board's socket distance."""

import subprocess

from vmscale import calibration
from vmscale_gem5.board import Board


def test_a_native_ccbench_run_is_parsed_and_classed_by_the_boards_graph(workloads_built):
    # two "sockets" of one core each: every pair crosses one socket link on the reference board
    r = subprocess.run([str(workloads_built / "ccbench"), "threads=2", "socket_cores=1", "homes=2", "rounds=5"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pairs = calibration.parse(r.stdout)
    assert {(p["writer"], p["reader"]) for p in pairs} == {(0, 1), (1, 0)}
    assert all(p["home"] == p["writer_socket"] for p in pairs)
    # A timed region's own cost is always positive; a load minus it need not be on a native host (two
    # SMT siblings share an L1: CI's 2-vCPU machine measured 0), so only the board runs check transfers.
    assert all(p["overhead"] > 0 and p["load"] >= 0 and p["atomic"] >= 0 for p in pairs)
    g = Board.make({"board": "e7-8870", "socket_cores": "1"}).graph(8)
    distance = calibration.socket_distance({(a, b): g.hops(a, b) for a in range(8) for b in range(8)})
    assert sorted(distance[(0, b)] for b in range(8)) == [0, 1, 1, 1, 2, 2, 2, 2]
    rows = calibration.table(calibration.classify(pairs, distance))
    assert [x["class"] for x in rows] == ["one hop"] and rows[0]["pairs"] == 2
    assert rows[0]["published_cycles"] == 341
    n, m = calibration.socket_matrix(pairs)
    assert n == 2 and m[0][0] is None and m[0][1] is not None
