"""Hot-line stations carried past their sockets by the board's distances (vmscale_model.hotcarried):
by hand on a board whose distances the test sets, and on the reference board's traced shared atomic."""

import csv
import functools
import math
from pathlib import Path

import numpy as np
import pytest

from vmscale_gem5.board import Board
from vmscale_model import fit as fitlib
from vmscale_model import hotcarried, methods, solvers, study
from vmscale_model.sockets import ownership_runs

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "results" / "gem5-e7-8870-to-80c" / "table.csv"
TRACE = REPO / "results" / "gem5-e7-8870-handover" / "020c-refcount-stock" / "hotlines.csv"


class Dist:
    """A board whose distances the test sets: one socket up to 10 cores, then farther."""
    def miss_cycles(self, n):
        return {"l1_bank": 6.0 if n <= 10 else 100.0, "bank_memory": 6.0 if n <= 10 else 50.0}

    def transfer_cycles(self, n):
        return 9.0 if n <= 10 else 150.0


def _curve(c1, misses):
    return [{"workload": "w", "kernel_variant": "v", "backend": "gem5", "cores": str(n), "threads": str(n),
             "ok": "True", "ops": "1000", "window_ops_per_cycle": str(n / c1 / (1 + 0.01 * (n - 1))),
             "gem5.l1d_demand_misses_per_op": str(misses), "gem5.dir_fetch": "2000", "gem5.l1_fwd_getx_per_op": "0.5",
             "gem5.l1_fwd_gets_per_op": "0"} for n in (1, 2, 4, 10)]


def _trace(visits, handoff, cores=10):
    return [{"workload": "w", "kernel_variant": "v", "cores": str(cores), "rank": "1", "name": "lock", "kind": "kernel",
             "getx_per_op": str(visits), "gets_per_op": "0", "handoff_cycles": str(handoff),
             "mean_latency_cycles": "300"}]


def test_by_hand_the_work_outside_the_lines_grows_with_the_miss_path_and_an_unsaturated_line_with_the_transfer():
    c1, misses, v, s = 10_000.0, 40.0, 2.0, 100.0
    rows = _curve(c1, misses)
    c = hotcarried.Carried(rows, _trace(v, s), Dist().miss_cycles, Dist().transfer_cycles)
    assert c.n_t == 10 and c.saturated == [False]
    z1 = c1 - v * s
    assert c.at(1)[0] == pytest.approx(z1) and c.at(10)[1] == [pytest.approx(v * s)]
    assert c.throughput([1])[0] == pytest.approx(1 / c1)              # the 1-core cost, by construction
    z, d, k, _ = c.at(40)
    fetches = 2000 / 1000
    assert z == pytest.approx(z1 + (misses - v) * (100 - 6) + fetches * (50 - 6))
    assert d == [pytest.approx(v * (s + 150 - 9))] and k == [1.0]
    assert c.throughput([40])[0] == pytest.approx(solvers.mva(z, d, 40)["throughput"])


def test_a_visit_that_holds_a_write_by_invalidation_carries_the_path_once_per_ownership_change():
    """A line read and written: per op 2 forwards and 1 write that took it from its sharers by
    invalidation (no forward), so each visit's hand-off holds 1.5 ownership changes, and 1.5 times the
    path's growth past the trace; the trace's own demand, and so the think time, are unchanged."""
    rows = _curve(10_000.0, 40.0)
    row = dict(_trace(2.0, 100.0)[0], inv_writes_per_op="1.0")
    c = hotcarried.Carried(rows, [row], Dist().miss_cycles, Dist().transfer_cycles)
    plain = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles)
    assert c.stations[0]["changes"] == 1.5 and plain.stations[0]["changes"] == 1.0
    assert c.think == pytest.approx(plain.think) and c.at(10)[1] == plain.at(10)[1]
    assert c.at(40)[1] == [pytest.approx(2.0 * (100.0 + 1.5 * (150 - 9)))]
    assert c.throughput([40])[0] < plain.throughput([40])[0]


def test_a_saturated_line_with_runs_follows_the_ownership_runs():
    rows = _curve(1_000.0, 1.0)
    c = hotcarried.Carried(rows, _trace(0.25, 800.0), Dist().miss_cycles, Dist().transfer_cycles)
    assert c.saturated == [True]          # 10 cores x 200 cycles of demand per 1,000-cycle op
    _, d, k, _ = c.at(40)
    r = ownership_runs(0.25 * 800, 0.25, 1.0, [100 - 6], [150 - 9], [40])
    assert d == [pytest.approx(r["service"][0])] and k[0] == pytest.approx(r["k"][0]) and k[0] > 4


def _holds(rows):
    return [{"workload": "w", "kernel_variant": "v", "cores": str(n), "site": site, "hold_cycles": str(h),
             "holds_per_op": str(v)} for n, site, h, v in rows]


