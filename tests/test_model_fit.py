"""The numbers `vmscale model fit` prints, each checked against a value worked out another way:
by hand, from the defining equation, or by scalar MVA one point at a time (fit.py vectorises)."""

import dataclasses
import math

import numpy as np
import pytest

from vmscale_model import fit, solvers

CORES = np.array([1, 2, 4, 8, 16])


def _mva_points(think, service, cores=CORES, per_hop=0.0, hops=lambda n: 1.0):
    """Throughput at each core count by scalar exact MVA, one population at a time."""
    return np.array([solvers.mva(think, [service + per_hop * hops(n)], int(n))["throughput"] for n in cores])


def _mesh_hops(n):
    k = math.sqrt(n)   # k x k mesh, mean Manhattan distance 2(k^2 - 1)/(3k), at least one hop
    return max(1.0, 2 * (n - 1) / (3 * k))


def test_prepare_averages_repetitions_per_core_count():
    """throughput = cores / cycles_per_op, the mean over repetitions, their population spread."""
    rows = [{"cores": "2.0", "cycles_per_op": "50"},       # given first, sorted after
            {"cores": "1", "cycles_per_op": "100"}, {"cores": "1", "cycles_per_op": "300"}]
    d = fit.prepare(rows)
    assert d.cores.tolist() == [1, 2] and d.unit == "ops/cycle"
    assert d.throughput[0] == pytest.approx((1 / 100 + 1 / 300) / 2) and d.throughput[1] == pytest.approx(2 / 50)
    assert d.spread[0] == pytest.approx((1 / 100 - 1 / 300) / 2) and d.spread[1] == 0
    t = fit.prepare([{"cores": 3, "throughput": 6.0}, {"cores": 3, "throughput": 2.0}])
    assert t.unit == "ops/time" and t.throughput.tolist() == [4.0] and t.spread.tolist() == [2.0]


@pytest.mark.parametrize("value", ["0", "-5", "inf", "nan"])
def test_prepare_refuses_a_cost_that_is_not_positive_and_finite(value):
    with pytest.raises(fit.FitError, match="cores must be >= 1 and cycles_per_op > 0"):
        fit.prepare([{"cores": 1, "cycles_per_op": value}])
    with pytest.raises(fit.FitError, match="cores must be >= 1"):
        fit.prepare([{"cores": 0, "cycles_per_op": 10}])


def test_prepare_refuses_two_roi_sizes_at_one_core_count_but_not_one_size_per_count():
    one = [{"cores": 2, "ops": 200, "cycles_per_op": 5}, {"cores": 2, "ops": 200, "cycles_per_op": 6},
           {"cores": 4, "ops": 800, "cycles_per_op": 7}]   # 100 per thread at 2, 200 at 4: one per count
    assert fit.prepare(one).cores.tolist() == [2, 4]
    with pytest.raises(fit.FitError, match="several ROI sizes"):
        fit.prepare(one + [{"cores": 4, "ops": 400, "cycles_per_op": 7}])


def test_an_exact_curve_is_fitted_exactly_and_summarised():
    x = _mva_points(300.0, 10.0)
    f = fit.fit(fit.Data(CORES, x, np.zeros_like(x)))
    s = f.summary()
    assert s["law"] == "crossbar" and s["points"] == 5 and f.names == ["think", "service"]
    assert s["think"] == pytest.approx(300.0, rel=1e-4) and s["service"] == pytest.approx(10.0, rel=1e-4)
    assert s["per_hop"] == 0 and "per_hop_stderr" not in s and s["hop_fraction_assumed"] == 0.5
    assert s["ceiling"] == pytest.approx(1 / 10.0, rel=1e-4)    # 1/S on one hop
    assert s["r2"] == pytest.approx(1.0, abs=1e-9) and s["log_rms"] < 1e-6
    assert 0 <= s["think_stderr"] < 1e-3 and 0 <= s["service_stderr"] < 1e-4


