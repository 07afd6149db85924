"""The hot-line model (vmscale_model.hotstations): stations from hotlines.csv rows, the think
time the 1-core cost leaves, multi-queue MVA; values worked out by hand."""

import json
import math

import pytest

from conftest import vmscale
from vmscale_model import hotstations as hs

FIX = "tests/fixtures/hotlines/refcount-2c"


def row(rank, getx, gets, inv, lat, name="x", handoff="nan"):
    return {"rank": rank, "getx_per_op": getx, "gets_per_op": gets, "inv_per_op": inv,
            "mean_latency_cycles": lat, "handoff_cycles": handoff, "name": name, "kind": "kernel"}


def test_stations_take_transfers_and_latency_of_ranked_lines_only():
    rows = [row("1", "0.5", "0.25", "9", "20", "a"), row("2", "0.1", "0", "0", "nan", "no latency"),
            row("3", "0", "0", "0.3", "30", "invalidated only"), row("4", "0.1", "0.1", "0", "200", "b"),
            row("", "5", "5", "5", "nan", "12 other lines")]
    st = hs.stations(rows)
    assert [s["name"] for s in st] == ["b", "a"]             # by demand: 0.2 x 200 = 40 > 0.75 x 20 = 15
    assert [s["visits"] for s in st] == [pytest.approx(0.2), 0.75] and st[1]["demand"] == 15.0
    assert [s["name"] for s in hs.stations(rows, top=3)] == ["a"]
    # a line that queued is served for its hand-off time: its latency also holds the wait
    [q] = hs.stations([row("1", "1", "0", "0", "103", "queued", handoff="22")])
    assert (q["service"], q["service_from"], q["demand"]) == (22.0, "handoff", 22.0)
    # where the trace has it, the gap between forwards while the line was wanted throughout (which
    # also holds gaps to a newcomer while the waiting were served by no forward) is the service
    [b] = hs.stations([dict(row("1", "1", "0", "0", "103", "busy", handoff="22"), busy_handoff_cycles="30")])
    assert (b["service"], b["service_from"], b["demand"]) == (30.0, "busy", 30.0)
    [n] = hs.stations([dict(row("1", "1", "0", "0", "103", "old", handoff="22"), busy_handoff_cycles="nan")])
    assert n["service_from"] == "handoff"


def test_stations_edges_rank_order_top_and_which_service_time():
    """The 'rest' row may come first and ranks need not be in order; top N keeps exactly ranks 1..N;
    a hand-off time of 0 (never queued) falls back to the latency; a line with no service time is dropped."""
    rows = [row("", "5", "5", "5", "nan", "rest"), row("3", "0.5", "0", "0", "10", "third"),
            row("1", "1", "0", "0", "50", "h1", handoff="1"), row("2", "1", "0", "0", "30", "h0", handoff="0"),
            row("4", "1", "0", "0", "0", "no time", handoff="0"), row("5", "1", "0", "0", "1", "one")]
    st = {s["name"]: s for s in hs.stations(rows)}
    assert sorted(st) == ["h0", "h1", "one", "third"]
    assert (st["h1"]["service"], st["h1"]["service_from"]) == (1.0, "handoff")
    assert (st["h0"]["service"], st["h0"]["service_from"]) == (30.0, "latency")
    assert (st["one"]["service"], st["one"]["service_from"]) == (1.0, "latency")
    assert sorted(s["name"] for s in hs.stations(rows, top=3)) == ["h0", "h1", "third"]
    assert sorted(s["name"] for s in hs.stations(rows[::-1], top=2)) == ["h0", "h1"]


def test_think_time_is_what_the_one_core_cost_leaves_and_mva_by_hand():
    one = {"visits": 1.0, "service": 10.0, "demand": 10.0, "name": "a", "kind": "kernel"}
    m = hs.model([one], 40.0)
    assert m["think"] == 30.0 and m["demand"] == 10.0
    # n=1: 1/(Z+D); n=2: Q1 = D/(Z+D) = 0.25, R2 = D(1+Q1) = 12.5, X2 = 2/(30+12.5)
    x = hs.predict(m, [1, 2])
    assert x[0] == pytest.approx(1 / 40) and x[1] == pytest.approx(2 / 42.5)
    # the same demand on two lines queues less: Q1 = 5/40 each, R2 = 2 x 5 x 1.125 = 11.25
    half = dict(one, demand=5.0)
    assert hs.predict(hs.model([half, half], 40.0), [2])[0] == pytest.approx(2 / 41.25)
    with pytest.raises(ValueError, match=r"^the hot lines' demand \(10 cycles per op\) is not below the 1-core "
                       r"cost \(10\): no think time left$"):
        hs.model([one], 10.0)
    with pytest.raises(ValueError, match="^no hot line with transfers and a measured latency: nothing to queue on$"):
        hs.model([], 10.0)


def test_cli_judges_the_hot_line_model_on_a_real_curve(tmp_path):
    """Stations from the committed 2-core trace, judged on the shipped gem5 refcount curve:
    the 1-core point is met by construction, every other point is a prediction."""
    r = vmscale("hotlines", FIX, "--out", tmp_path, "--symbols", f"{FIX}/symbols.txt", "--percpu", f"{FIX}/percpu.json")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "stations.json"
    r = vmscale("model", "stations", "results/gem5-scaling/table.csv", tmp_path / "hotlines.csv", "--workload",
                "refcount", "--variant", "stock", "--ops-per-thread", "2000", "--out", out)
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["stations_at"] == 2 and res["stations"][0]["name"].startswith("bench_atomic")
    p1 = next(p for p in res["points"] if p["cores"] == 1)
    assert p1["hot_lines"] == pytest.approx(p1["measured"]) and p1["hot_lines_error"] == pytest.approx(0, abs=1e-9)
    held = [p for p in res["points"] if p["held_out"]]
    assert [p["cores"] for p in held] == [32, 64] and all(math.isfinite(p["line_error"]) for p in held)
    assert "bench_atomic" in r.stdout and "held out" in r.stdout
    r = vmscale("model", "stations", "results/gem5-scaling/table.csv", tmp_path / "hotlines.csv", "--workload",
                "refcount", "--variant", "percpu-ref", "--ops-per-thread", "2000")
    assert r.returncode == 2 and "no refcount/percpu-ref case" in r.stderr


def test_cli_on_the_steady_state_curve(tmp_path):
    """--slope: the curve the table's two ROI sizes give (1-64 cores on the 64-way-L2 board)."""
    r = vmscale("hotlines", FIX, "--out", tmp_path, "--symbols", f"{FIX}/symbols.txt", "--percpu", f"{FIX}/percpu.json")
    assert r.returncode == 0, r.stderr
    r = vmscale("model", "stations", "results/gem5-scaling/table.csv", tmp_path / "hotlines.csv", "--workload",
                "refcount", "--variant", "stock", "--board", "l2_assoc=64", "--slope", "--out", tmp_path / "s.json")
    assert r.returncode == 0, r.stderr
    res = json.loads((tmp_path / "s.json").read_text())
    assert [p["cores"] for p in res["points"]] == [1, 2, 4, 8, 16, 32, 64]
    # the 1-core slope (34 cycles per op, README) is met by construction
    assert 1 / res["points"][0]["measured"] == pytest.approx(res["think"] + sum(s["demand"] for s in res["stations"]))