def test_by_hand_lock_holds_are_stations_whose_hold_grows_with_the_transfer_path():
    c1, v, s = 10_000.0, 2.0, 100.0
    # two sites of the LRU's lock at 10 cores (one queue), a zone-lock site, and a profile at 4 cores
    held = _holds([(10, "folio_batch_move_lru", 3_000, 0.03), (10, "__page_cache_release.part.0", 1_000, 0.01),
                   (10, "rmqueue_bulk", 400, 0.1), (4, "folio_batch_move_lru", 2_000, 0.03),
                   (20, "folio_batch_move_lru", 9_999, 0.5)])          # past the fitted counts: unused
    c = hotcarried.Carried(_curve(c1, 40.0), _trace(v, s), Dist().miss_cycles, Dist().transfer_cycles,
                           hold_rows=held)
    lk = {k["name"]: k for k in c.locks}
    assert set(lk) == {"lru_lock", "zone_lock"} and lk["lru_lock"]["cores"] == 10
    assert lk["lru_lock"]["visits"] == pytest.approx(0.04)
    assert lk["lru_lock"]["service"] == pytest.approx((0.03 * 3_000 + 0.01 * 1_000) / 0.04)
    # 4 and 10 cores are one socket (transfer 9 cycles at both): no growth to learn from
    assert lk["lru_lock"]["per_transfer"] == 0.0 and lk["zone_lock"]["per_transfer"] == 0.0
    # the think time leaves each lock's demand with the hold at its smallest profiled count (the LRU
    # lock's at 4), at the lock's one rate (no holds counted to pool: the largest count's)
    assert c.think == pytest.approx(c1 - v * s - 0.04 * 2_000 - 0.1 * 400)
    assert c.throughput([1])[0] == pytest.approx(1 / (c1 + 0.04 * 2_500 - 0.04 * 2_000))
    _, d, _, _ = c.at(40)
    assert d[1:] == [pytest.approx(0.04 * 2_500), pytest.approx(0.1 * 400)]


def test_a_lock_profiled_on_two_sockets_and_one_lengthens_by_its_transfers():
    class Far(Dist):
        def transfer_cycles(self, n):
            return {1: 9.0, 10: 9.0, 20: 100.0}.get(n, 300.0)
    rows = _curve(10_000.0, 40.0) + [dict(_curve(10_000.0, 40.0)[-1], cores="20", threads="20")]
    held = _holds([(10, "folio_batch_move_lru", 1_000, 0.05), (20, "folio_batch_move_lru", 1_910, 0.05)])
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Far().miss_cycles, Far().transfer_cycles, hold_rows=held)
    (k,) = c.locks
    assert k["cores"] == 20 and k["per_transfer"] == pytest.approx(910 / 91)
    # the line through both profiles: at 10 cores (one socket) the 10-core hold, not the 20-core one
    assert c.hold(k, 80) == pytest.approx(1_910 + 10 * (300 - 100)) and c.hold(k, 10) == pytest.approx(1_000)
    model = hotcarried.HotLocksOnBoard(_trace(2.0, 100.0), held, Far()).fit(rows)
    assert model.params["locks"][0]["name"] == "lru_lock"
    z, d, _, _ = c.at(80)
    assert model.predict([80]).throughput[0] == pytest.approx(solvers.mva(z, d, 80)["throughput"])
    with pytest.raises(methods.NoModel, match="no lock holds"):
        hotcarried.HotLocksOnBoard(_trace(2.0, 100.0), _holds([(40, "x", 1, 1)]), Far()).fit(rows)


