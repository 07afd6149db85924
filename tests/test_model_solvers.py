"""The analytic solvers against values worked out by hand from their defining equations."""

import math

import numpy as np
import pytest

from vmscale_model import solvers


def test_exact_mva_of_one_queue_step_by_step():
    # Z = 10, D = 2.  n=1: R = 2, X = 1/12, Q = 1/6.  n=2: R = 2(1 + 1/6) = 7/3,
    # X = 2/(10 + 7/3) = 6/37, Q = X R = 14/37, U = X D = 12/37.
    one = solvers.mva(10.0, [2.0], 1)
    assert one["throughput"] == pytest.approx(1 / 12) and one["queue"] == pytest.approx([1 / 6])
    two = solvers.mva(10.0, [2.0], 2)
    assert two["throughput"] == pytest.approx(6 / 37)
    assert two["residence"] == pytest.approx([7 / 3]) and two["response"] == pytest.approx(7 / 3)
    assert two["queue"] == pytest.approx([14 / 37]) and two["utilisation"] == pytest.approx([12 / 37])


def test_exact_mva_of_two_queues():
    # Z = 4, D = (1, 3).  n=1: R = (1, 3), X = 1/8, Q = (1/8, 3/8).  n=2: R = (9/8, 33/8),
    # sum 21/4, X = 2/(4 + 21/4) = 8/37, Q = (9/37, 33/37), U = (8/37, 24/37).
    r = solvers.mva(4.0, [1.0, 3.0], 2)
    assert r["throughput"] == pytest.approx(8 / 37)
    assert r["residence"] == pytest.approx([9 / 8, 33 / 8]) and r["response"] == pytest.approx(21 / 4)
    assert r["queue"] == pytest.approx([9 / 37, 33 / 37])
    assert r["utilisation"] == pytest.approx([8 / 37, 24 / 37])


def test_vectorised_mva_matches_the_scalar_recursion_per_sample_and_target():
    """Each sample has its own think time; each target core count its own demand (as an
    interconnect law gives), fixed through that target's whole recursion."""
    think = np.array([10.0, 4.0])
    base = np.array([2.0, 3.0])

    def demand_at(targets):
        return base[:, None] + 0.5 * (np.asarray(targets)[None, :] - 1)

    targets = [3, 1, 2]                       # unsorted on purpose
    got = solvers.mva_curve(think, demand_at, targets)
    assert got.shape == (2, 3)
    for i in range(2):
        for j, n in enumerate(targets):
            d = base[i] + 0.5 * (n - 1)
            assert got[i, j] == pytest.approx(solvers.mva(think[i], [d], n)["throughput"])
    assert got[0, 1] == pytest.approx(1 / 12) and got[1, 1] == pytest.approx(1 / 7)


def test_vectorised_mva_takes_one_sample_as_a_flat_demand():
    got = solvers.mva_curve(10.0, lambda t: np.full(len(t), 2.0), [1, 2])
    assert got.shape == (1, 2)
    assert got[0] == pytest.approx([1 / 12, 6 / 37])


def test_usl_by_hand():
    # X(n) = lam n / (1 + sigma (n - 1) + kappa n (n - 1)); lam 2, sigma 0.1, kappa 0.01:
    # n=1: 2;  n=4: 8 / (1 + 0.3 + 0.12) = 8 / 1.42;  n=10: 20 / (1 + 0.9 + 0.9) = 20 / 2.8
    got = solvers.usl_throughput([1, 4, 10], 2.0, 0.1, 0.01)
    assert got == pytest.approx([2.0, 8 / 1.42, 20 / 2.8])
    assert solvers.usl_throughput(7, 3.0, 0.0, 0.0) == pytest.approx(21.0)   # linear


def test_amdahl_by_hand():
    # v = 0.1 (1/v = 10), S = 2: one op takes 12, of which k = 2/12 is serial.
    # X(n) = (1/12) / (k + (1 - k)/n): n=1: 1/12;  n=5: (1/12) / (1/6 + 1/6) = 1/4
    got = solvers.amdahl_throughput([1, 5], v=0.1, s=2.0)
    assert got == pytest.approx([1 / 12, 1 / 4])