def test_a_mesh_fit_summarises_its_ceiling_at_the_largest_count_and_assumes_no_fraction():
    cores = np.array([1, 2, 4, 8, 16, 32, 64])
    x = _mva_points(400.0, 6.0, cores, per_hop=2.0, hops=_mesh_hops)
    s = fit.fit(fit.Data(cores, x, np.zeros_like(x)), "mesh").summary()
    assert "hop_fraction_assumed" not in s and "per_hop_stderr" in s
    assert s["ceiling"] == pytest.approx(1 / (6.0 + 2.0 * 2 * 63 / 24), rel=1e-2)   # 5.25 hops at 64 cores
    # a fixed per-hop cost is not a parameter: the fit has two, and says the value it was given
    g = fit.fit(fit.Data(cores, x, np.zeros_like(x)), "mesh", per_hop=2.0)
    assert g.names == ["think", "service"] and g.params()["per_hop"] == 2.0
    assert g.params()["service"] == pytest.approx(6.0, rel=1e-3)


def test_r2_and_the_log_residuals_of_a_curve_the_model_cannot_follow():
    """One point a quarter too fast: r2 and the RMS of log residuals, from the residuals by hand."""
    x = _mva_points(300.0, 10.0)
    x[-1] *= 1.25
    f = fit.fit(fit.Data(CORES, x, np.zeros_like(x)))
    pred = f.predict(CORES)
    r2 = 1 - ((x - pred) ** 2).sum() / ((x - x.mean()) ** 2).sum()
    rms = math.sqrt(sum((math.log(p) - math.log(m)) ** 2 for p, m in zip(pred, x)) / len(x))
    assert f.r2 == pytest.approx(r2, rel=1e-6) and 0.9 < f.r2 < 1
    assert f.residual_rms == pytest.approx(rms, rel=1e-4) and f.residual_rms > 1e-3


def test_the_covariance_is_the_gauss_newton_one_from_a_numerical_jacobian():
    """cov = (J'J)^-1 s^2, s^2 = residual sum / (points - parameters); stderr its diagonal's root."""
    x = _mva_points(300.0, 10.0)
    x *= np.array([1.0, 1.03, 0.98, 1.02, 0.99])
    f = fit.fit(fit.Data(CORES, x, np.zeros_like(x)))
    v = f.values

    def res(p):
        return np.array([math.log(solvers.mva(p[0], [p[1]], int(n))["throughput"]) for n in CORES]) - np.log(x)
    jac = np.empty((len(CORES), 2))
    for i in range(2):
        h = v[i] * 1e-6
        up, down = v.copy(), v.copy()
        up[i] += h
        down[i] -= h
        jac[:, i] = (res(up) - res(down)) / (2 * h)
    r = res(v)
    cov = np.linalg.inv(jac.T @ jac) * (r @ r) / (len(CORES) - 2)
    assert f.cov == pytest.approx(cov, rel=2e-2)
    se = f.stderr()
    assert se["think"] == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-2)
    assert se["service"] == pytest.approx(math.sqrt(cov[1, 1]), rel=1e-2)


def test_the_band_is_the_percentiles_of_predictions_over_drawn_parameters():
    """Redrawn here with the same seed and solved by scalar MVA per draw and point."""
    x = _mva_points(300.0, 10.0)
    x *= np.array([1.0, 1.03, 0.98, 1.02, 0.99])
    f = fit.fit(fit.Data(CORES, x, np.zeros_like(x)), hop_fraction=0.25)
    grid = [32, 64]
    draws = np.clip(np.random.default_rng(1).multivariate_normal(f.values, f.cov, size=200), 1e-12, None)
    for law, hops in (("crossbar", lambda n: 1.0), ("mesh", _mesh_hops)):
        curves = np.array([[solvers.mva(z, [s * 0.75 + s * 0.25 * hops(n)] if law == "mesh" else [s], n)
                            ["throughput"] for n in grid] for z, s in draws])
        lo, hi = f.band(grid, law if law != "crossbar" else None)
        assert lo == pytest.approx(np.percentile(curves, 5, axis=0), rel=1e-9)
        assert hi == pytest.approx(np.percentile(curves, 95, axis=0), rel=1e-9)
        assert np.all(lo < f.predict(grid, law)) and np.all(f.predict(grid, law) < hi)
    lo, hi = f.band(grid, q=(50, 50))
    assert lo.tolist() == hi.tolist()
    # no covariance (a singular Jacobian leaves it nan): the band is the prediction itself
    g = dataclasses.replace(f, cov=np.full((2, 2), np.nan))
    lo, hi = g.band([64])
    assert lo[0] == hi[0] == g.predict([64])[0]