def test_a_locks_rate_is_pooled_over_its_profiles_and_its_hold_is_the_largest_counts():
    """The LRU lock's takings per fault are the code path's: 10 holds seen at 10 cores (0.08 per op,
    125 sampled ops) and 40 at 20 (0.1 per op, 400 sampled ops) are 50 in 525 ops, whatever the
    holds; a profile that counted a sleeping lock's cycle is not pooled with one that counted its sites."""
    class Far(Dist):
        def transfer_cycles(self, n):
            return {1: 9.0, 10: 9.0, 20: 100.0}.get(n, 300.0)
    rows = _curve(10_000.0, 40.0) + [dict(_curve(10_000.0, 40.0)[-1], cores="20", threads="20")]
    held = _holds([(10, "folio_batch_move_lru", 1_000, 0.08), (20, "folio_batch_move_lru", 1_910, 0.1),
                   (10, "vm_mmap_pgoff", 500, 1.0), (20, "mmap_lock", 700, 2.0)])
    for r, n in zip(held, (10, 40, 30, 60)):
        r["holds"] = str(n)
    held[3].update(kind="rwsem-cycle", handoffs="60", handoff_cycles="0")
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Far().miss_cycles, Far().transfer_cycles, hold_rows=held)
    lk = {k["name"]: k for k in c.locks}
    lru, mm = lk["lru_lock"], lk["mmap_lock"]
    assert lru["visits"] == pytest.approx(50 / 525) and lru["seen"] == 50 and lru["visits_at_top"] == 0.1
    assert lru["service"] == 1_910 and lru["per_transfer"] == pytest.approx(910 / 91)
    assert lru["demand_low"] == pytest.approx(50 / 525 * 1_000)
    assert mm["visits"] == 2.0 and mm["seen"] == 60        # the 10-core profile counted its sites
    # the band's edges move the pooled rate by its pooled sampling error (no holds' spread recorded)
    lo = hotcarried.Carried(rows, _trace(2.0, 100.0), Far().miss_cycles, Far().transfer_cycles, hold_rows=held,
                            lock_z=1.645)
    assert {k["name"]: k for k in lo.locks}["lru_lock"]["visits"] == pytest.approx(50 / 525 * (1 + 1.645 / 50 ** 0.5))
    assert c.hold(lru, 80) == lo.hold({**lru}, 80)          # no holds' spread: the hold has no band
    # with it, the mean holds' too: 1,910 +- 955 cycles (40 seen) at 20 cores, 1,000 +- 500 (10) at 10;
    # at 80 the line through them is carried r = (300 - 100) / 91 steps past 20 cores
    held[0]["hold_sd_cycles"], held[1]["hold_sd_cycles"] = "500", "955"
    (lru,) = [k for k in hotcarried.locks(held, 20, Far().transfer_cycles) if k["name"] == "lru_lock"]
    assert lru["hold_var"] == pytest.approx(955 ** 2 / 40) and lru["hold_var_below"] == pytest.approx(500 ** 2 / 10)
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Far().miss_cycles, Far().transfer_cycles, hold_rows=held)
    r = 200 / 91
    sd = ((1 + r) ** 2 * 955 ** 2 / 40 + r * r * 500 ** 2 / 10) ** 0.5
    assert c.hold_sd(lru, 80) == pytest.approx(sd) and c.hold_sd(lru, 20) == pytest.approx(955 / 40 ** 0.5)
    lo = hotcarried.Carried(rows, _trace(2.0, 100.0), Far().miss_cycles, Far().transfer_cycles, hold_rows=held,
                            lock_z=1.645)
    assert lo.hold(lru, 80) == pytest.approx(c.hold(lru, 80) + 1.645 * sd)
    # two sites of one lock: their means' difference is spread too
    two = _holds([(20, "folio_batch_move_lru", 1_000, 0.05), (20, "__page_cache_release", 3_000, 0.05)])
    for row in two:
        row.update(holds="10", hold_sd_cycles="0")
    (k,) = hotcarried.locks(two, 20, Far().transfer_cycles)
    assert k["service"] == 2_000 and k["hold_var"] == pytest.approx(1_000 ** 2 / 20)


def test_a_sleeping_locks_handoff_is_a_station_step_carried_as_its_hold():
    """mmap_lock's write side (rwsem): each hold also costs its waiter's wake-up while one waits,
    profiled at 10 and 20 cores; the hand-off grows with the path as the hold does."""
    class Far(Dist):
        def transfer_cycles(self, n):
            return {1: 9.0, 10: 9.0, 20: 100.0}.get(n, 300.0)
    rows = _curve(10_000.0, 40.0) + [dict(_curve(10_000.0, 40.0)[-1], cores="20", threads="20")]
    held = _holds([(10, "vm_mmap_pgoff", 1_000, 1.0), (10, "__vm_munmap", 2_000, 1.0),
                   (20, "vm_mmap_pgoff", 1_000, 1.0), (20, "__vm_munmap", 2_000, 1.0)])
    for r, g in zip(held, (3_000, 5_000, 4_000, 8_000)):
        r.update(kind="rwsem-write", handoffs="10", handoff_cycles=str(g))
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Far().miss_cycles, Far().transfer_cycles, hold_rows=held)
    (k,) = c.locks
    assert k["name"] == "mmap_lock" and k["visits"] == pytest.approx(2.0)
    assert k["handoff"] == pytest.approx(6_000) and k["handoff_per_transfer"] == pytest.approx(2_000 / 91)
    assert c.handoff(k, 80) == pytest.approx(6_000 + 2_000 / 91 * 200) and k["per_transfer"] == 0.0
    # alone the lock costs its holds only; with many cores, always a waiter: hold + hand-off per visit
    assert c.throughput([1])[0] == pytest.approx(1 / 10_000.0)
    assert c.throughput([200])[0] == pytest.approx(1 / (2 * (1_500 + c.handoff(k, 200))), rel=0.02)
    z, d, _, h = c.at(80)
    assert h == [0.0, pytest.approx(2 * c.handoff(k, 80))]
    assert c.throughput([80])[0] == pytest.approx(solvers.mva(z, d, 80, handoff=h)["throughput"])