def test_piggins_closed_form_by_hand():
    # Eq. 3.9 with v = 0.1, S = 2 (1/(vS) = 5): a = N - 5 - 1.
    # N=1: a = -5, T = ((-5 + sqrt(29))/2 + 1) * 2 = sqrt(29) - 3,  X = 1 / (T + 10)
    # N=8: a = 2,  T = ((2 + sqrt(36))/2 + 1) * 2 = 10,             X = 8 / (10 + 10) = 0.4
    got = solvers.piggin_throughput([1, 8], v=0.1, s=2.0)
    assert got == pytest.approx([1 / (math.sqrt(29) - 3 + 10), 0.4])


def test_the_ceiling_is_one_over_s():
    assert solvers.ceiling(4.0) == 0.25 and solvers.ceiling(0.5) == 2.0
    assert solvers.ceiling(0.0) == math.inf and solvers.ceiling(-1.0) == math.inf


def test_an_empty_network_does_nothing():
    r = solvers.mva(10.0, [2.0, 1.0], 0)
    assert r["throughput"] == 0.0 and r["response"] == 0.0
    assert r["residence"] == [0.0, 0.0] and r["queue"] == [0.0, 0.0]


def test_load_dependent_mva_and_the_simpy_station_agree_within_two_percent():
    """A line whose hand-off grows with the cores waiting (the directory re-examines parked
    requests on every free): exact load-dependent MVA against the SimPy station whose rate
    follows the number present, across the peak and into the retrograde region."""
    from vmscale_model import des
    from vmscale_model.network import Model, Station
    m = Model(think=200.0, stations=(Station("line", 20.0, per_waiter=4.0),)).validate()
    curve = {n: solvers.mva_throughput(m, n) for n in (1, 2, 4, 8, 16, 32)}
    for n in (2, 8, 32):
        sim = des.simulate(m, n, ops=30_000, seed=3).throughput
        assert abs(sim - curve[n]) / curve[n] < 0.02, (n, sim, curve[n])
    # unlike a fixed-service line, whose throughput only flattens at 1/S, this one turns down
    peak = max(curve, key=curve.get)
    assert 4 <= peak <= 16 and curve[32] < 0.6 * curve[peak]


def test_load_dependent_mva_without_growth_is_the_plain_recursion():
    plain = solvers.mva(100.0, [10.0, 3.0], 12)
    ld = solvers.mva(100.0, [10.0, 3.0], 12, growth=[1e-12, 0.0])
    assert ld["throughput"] == pytest.approx(plain["throughput"], rel=1e-6)
    assert ld["queue"][0] == pytest.approx(plain["queue"][0], rel=1e-5)
    with pytest.raises(ValueError, match="one value per station"):
        solvers.mva(100.0, [10.0], 4, growth=[1.0, 2.0])


def test_a_sleeping_locks_handoff_in_mva_and_the_simpy_station_agree_within_two_percent():
    """A lock whose next holder sleeps: with a waiter present each service also takes the
    waiter's wake-up, so throughput falls from the 2-core peak to 1 / (hold + hand-off)."""
    from vmscale_model import des
    from vmscale_model.network import Model, Station
    m = Model(think=300.0, stations=(Station("lock", 50.0, handoff=100.0),)).validate()
    curve = {n: solvers.mva_throughput(m, n) for n in (1, 2, 3, 4, 8, 16, 32)}
    assert curve[1] == pytest.approx(1 / 350.0)                # alone: no waiter, no wake-up
    assert curve[32] == pytest.approx(1 / 150.0, rel=1e-3)     # always a waiter: hold + hand-off
    peak = max(curve, key=curve.get)
    assert peak <= 8 and curve[peak] > 1.05 * curve[32]       # the retrograde a fixed service has not
    for n in (2, 4, 16):
        sim = des.simulate(m, n, ops=30_000, seed=5).throughput
        assert abs(sim - curve[n]) / curve[n] < 0.02, (n, sim, curve[n])
    with pytest.raises(ValueError, match="handoff: one value per station"):
        solvers.mva(100.0, [10.0], 4, handoff=[1.0, 2.0])
    with pytest.raises(ValueError, match="times must be >= 0"):
        Model(think=1.0, stations=(Station("lock", 5.0, handoff=-1.0),)).validate()