def test_holdout_reports_signed_relative_errors_of_the_points_it_left_out():
    x = _mva_points(300.0, 10.0)
    x[-1] *= 1.25     # the fit on 1-8 cores predicts the true 16-core point: 1/1.25 - 1 below it
    h = fit.holdout(fit.Data(CORES, x, np.zeros_like(x)), 1)
    assert h["cores"] == [16] and h["measured"] == [x[-1]]
    assert h["relative_error"][0] == pytest.approx(-0.2, abs=1e-4)
    assert h["max_abs_relative_error"] == pytest.approx(0.2, abs=1e-4)
    assert h["predicted"][0] == pytest.approx(x[-1] / 1.25, rel=1e-4)
    for k in (0, 5):
        with pytest.raises(fit.FitError, match=f"hold-out of {k} points needs more than {k} core counts"):
            fit.holdout(fit.Data(CORES, x, np.zeros_like(x)), k)


def test_the_usl_fit_recovers_the_laws_parameters():
    cores = np.array([1, 2, 4, 8, 16, 32, 64], dtype=float)
    lam, sigma, kappa = 0.01, 0.05, 0.001
    x = lam * cores / (1 + sigma * (cores - 1) + kappa * cores * (cores - 1))
    u = fit.fit_usl(fit.Data(cores.astype(int), x, np.zeros_like(x)))
    assert u["lambda"] == pytest.approx(lam, rel=1e-4) and u["sigma"] == pytest.approx(sigma, rel=1e-3)
    assert u["kappa"] == pytest.approx(kappa, rel=1e-3) and u["log_rms"] < 1e-6
    with pytest.raises(fit.FitError, match="USL needs at least 4 core counts"):
        fit.fit_usl(fit.Data(cores[:3].astype(int), x[:3], np.zeros(3)))


def test_fit_table_summary_says_what_it_could_and_could_not_judge():
    rows = [{"cores": n, "throughput": t} for n, t in zip(CORES, _mva_points(300.0, 10.0))]
    tf = fit.fit_table(rows, workload="w", variant="v")
    s = tf.summary
    assert s["table"] is None and (s["workload"], s["variant"], s["backend"]) == ("w", "v", None)
    assert s["measured"]["cores"] == CORES.tolist() and s["holdout"]["cores"] == [16]
    assert "usl" in s and set(s["predictions"]) == {"crossbar", "mesh", "ring", "tree"}
    xbar = s["predictions"]["crossbar"]
    assert [p["cores"] for p in xbar] == [64, 256, 1024, 4096]      # the grid past the data only
    assert xbar[-1]["throughput"] == pytest.approx(0.1, rel=1e-3)    # 1/S
    assert all(p["low"] <= p["throughput"] <= p["high"] for p in xbar)
    ring = s["predictions"]["ring"][0]      # 64 cores: 16 hops, half of S per hop
    assert ring["throughput"] == pytest.approx(solvers.mva(300.0, [5.0 + 5.0 * 16], 64)["throughput"], rel=1e-3)
    # three points: a fit, but nothing left to hold out and too few for the USL
    few = fit.fit_table(rows[:3], holdout_points=1).summary
    assert "cannot fit 2 parameters" in few["holdout"]["skipped"] and "usl" not in few
    assert [p["cores"] for p in few["predictions"]["tree"]] == [64, 256, 1024, 4096]
    assert "holdout" not in fit.fit_table(rows, holdout_points=0).summary
    assert [p["cores"] for p in fit.fit_table(rows + [{"cores": 64, "throughput": 0.09}]).summary
            ["predictions"]["mesh"]] == [256, 1024, 4096]