def test_a_handoff_that_grows_with_its_waiters_on_one_socket_is_a_load_dependent_station():
    """mmap_lock's cycle profiled at 2, 4 and 10 cores (one socket: no transfer lengthens) and 20: its
    hand-off grows 200 cycles a waiter there, so that growth is a load-dependent station's (per other
    core present, solved by load-dependent MVA), and only the rest of 20 cores' hand-off is the path's.
    The SimPy simulation of the same network agrees with MVA."""
    from vmscale_model import des
    rows = _curve(10_000.0, 40.0) + [dict(_curve(10_000.0, 40.0)[-1], cores="20", threads="20")]
    g = {n: 1_000.0 + 200.0 * (n - 1) for n in (2, 4, 10)}
    g[20] = 1_000.0 + 200.0 * 19 + 50.0 * (150 - 9)
    held = _holds([(n, "mmap_lock", 2_000, 1.0) for n in (2, 4, 10, 20)])
    for r in held:      # busy throughout (held + someone queued): each taking's hand-off was waited for
        r.update(kind="rwsem-cycle", holds="100", handoffs="100", handoff_cycles=str(g[int(r["cores"])]),
                 held="0.7", waiting="0.29")
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles, hold_rows=held)
    (k,) = c.locks
    assert k["per_waiter"] == pytest.approx(200.0) and k["waiter_counts"] == [2, 4, 10]
    assert k["handoff"] == pytest.approx(g[20] - 200.0 * 19) and k["handoff_per_transfer"] == pytest.approx(50.0)
    assert c.growth() == [0.0, pytest.approx(200.0)]
    z, d, _, h = c.at(40)
    x = c.throughput([40])[0]
    assert x == pytest.approx(solvers.mva(z, d, 40, growth=c.growth(), handoff=h)["throughput"])
    assert x < solvers.mva(z, d, 40, handoff=h)["throughput"] * 0.9       # the waiters' growth costs
    # the lock saturated: nearly every other core waits, each service with 39 more present
    assert x == pytest.approx(1 / (2_000 + h[1] + 200.0 * 39), rel=0.02)
    sim = des.simulate(c.as_network(40), 40, ops=20_000, seed=3)
    assert sim.throughput == pytest.approx(x, rel=0.02)
    # a count where the lock was not busy throughout (2 cores: the other core seldom waits) is left out:
    # a cycle's hand-off is per taking, so there it is mostly the takings nobody waited for
    held[0].update(held="0.5", waiting="0.02", handoff_cycles="100")
    (k2,) = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles,
                               hold_rows=held).locks
    assert k2["waiter_counts"] == [4, 10] and k2["per_waiter"] == pytest.approx(200.0)
    # one socket profiled once: no growth read, the hand-off's line through 10 and 20 as before
    (one,) = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles,
                                hold_rows=[r for r in held if r["cores"] in ("10", "20")]).locks
    assert one["per_waiter"] == 0.0 and one["handoff"] == pytest.approx(g[20])


def test_the_board_methods_meet_the_largest_fitted_count_and_carry_the_extra_work_from_there():
    """The think time is anchored at the largest fitted count: the work outside the lines that 10 cores
    hold beyond what one core's cost left (here the curve's 1% a core) is added to Z, so the model meets
    the measured point at 10 and at 40 is Z(10) carried by the misses' longer paths."""
    rows = _curve(10_000.0, 40.0)
    m = hotcarried.HotLinesOnBoard(_trace(2.0, 100.0), Dist()).fit(rows)
    measured = {int(r["cores"]): float(r["window_ops_per_cycle"]) for r in rows}
    assert m.predict(np.array([10])).throughput[0] == pytest.approx(measured[10], rel=1e-6)
    offset = m.params["anchor"]
    assert offset > 0                       # 10 cores pay 9% more per op than one, and the line is no queue
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles)
    z40, d40, _, _ = c.at(40)
    assert m.predict(np.array([40])).throughput[0] == pytest.approx(solvers.mva(z40 + offset, d40, 40)["throughput"])
    # the unanchored Carried (linecheck's) is unchanged: its 1-core point is still the measured one
    assert c.offset == 0 and c.throughput([1])[0] == pytest.approx(1 / 10_000.0)


def test_where_the_queues_alone_are_slower_than_the_fitted_point_the_anchor_stops_at_no_think_time():
    rows = _curve(1_000.0, 1.0)
    c = hotcarried.Carried(rows, _trace(0.9, 1_000.0 * 0.99 / 0.9), Dist().miss_cycles, Dist().transfer_cycles)
    offset = hotcarried.anchor(c)
    assert offset == pytest.approx(-c.think) and c.at(10)[0] == pytest.approx(0.0)
    assert c.throughput([10])[0] < c.measured_n0


