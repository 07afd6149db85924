"""A workload's rounds as phases its threads run in step (vmscale_model.phases): which lock work is
the re-arm's, the re-arm's think time from a traced quiet time, and two networks in series; by hand."""

import pytest

from vmscale_model import phases, solvers


def _held(site, v, n=10):
    return {"workload": "fault", "kernel_variant": "rwlock", "cores": str(n), "site": site, "hold_cycles": "1000",
            "holds_per_op": str(v)}


def test_faults_re_arm_frees_its_folios_and_drains_what_the_faults_batches_of_31_left():
    rows = [_held("__page_cache_release.part.0", 0.05), _held("folio_batch_move_lru", 0.045),
            _held("hrtimer_run_queues", 0.01)]
    out = phases.split_holds("fault", rows, {"pages": "64"})
    got = {r["site"]: float(r["holds_per_op"]) for r in out}
    assert got == {"rearm:__page_cache_release.part.0": pytest.approx(0.05),
                   "rearm:folio_batch_move_lru": pytest.approx(0.045 * 2 / 64),      # 64 = 2 x 31 + 2
                   "folio_batch_move_lru": pytest.approx(0.045 * 62 / 64), "hrtimer_run_queues": 0.01}
    # 62 pages a round: two full batches, nothing left for the drain
    assert {r["site"] for r in phases.split_holds("fault", rows, {"pages": "62"})} == {
        "rearm:__page_cache_release.part.0", "folio_batch_move_lru", "hrtimer_run_queues"}
    with pytest.raises(ValueError, match="no in-step phases known for 'local'"):
        phases.split_holds("local", rows, {})


def test_the_re_arms_think_time_makes_its_network_take_the_traced_quiet_time():
    demands, n = [300.0, 50.0], 20
    z = phases.rearm_think(9_000.0, demands, n)
    assert n / solvers.mva(z, demands, n)["throughput"] == pytest.approx(9_000.0, rel=1e-6)
    assert 0 < z < 9_000 - sum(demands)                  # the queue at the 300-cycle station holds the rest
    # a quiet time the stations' own queue already exceeds: no think time; none traced: none
    assert phases.rearm_think(1_000.0, demands, n) == 0.0 and phases.rearm_think(float("nan"), demands, n) == 0.0


def test_two_networks_in_series_add_their_bottlenecks():
    z_f, d_f, z_r, d_r = 40_000.0, [1_000.0, 200.0], 10_000.0, [600.0]
    # one thread: the whole round, once
    assert phases.throughput(z_f, d_f, None, z_r, d_r, 1) == pytest.approx(1 / (z_f + 1_200 + z_r + 600))
    # a re-arm of think time alone is a delay after the faults
    x_f = solvers.mva(z_f, d_f, 30)["throughput"]
    assert phases.throughput(z_f, d_f, None, z_r, [], 30) == pytest.approx(30 / (30 / x_f + z_r))
    assert phases.throughput(z_f, d_f, None, 0.0, [], 30) == pytest.approx(x_f)
    # many threads: each phase runs at its bottleneck, and a round takes both (one network of the same
    # stations would run at the larger alone, 1 / 1,000)
    x = phases.throughput(z_f, d_f, None, z_r, d_r, 2_000)
    assert x == pytest.approx(1 / 1_600, rel=0.03)
    assert solvers.mva(z_f + z_r, d_f + d_r, 2_000)["throughput"] == pytest.approx(1 / 1_000, rel=0.03)


def test_simpy_threads_in_rounds_from_one_barrier_stay_near_in_step_for_the_rois_two_rounds():
    """The phases model assumes the threads stay in step, as gem5's do (the traces' time lines).  SimPy's
    threads in rounds (des.simulate_rounds: a common start, as the harness's barrier after the warm-up
    gives, then no barrier; deterministic service) match it on one and ten cores, stay within 7% of it
    through the ROI's two rounds at 80 and 160 cores, and drift out of step over more rounds: faster
    than in step, slower than one network where each thread's re-arm mixes with the others' faults."""
    from vmscale_model import des
    from vmscale_model.network import Model, Station
    z_f, d_f, z_r, d_r = 40_000.0, [1_000.0, 300.0], 12_000.0, [600.0]
    faults = Model(z_f, tuple(Station(f"f{i}", d) for i, d in enumerate(d_f)), dist="det")
    rearm = Model(z_r, tuple(Station(f"r{i}", d) for i, d in enumerate(d_r)), dist="det")

    def in_step(n):
        return phases.throughput(z_f, d_f, None, z_r, d_r, n)
    assert des.simulate_rounds(faults, rearm, 1, 64, 2) == pytest.approx(in_step(1))
    assert des.simulate_rounds(faults, rearm, 10, 64, 2) == pytest.approx(in_step(10), rel=0.02)
    for n in (80, 160):
        two, eight = (des.simulate_rounds(faults, rearm, n, 64, r) for r in (2, 8))
        assert two == pytest.approx(in_step(n), rel=0.07)
        assert in_step(n) < two < eight < solvers.mva(z_f + z_r, d_f + d_r, n)["throughput"]
    with pytest.raises(ValueError, match="plain stations"):
        des.simulate_rounds(Model(1.0, (Station("l", 1.0, hold=2.0),)), rearm, 2, 1, 1)