def test_load_table_names_a_missing_or_empty_table(tmp_path):
    with pytest.raises(fit.FitError, match=r"nothere\.csv: no such file$"):
        fit.load_table(tmp_path / "nothere.csv")
    (tmp_path / "empty.csv").write_text("workload,cores,cycles_per_op\n")
    with pytest.raises(fit.FitError, match=r"empty\.csv: no rows$"):
        fit.load_table(tmp_path / "empty.csv")


def test_the_unit_goes_with_the_data_into_a_hold_out():
    x = _mva_points(300.0, 10.0)
    assert fit.Data(CORES, x, np.zeros_like(x)).unit == "ops/cycle"   # what the workloads measure
    h = fit.holdout(fit.Data(CORES, x, np.zeros_like(x), unit="ops/s"), 2)
    assert h["fit"].data.unit == "ops/s" and h["fit"].data.cores.tolist() == [1, 2, 4]


@pytest.mark.parametrize("fraction, ok", [(-0.01, False), (0.0, True), (1.0, True), (1.01, False)])
def test_the_hop_fraction_is_a_share_of_the_service_time(fraction, ok):
    x = _mva_points(300.0, 10.0)
    data = fit.Data(CORES, x, np.zeros_like(x))
    if ok:
        assert fit.fit(data, hop_fraction=fraction).params("ring")["per_hop"] == pytest.approx(10.0 * fraction,
                                                                                              rel=1e-3, abs=1e-9)
    else:
        with pytest.raises(fit.FitError, match=rf"^hop fraction {fraction} must be within \[0, 1\]$"):
            fit.fit(data, hop_fraction=fraction)


def test_what_a_fit_refuses_is_said_in_full():
    x = _mva_points(300.0, 10.0)
    with pytest.raises(fit.FitError, match=r"^unknown interconnect law 'torus': use crossbar, mesh, ring, tree$"):
        fit.fit(fit.Data(CORES, x, np.zeros_like(x)), "torus")
    with pytest.raises(fit.FitError, match=r"^3 distinct core counts cannot fit 3 parameters with any check: "
                                           r"need at least 4$"):
        fit.fit(fit.Data(CORES[:3], x[:3], np.zeros(3)), "mesh")
    with pytest.raises(fit.FitError, match=r"^hold-out of 5 points needs more than 5 core counts \(have 5\)$"):
        fit.holdout(fit.Data(CORES, x, np.zeros_like(x)), 5)


def test_one_spare_point_still_gives_a_covariance_and_a_flat_curve_no_r2():
    x = _mva_points(300.0, 10.0)[:3] * np.array([1.0, 1.02, 0.99])
    f = fit.fit(fit.Data(CORES[:3], x, np.zeros(3)))   # 3 points, 2 parameters: one degree of freedom
    assert np.all(np.isfinite(f.cov)) and all(v > 0 for v in f.stderr().values())
    flat = fit.fit(fit.Data(CORES, np.full(5, 0.05), np.zeros(5)))   # nothing to explain: r2 undefined
    assert math.isnan(flat.r2)


def test_a_hold_out_trains_on_the_smaller_counts_with_their_spread():
    x = _mva_points(300.0, 10.0)
    h = fit.holdout(fit.Data(CORES, x, np.array([0.1, 0.2, 0.3, 0.4, 0.5])), 2)
    assert h["fit"].data.spread.tolist() == [0.1, 0.2, 0.3]