def test_no_trace_at_or_below_the_fitted_counts_is_refused():
    with pytest.raises(methods.NoModel, match="no hot-line trace at or below"):
        hotcarried.Carried(_curve(1000.0, 1.0), _trace(0.5, 100, cores=20), Dist().miss_cycles,
                           Dist().transfer_cycles)


def test_the_reference_boards_traced_shared_atomic_in_the_study():
    trace = list(csv.DictReader(open(TRACE, newline="")))
    rows = fitlib.load_table(TABLE, "refcount")
    out = study.study(rows, train_max=20, hotlines=trace,
                      boards=lambda label: Board.make(label) if label else None)
    key = next(k for k in out if k.startswith("refcount/stock/"))
    j = out[key]["methods"]["hotboard"]
    assert j["params"]["traced_at"] == 20 and j["params"]["runs"] == 1
    # held out: 40, 80 (8 sockets) and 160 (16) cores: 20,000 pairs a thread on one image since session 64
    assert out[key]["held_cores"] == [40, 80, 160] and all(np.isfinite(j["error"]))
    err = dict(zip(out[key]["held_cores"], j["error"]))
    usl = dict(zip(out[key]["held_cores"], out[key]["methods"]["usl"]["error"]))
    # the goal: within 10% at 4x, 15% at 8x, and below the USL's error on the same split
    assert abs(err[80]) <= 0.10 and abs(err[160]) <= 0.15, err
    assert all(abs(err[n]) < abs(usl[n]) for n in (80, 160)), (err, usl)
    # only the traced case has the method
    other = next(k for k in out if k.startswith("refcount/refcache/"))
    assert "hotboard" not in out[other]["methods"]


def test_the_scalable_counters_are_their_20_core_cost_carried_by_the_boards_distances():
    """Refcache and percpu_ref share no line in the ROI: fitted on 1-20 cores, the 20-core cost carried by the
    board's distances with no queue (`distances`) holds their window throughput within 5% at 40, 80 and 160
    cores; the contended-line fit, which needs a queue, misses them by far more."""
    rows = fitlib.load_table(TABLE, "refcount")
    out = study.study(rows, train_max=20, boards=lambda label: Board.make(label) if label else None)
    for v, held in (("refcache", [40, 80, 160]), ("percpu-ref", [40, 80, 160])):
        key = next(k for k in out if k.startswith(f"refcount/{v}/"))
        assert out[key]["held_cores"] == held
        err = out[key]["methods"]["distances"]["error"]
        assert all(abs(e) < 0.05 for e in err), (v, err)
        assert abs(out[key]["methods"]["line"]["error"][1]) > 0.2, v


def test_the_lru_lock_as_a_station_carries_fault_past_two_sockets():
    """fault under per-VMA locks on the reference board (the warm-up record: one image), fitted on
    1-20 cores with the LRU lock's holds sampled at 10 and 20 (~100-200 holds each): within 10% at
    40; at 80 the measured point inside the band the profiles' sampling gives, and the error far
    below the hot lines alone (which charge the lock its line's hand-off) and the USL's."""
    from vmscale_model.cli import hold_rows
    warm = REPO / "results" / "gem5-e7-8870-warm"
    profiles = sorted((REPO / "results" / "gem5-e7-8870-profiles").glob("0*c-fault-stock-warm/holds.csv"))
    assert [p.parent.name[:4] for p in profiles] == ["010c", "020c"]
    held = [r for p in profiles for r in hold_rows(p)]
    assert {r["board"] for r in held} == {"board=e7-8870"}    # each row carries its run's board (as curves name it)
    trace = [r for p in sorted((REPO / "results" / "gem5-e7-8870-fault-hotlines").glob("0*c-fault-stock/hotlines.csv"))
             for r in csv.DictReader(open(p, newline=""))]
    out = study.study(fitlib.load_table(warm / "table.csv", "fault"), train_max=20, hotlines=trace, holds=held,
                      boards=lambda label: Board.make(label) if label else None)
    key = next(k for k in out if k.startswith("fault/stock/") and "hotlocks" in out[k].get("methods", {}))
    r = out[key]
    assert r["held_cores"][:2] == [40, 80]
    locks = r["methods"]["hotlocks"]["params"]["locks"]
    assert locks[0]["name"] == "lru_lock" and locks[0]["cores"] == 20 and locks[0]["per_transfer"] > 0
    err = r["methods"]["hotlocks"]["error"]
    assert abs(err[0]) < 0.10 and r["methods"]["hotlocks"]["band"]["inside"][1], r["methods"]["hotlocks"]
    assert abs(err[1]) < abs(r["methods"]["hotboard"]["error"][1]) / 2 and abs(err[1]) < abs(r["methods"]["usl"]["error"][1])


def test_a_sleeping_locks_measured_cycle_stands_for_its_sites_holds():
    """Where the profile measured mmap_lock's cycle (held, and free while a waiter waited: kind
    rwsem-cycle), that row is the station and the lock's site rows are not added to it."""
    rows = _curve(10_000.0, 40.0)
    held = _holds([(10, "vm_mmap_pgoff", 1_000, 1.0), (10, "__vm_munmap", 2_000, 1.0),
                   (10, "lock_mm_and_find_vma", 500, 1.0), (10, "mmap_lock", 1_000, 3.0),
                   (10, "folio_batch_move_lru", 100, 1.0)])
    held[3].update(kind="rwsem-cycle", handoffs="30", handoff_cycles="400")
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles, hold_rows=held)
    lk = {k["name"]: k for k in c.locks}
    assert set(lk) == {"mmap_lock", "lru_lock"}
    assert lk["mmap_lock"]["visits"] == pytest.approx(3.0) and lk["mmap_lock"]["service"] == pytest.approx(1_000)
    assert lk["mmap_lock"]["handoff"] == pytest.approx(400)
    assert c.think == pytest.approx(10_000.0 - 2.0 * 100.0 - 3.0 * 1_000 - 100.0)


def test_the_lock_models_band_is_the_sampling_error_of_each_locks_rate():
    """A lock seen 25 times in the sampled windows: its rate is known to 1/5 of itself, so the
    band's edges move its visits (and their demand at the smallest profiled count) by 1.645/5."""
    rows = _curve(10_000.0, 40.0)
    held = _holds([(10, "folio_batch_move_lru", 500, 1.0)])
    held[0]["holds"] = "25"
    model = hotcarried.HotLocksOnBoard(_trace(2.0, 100.0), held, Dist()).fit(rows)
    p = model.predict([10, 40])
    assert p.low[1] < p.throughput[1] < p.high[1]
    # the largest fitted count: every edge is anchored there
    assert p.low[0] == pytest.approx(p.throughput[0]) == pytest.approx(float(rows[-1]["window_ops_per_cycle"]))
    f = 1 + hotcarried.BAND_Z / 5
    c = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles, hold_rows=held)
    (k,) = c.locks
    assert k["seen"] == 25
    low = hotcarried.Carried(rows, _trace(2.0, 100.0), Dist().miss_cycles, Dist().transfer_cycles, hold_rows=held,
                             lock_z=hotcarried.BAND_Z)
    offset = hotcarried.anchor(low)
    z, d, _, _ = c.at(40)
    assert p.low[1] == pytest.approx(solvers.mva(z - 500 * (f - 1) + offset, d[:1] + [d[1] * f], 40)["throughput"])


def test_by_hand_the_phases_model_queues_the_faults_and_the_re_arm_one_after_the_other():
    """fault's rounds as two networks in step (vmscale_model.phases): the trace's line and the faults'
    62/64 of the LRU adds in one, the re-arm's frees and the adds its drain moves in the other, whose
    think time makes it take the trace's quiet time per operation at the traced count."""
    from vmscale_model import phases
    c1, v, s, quiet = 20_000.0, 1.0, 100.0, 6_000.0
    rows = [dict(r, workload="fault", **{"params.pages": "64"}) for r in _curve(c1, 40.0)]
    trace = [dict(r, workload="fault", quiet_cycles_per_op=str(quiet)) for r in _trace(v, s)]
    held = [dict(r, workload="fault") for r in _holds([(10, "folio_batch_move_lru", 3_100, 0.03),
                                                       (10, "__page_cache_release.part.0", 2_000, 0.05)])]
    method = hotcarried.HotPhasesOnBoard(trace, held, Dist(), "fault")
    model = method.fit(rows)
    # anchored at the largest fitted count, the phases' own solution there
    assert model.predict([10]).throughput[0] == pytest.approx(float(rows[-1]["window_ops_per_cycle"]), rel=1e-6)
    c = hotcarried.Carried(rows, trace, Dist().miss_cycles, Dist().transfer_cycles,
                           hold_rows=phases.split_holds("fault", held, {"pages": "64"}))
    lk = {k["name"]: k for k in c.locks}
    assert lk["lru_lock"]["visits"] == pytest.approx(0.03 * 62 / 64)
    assert lk["rearm:lru_lock"]["visits"] == pytest.approx(0.05 + 0.03 * 2 / 64)
    # stations: the line, then the locks by demand (the re-arm's 0.05 x 2,000 + its share of the adds first)
    assert [k["name"] for k in c.locks] == ["rearm:lru_lock", "lru_lock"]
    z10, d10, _, _ = c.at(10)
    share = phases.rearm_think(quiet, [d10[1]], 10) / z10
    assert model.params["rearm_share"] == pytest.approx(share) and 0 < share < 1
    for n in (10, 40):
        z, d, _, h = c.at(n)
        z += model.params["anchor"]
        want = phases.throughput(z * (1 - share), [d[0], d[2]], [h[0], h[2]], z * share, [d[1]], n)
        assert model.predict([n]).throughput[0] == pytest.approx(want)
    # the re-arm's time per operation at the traced count is the trace's quiet time
    assert 10 / solvers.mva(z10 * share, [d10[1]], 10)["throughput"] == pytest.approx(quiet, rel=1e-6)
    with pytest.raises(methods.NoModel, match="no quiet time"):
        hotcarried.HotPhasesOnBoard(_trace(v, s), held, Dist(), "fault").fit(rows)
    with pytest.raises(methods.NoModel, match="no in-step phases"):
        hotcarried.HotPhasesOnBoard(trace, held, Dist(), "local").fit(rows)