@pytest.mark.parametrize("rows, message", [
    ([], r"^no rows to fit$"),
    ([{"threads": 1, "throughput": 1.0}], r"^missing column 'cores'$"),
    ([{"cores": 1, "latency": 1.0}], r"^missing column: need 'cycles_per_op' or 'throughput'$"),
    ([{"cores": "x", "cycles_per_op": "2"}], r"^row with cores='x' cycles_per_op='2': not numbers$"),
    ([{"cores": 0, "cycles_per_op": 2}], r"^row with cores=0 cycles_per_op=2.0: cores must be >= 1 and "
                                         r"cycles_per_op > 0$"),
    ([{"cores": 1, "cycles_per_op": 2}, {"cores": 2, "cycles_per_op": 2, "gem5.board": "l2_assoc=64"}],
     r"^the rows come from 2 gem5 boards \('', 'l2_assoc=64'\): one curve is one board: give --board, or "
     r"`vmscale model study` fits each apart$"),
    ([{"cores": 2, "ops": 2, "cycles_per_op": 2}, {"cores": 2, "ops": 4, "cycles_per_op": 2}],
     r"^the rows hold several ROI sizes at one core count: give --ops-per-thread, or `vmscale model study` "
     r"judges each size and their slope$"),
])
def test_prepare_says_what_is_wrong_in_full(rows, message):
    with pytest.raises(fit.FitError, match=message):
        fit.prepare(rows)


def test_a_filter_that_keeps_nothing_names_every_filter_it_was_given(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("workload,kernel_variant,backend,cores,ops,cycles_per_op\nfault,stock,gem5,1,10,5\n")
    with pytest.raises(fit.FitError, match=r"t\.csv: no successful rows match workload=local variant=None "
                                           r"backend=None$"):
        fit.load_table(path, workload="local")
    with pytest.raises(fit.FitError, match=r"t\.csv: no successful rows match workload=None variant=None "
                                           r"backend=None board='' ops_per_thread=3$"):
        fit.load_table(path, board="", ops_per_thread=3)


def test_the_usl_is_recovered_from_a_curve_that_starts_above_one_core_and_from_four_counts():
    """From 2 cores the first point is not lambda itself: the scale the fit starts from must be undone."""
    cores = np.array([2, 4, 8, 16], dtype=float)
    lam, sigma, kappa = 0.01, 0.05, 0.001
    x = lam * cores / (1 + sigma * (cores - 1) + kappa * cores * (cores - 1))
    u = fit.fit_usl(fit.Data(cores.astype(int), x, np.zeros_like(x)))
    assert u["lambda"] == pytest.approx(lam, rel=1e-3) and u["sigma"] == pytest.approx(sigma, rel=1e-2)
    assert u["kappa"] == pytest.approx(kappa, rel=1e-2)
    with pytest.raises(fit.FitError, match=r"^USL needs at least 4 core counts$"):
        fit.fit_usl(fit.Data(cores[:3].astype(int), x[:3], np.zeros(3)))


def test_fit_table_carries_the_fit_the_usl_and_the_measured_points_of_four_counts():
    x = _mva_points(300.0, 10.0)[:4]
    rows = [{"cores": n, "throughput": t} for n, t in zip(CORES[:4], x)]
    tf = fit.fit_table(rows)
    s = tf.summary
    assert s["fit"]["think"] == pytest.approx(300.0, rel=1e-3) and s["measured"]["throughput"] == x.tolist()
    assert s["usl"] == fit.fit_usl(tf.data) and s["usl"]["lambda"] > 0     # four counts are enough
    assert "fit" not in s["holdout"] and tf.hold["fit"].data.cores.tolist() == [1, 2, 4]
    assert fit.fit_table(rows, holdout_points=0).hold is None
    # a mesh with a given per-hop cost of 0 assumes no hop fraction: it was told the split
    mesh = fit.fit(fit.Data(CORES, _mva_points(300.0, 10.0), np.zeros(5)), "mesh", per_hop=0)
    assert "hop_fraction_assumed" not in mesh.summary()