@functools.lru_cache(maxsize=1)
def _warm_fault_study():
    """The warm record's fault curves fitted on 1-20 cores with their traces and lock profiles."""
    from vmscale_model.cli import hold_rows
    warm = REPO / "results" / "gem5-e7-8870-warm"
    held = [r for p in sorted((REPO / "results" / "gem5-e7-8870-profiles").glob("0*c-fault-*-warm/holds.csv"))
            for r in hold_rows(p)]
    trace = [r for p in sorted((REPO / "results" / "gem5-e7-8870-fault-hotlines").glob("0*c-fault-*/hotlines.csv"))
             for r in csv.DictReader(open(p, newline=""))]
    return study.study(fitlib.load_table(warm / "table.csv", "fault"), train_max=20, hotlines=trace, holds=held,
                       boards=lambda label: Board.make(label) if label else None)


def test_fault_with_its_locks_is_predicted_at_four_and_eight_times_the_fitted_cores():
    """fault under per-VMA locks and under mmap_lock read locking on the reference board (the warm
    record), fitted on 1-20 cores with the LRU lock's holds and hand-offs sampled at 10 and 20 and the
    lock's line traced at 20: one network of the stations, or the faults' network and then the re-arm's
    (phases), within 15% at 80 and 160 cores for each design, where the USL errs -57% to -69%; the
    phases within 5% at 40."""
    out = _warm_fault_study()
    for v in ("stock", "rwlock"):
        key = next(k for k in out if k.startswith(f"fault/{v}/") and "phases" in out[k].get("methods", {}))
        r = out[key]
        assert r["held_cores"] == [40, 80, 160]
        err, one, usl = (r["methods"][m]["error"] for m in ("phases", "hotlocks", "usl"))
        assert abs(err[0]) < 0.05, (v, err)
        best = min((err, one), key=lambda e: max(abs(x) for x in e[1:]))
        assert all(abs(e) < 0.15 for e in best[1:]), (v, err, one)
        assert all(abs(e) < abs(u) / 3 for e, u in zip(best, usl))
        assert 0.2 < r["methods"]["phases"]["params"]["rearm_share"] < 0.8
    # rcu, traced at 20 cores since session 61 (its 10-core trace had no quiet time to time the phases by):
    # within 5% at 40, and at 80 within 5% of the steady state, which its 2-round window there is 12.6% faster than
    rcu = out[next(k for k in out if k.startswith("fault/rcu/"))]
    assert rcu["methods"]["hotlocks"]["params"]["traced_at"] == 20 and "error" in rcu["methods"]["phases"]
    assert abs(rcu["methods"]["hotlocks"]["error"][0]) < 0.05
    assert all(abs(rcu["steady"]["80"]["error"][m]) < 0.05 for m in ("hotlocks", "phases"))


def test_faults_steady_state_fitted_on_two_sockets_is_predicted_at_40_and_80():
    """Since session 62 the warm record has fault at 2 and 4 rounds a thread at 1-80 cores, so the
    slope between them (the steady state, the ROI's fixed part out) is a curve of its own: fitted on
    it at 1-20, the lock stations carry every design within 10% at 40 and 80, where the USL errs
    more than four times as much, and put the peak where the curve has it."""
    out = _warm_fault_study()
    for v in ("stock", "rwlock", "rcu"):
        r = out[next(k for k in out if k.startswith(f"fault/{v}/") and k.endswith("/slope"))]
        assert r["cores"] == [1, 2, 4, 10, 20, 40, 80] and r["held_cores"] == [40, 80]
        one, usl = (r["methods"][m]["error"] for m in ("hotlocks", "usl"))
        assert all(abs(e) < 0.10 for e in one), (v, one)
        assert all(abs(e) < abs(u) / 4 for e, u in zip(one, usl)), (v, one, usl)
        assert r["methods"]["hotlocks"]["peak_cores"] == r["peak_cores"] == 80


def test_the_locked_page_caches_i_pages_lock_with_its_handoffs_carries_it_to_40():
    """pagecache-locked on the reference board, fitted on 1-20 cores with its i_pages lock profiled at
    10 and 20 (holds and the queued spinlock's hand-offs, one lookup each): the lock is its bottleneck
    (hold + hand-off at 20 cores near the cycle the curve's throughput gives), and carried to 40 the
    prediction is within 10%, where the hot lines alone (the lock word's line) over-predict by half."""
    from vmscale_model.cli import hold_rows
    record = REPO / "results" / "gem5-e7-8870-share-cache-reclaim-warm"
    profiles = sorted((REPO / "results" / "gem5-e7-8870-profiles").glob("0*c-pagecache-locked-warm/holds.csv"))
    held = [r for p in profiles for r in hold_rows(p)]
    trace = list(csv.DictReader(open(record / "020c-pagecache-pagecache-locked-hotlines" / "hotlines.csv", newline="")))
    out = study.study(fitlib.load_table(record / "table.csv", "pagecache"), train_max=20, hotlines=trace, holds=held,
                      boards=lambda label: Board.make(label) if label else None)
    r = out[next(k for k in out if k.startswith("pagecache/pagecache-locked/"))]
    lock = r["methods"]["hotlocks"]["params"]["locks"][0]
    assert lock["name"] == "i_pages" and lock["cores"] == 20 and 0.9 < lock["visits"] < 1.1
    assert lock["handoff"] > lock["service"] > 0 and lock["handoff_per_transfer"] > 0
    assert r["held_cores"][0] == 40
    err = r["methods"]["hotlocks"]["error"]
    assert abs(err[0]) < 0.10 and r["methods"]["hotboard"]["error"][0] > 0.5, r["methods"]["hotlocks"]


def test_linuxs_local_is_predicted_at_four_and_eight_times_on_its_steady_state():
    """local under Linux 6.12 on the reference board (the warm record), fitted on 1-20 cores with
    mmap_lock's cycle profiled at 2-20 and its lines traced at 10: on the steady state (the slope
    between ROI sizes: 10 and 40 rounds to 80 cores, 10 and 20 at 160) within 10% at 40 and 80 and
    15% at 160, where the USL errs -30% to -66%.  On one socket the lock's hand-off does not grow
    with its waiters (the profiles at 4 and 10 cores, 16 rounds each), so its station is not
    load-dependent beyond the first waiter's hand-off.  The peak (2 cores) is put within one step."""
    from vmscale_model.cli import hold_rows
    warm = REPO / "results" / "gem5-e7-8870-warm"
    held = [r for p in sorted((REPO / "results" / "gem5-e7-8870-profiles").glob("0*c-local-stock-warm/holds.csv"))
            for r in hold_rows(p)]
    trace = list(csv.DictReader(open(REPO / "results" / "gem5-e7-8870-local-hotlines" / "010c-local-stock" /
                                     "hotlines.csv", newline="")))
    out = study.study(fitlib.load_table(warm / "table.csv", "local", "stock"), train_max=20, hotlines=trace,
                      holds=held, boards=lambda label: Board.make(label) if label else None)
    r = out[next(k for k in out if k.endswith("/slope"))]
    assert r["held_cores"] == [40, 80, 160]
    one, usl = (r["methods"][m]["error"] for m in ("hotlocks", "usl"))
    assert abs(one[0]) < 0.10 and abs(one[1]) < 0.10 and abs(one[2]) < 0.15, one
    assert all(abs(e) < abs(u) / 3 for e, u in zip(one, usl)), (one, usl)
    lock = next(k for k in r["methods"]["hotlocks"]["params"]["locks"] if k["name"] == "mmap_lock")
    assert lock["waiter_counts"] == [4, 10] and 0 <= lock["per_waiter"] < 500     # 2 cores: not busy throughout
    # the peak (2 cores: the lock bounds it from there) within one power-of-two step on every curve: the
    # carried method's curve begins at 20, so it says the peak is not beyond the measured counts
    for k in out:
        if "methods" in out[k]:
            measured, said = out[k]["peak_cores"], out[k]["methods"]["hotlocks"]["peak_cores"]
            assert measured == 2 and abs(math.log2(said / measured)) <= 1, (k, said)


def test_a_curve_with_no_point_at_the_fitted_counts_is_refused_with_the_reason():
    # e.g. `vmscale model locks --ops-per-thread 20`, a ROI size measured at 160 cores only
    with pytest.raises(methods.NoModel, match="no point of the curve at the fitted core counts"):
        hotcarried.Carried([], [{"cores": "10"}], None, None)
