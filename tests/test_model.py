"""The queueing model: DES vs MVA, the 1/S bound, fitting, hold-out, bad input."""

import csv
import json
import math

import numpy as np
import pytest

from vmscale_model import des, fit, network, solvers


def test_des_agrees_with_exact_mva_where_mva_is_exact():
    """Product form (exponential service, FCFS lines): within 4% at every N."""
    model = network.Model(think=20.0, stations=(network.Station("mmap_lock", 1.0),
                                                network.Station("vma", 0.5),
                                                network.Station("allocator", 0.25)))
    assert model.product_form()
    for n in (1, 4, 16, 64):
        sim = des.simulate(model, n, ops=30_000, seed=7).throughput
        exact = solvers.mva_throughput(model, n)
        assert abs(sim - exact) / exact < 0.04, (n, sim, exact)


def test_throughput_is_bounded_by_one_over_s():
    s = 2.0
    det = network.single_line(think=10.0, service=s, dist="det")
    for n in (8, 64, 256):
        assert des.simulate(det, n, ops=5_000).throughput <= 1 / s * (1 + 1e-9)
    assert des.simulate(det, 256, ops=5_000).throughput == pytest.approx(1 / s, rel=1e-3)
    exp = network.single_line(think=10.0, service=s)
    assert solvers.mva_throughput(exp, 4096) == pytest.approx(1 / s, rel=1e-6)
    big = np.array([1e3, 1e5, 1e7])
    assert np.all(solvers.piggin_throughput(big, v=0.1, s=s) < 1 / s)
    assert solvers.piggin_throughput(1e7, v=0.1, s=s) == pytest.approx(1 / s, rel=1e-4)
    assert solvers.amdahl_throughput(1e9, v=0.1, s=s) == pytest.approx(1 / s, rel=1e-4)


def test_des_is_reproducible_for_a_seed():
    m = network.single_line(5.0, 1.0)
    a, b = des.simulate(m, 16, ops=2000, seed=3), des.simulate(m, 16, ops=2000, seed=3)
    c = des.simulate(m, 16, ops=2000, seed=4)
    assert a == b and a.throughput != c.throughput
    assert 0 < a.utilisation["line"] <= 1 and a.queue["line"] > 0


def test_lock_holds_its_line_across_inner_visits():
    """A lock whose critical section visits another line serialises both: X <= 1/(S_lock+hold+S_inner)."""
    inner = network.Station("page_alloc", 0.5)
    lock = network.Station("mmap_lock", 1.0, hold=1.0, inner=(inner,), kind="lock")
    m = network.Model(think=1.0, stations=(lock,), dist="det")
    assert not m.product_form()
    assert des.simulate(m, 32, ops=3000).throughput == pytest.approx(1 / 2.5, rel=1e-2)


def test_interconnect_laws_grow_as_stated():
    assert network.hops("crossbar", 4096) == 1
    assert network.hops("mesh", 64) == pytest.approx(2 * 63 / 24)
    assert network.hops("ring", 64) == 16
    assert network.hops("tree", 64) == 6
    with pytest.raises(ValueError):
        network.hops("torus", 4)
    cost = network.Cost(10.0, 2.0, "ring")
    assert cost.at(64) == 42.0


def _des_rows(think, service, cores, seeds=(1, 2)):
    m = network.single_line(think, service)
    return [{"cores": n, "throughput": des.simulate(m, n, ops=20_000, seed=s).throughput}
            for n in cores for s in seeds]


def test_fit_recovers_parameters_from_noisy_des_data():
    data = fit.prepare(_des_rows(40.0, 2.5, [1, 2, 4, 8, 16, 32, 64]))
    f = fit.fit(data)
    p, se = f.params(), f.stderr()
    assert p["think"] == pytest.approx(40.0, rel=0.05)
    assert p["service"] == pytest.approx(2.5, rel=0.05)
    assert 0 < se["service"] < 0.2 and f.r2 > 0.99
    lo, hi = f.band([4096])
    assert lo[0] <= f.predict([4096])[0] <= hi[0]


def test_holdout_predicts_the_largest_core_counts():
    data = fit.prepare(_des_rows(40.0, 2.5, [1, 2, 4, 8, 16, 32, 64]))
    h = fit.holdout(data, 2)
    assert h["cores"] == [32, 64]
    assert h["max_abs_relative_error"] < 0.1
    assert len(h["relative_error"]) == 2


@pytest.mark.parametrize("rows, message", [
    ([{"cores": 1, "throughput": 1.0}, {"cores": 2, "throughput": 1.9}], "cannot fit 2 parameters"),
    ([{"cores": 1, "throughput": -1.0}], "must be >= 1"),
    ([{"cores": 1, "cycles_per_op": "x"}], "not numbers"),
])
def test_bad_input_is_a_clear_error(rows, message):
    """Through fit(): prepare()'s own refusals are pinned in full in test_model_fit.py."""
    with pytest.raises(fit.FitError, match=message):
        fit.fit(fit.prepare(rows))


def test_negative_times_are_rejected():
    with pytest.raises(ValueError, match="think time must be >= 0"):
        network.single_line(-1.0, 1.0)
    with pytest.raises(ValueError, match="times must be >= 0"):
        network.single_line(1.0, -1.0)


def test_cli_fit_writes_summary_and_figures(tmp_path):
    from vmscale_model import cli
    table = tmp_path / "table.csv"
    rows = _des_rows(30.0, 1.5, [1, 2, 4, 8, 16])
    with open(table, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["workload", "kernel_variant", "cores", "cycles_per_op", "ok"])
        w.writeheader()
        for r in rows:  # cycles per op per core, as the workloads report
            w.writerow({"workload": "synthetic", "kernel_variant": "stock", "cores": r["cores"],
                        "cycles_per_op": r["cores"] / r["throughput"], "ok": "True"})
    assert cli.main(["fit", str(table), "--workload", "synthetic", "--out", str(tmp_path / "m")]) == 0
    s = json.loads((tmp_path / "m" / "fit.json").read_text())
    assert s["fit"]["service"] == pytest.approx(1.5, rel=0.1)
    assert s["holdout"]["cores"] == [16] and math.isfinite(s["holdout"]["max_abs_relative_error"])
    assert set(s["predictions"]) == {"crossbar", "mesh", "ring", "tree"}
    ring, xbar = s["predictions"]["ring"][-1], s["predictions"]["crossbar"][-1]
    mesh = s["predictions"]["mesh"][-1]
    assert ring["cores"] == 4096 and ring["throughput"] < mesh["throughput"] < xbar["throughput"]
    assert s["fit"]["hop_fraction_assumed"] == 0.5
    assert (tmp_path / "m" / "scaling.png").stat().st_size > 10_000
    assert cli.main(["fit", str(table), "--workload", "other"]) == 2


@pytest.mark.parametrize("law", ["mesh", "ring", "tree"])
def test_every_interconnect_law_is_fitted_back_to_its_parameters(law):
    """Throughput generated by exact MVA with S(N) = S + h hops(law, N) is fitted back to (Z, S, h)."""
    z, s, h = 400.0, 6.0, 2.0
    cores = np.array([1, 2, 4, 8, 16, 32, 64])
    x = np.array([solvers.mva(z, [s + h * network.hops(law, n)], int(n))["throughput"] for n in cores])
    f = fit.fit(fit.Data(cores, x, np.zeros_like(x)), law)
    p = f.params()
    assert f.names == ["think", "service", "per_hop"]
    assert p["think"] == pytest.approx(z, rel=1e-3)
    assert p["service"] == pytest.approx(s, rel=1e-2) and p["per_hop"] == pytest.approx(h, rel=1e-2)
    # a crossbar fit of the same points cannot follow the growing service time
    assert fit.fit(fit.Data(cores, x, np.zeros_like(x)), "crossbar").residual_rms > 10 * f.residual_rms


def test_hop_fraction_conversion_is_exact():
    """A crossbar fit (one hop) re-expressed for a mesh: S(N) = S (1 - f) + S f hops(mesh, N)."""
    cores = np.array([1, 2, 4, 8, 16])
    x = np.array([solvers.mva(300.0, [10.0], int(n))["throughput"] for n in cores])
    f = fit.fit(fit.Data(cores, x, np.zeros_like(x)), "crossbar", hop_fraction=0.25)
    s = f.params()["service"]
    mesh = f.params("mesh")
    assert mesh["service"] == pytest.approx(0.75 * s) and mesh["per_hop"] == pytest.approx(0.25 * s)
    # at one hop the mesh service equals the crossbar's; at 256 cores (k = 16: 2*255/48 hops) it is
    assert f.service(1, "mesh") == pytest.approx(s)
    assert f.service(256, "mesh") == pytest.approx(0.75 * s + 0.25 * s * 2 * 255 / 48)
    assert f.predict([4096], "mesh")[0] == pytest.approx(1 / (0.75 * s + 0.25 * s * 2 * 4095 / 192), rel=1e-3)


def test_piggins_closed_form_against_the_discrete_event_simulation():
    """Piggin (3.2.3): his queueing model 'agrees reasonably closely' with simulation, and
    reality lies between it and the deterministic simulator, which queues least."""
    think, s = 20.0, 1.0
    for n in (2, 4, 8, 16, 24, 32, 64):
        closed = float(solvers.piggin_throughput(n, 1 / think, s))
        exp = des.simulate(network.single_line(think, s), n, ops=20_000, seed=5).throughput
        det = des.simulate(network.single_line(think, s, dist="det"), n, ops=5_000, seed=5).throughput
        assert abs(closed - exp) / exp < 0.08, (n, closed, exp)
        assert closed <= det * (1 + 1e-3), (n, closed, det)


def test_load_table_filters_by_variant_backend_and_outcome(tmp_path):
    path = tmp_path / "t.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "kernel_variant", "backend", "cores", "ok", "cycles_per_op"])
        w.writerows([("fault", "stock", "gem5", 1, "True", 10), ("fault", "rcu", "gem5", 1, "True", 11),
                     ("fault", "stock", "qemu", 1, "True", 12), ("fault", "stock", "gem5", 2, "False", 13),
                     ("local", "stock", "gem5", 1, "True", 14)])
    rows = fit.load_table(path, workload="fault", variant="stock", backend="gem5")
    assert [r["cycles_per_op"] for r in rows] == ["10"]
    assert len(fit.load_table(path, workload="fault")) == 3
    with pytest.raises(fit.FitError, match="no successful rows match"):
        fit.load_table(path, workload="fault", variant="stock", backend="native")


def test_rows_from_two_gem5_boards_are_not_fitted_as_one_curve():
    rows = [{"cores": "1", "cycles_per_op": "10"}, {"cores": "2", "cycles_per_op": "12", "gem5.board": "l2_assoc=64"}]
    with pytest.raises(fit.FitError, match="2 gem5 boards"):
        fit.prepare(rows)


def test_a_table_of_boards_and_roi_sizes_is_fitted_one_curve_at_a_time(tmp_path):
    path = tmp_path / "t.csv"
    rows = []
    for board, think in (("", 300.0), ("l2_assoc=64", 100.0)):
        for k in (2000, 4000):
            for n in (1, 2, 4, 8, 16):
                x = solvers.mva(think, [10.0], n)["throughput"]
                rows.append(("refcount", "stock", "gem5", n, n, n * k, "True", n / x, board))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "kernel_variant", "backend", "cores", "threads", "ops", "ok", "cycles_per_op",
                    "gem5.board"])
        w.writerows(rows)
    with pytest.raises(fit.FitError, match="2 gem5 boards"):
        fit.fit_table(path, "refcount", "stock")
    with pytest.raises(fit.FitError, match="several ROI sizes"):
        fit.fit_table(path, "refcount", "stock", board="l2_assoc=64")
    tf = fit.fit_table(path, "refcount", "stock", board="l2_assoc=64", ops_per_thread=4000)
    assert tf.fit.params()["think"] == pytest.approx(100, rel=1e-3)
    assert fit.fit_table(path, "refcount", "stock", board="", ops_per_thread=2000).fit.params()["think"] == \
        pytest.approx(300, rel=1e-3)


def test_load_table_keeps_exactly_the_rows_of_one_curve_wherever_they_stand(tmp_path):
    """Each filter drops only its own rows, also when they come before the kept ones, and the ROI
    size per thread divides by the threads a case ran (not its cores) when the row says so."""
    path = tmp_path / "t.csv"
    head = ["workload", "kernel_variant", "backend", "gem5.board", "cores", "threads", "ops", "ok", "cycles_per_op"]
    rows = [("local", "stock", "gem5", "", 2, "", 100, "True", 1),          # another workload
            ("fault", "rcu", "gem5", "", 2, "", 100, "True", 2),            # another variant
            ("fault", "stock", "qemu", "", 2, "", 100, "True", 3),          # another backend
            ("fault", "stock", "gem5", "l2_assoc=64", 2, "", 100, "True", 4),   # another board
            ("fault", "stock", "gem5", "", 2, 2, 200, "True", 5),           # another ROI size: 100 per thread
            ("fault", "stock", "gem5", "", 2, "", 100, "false", 6),         # failed, in each spelling
            ("fault", "stock", "gem5", "", 2, "", 100, "0", 7),
            ("fault", "stock", "gem5", "", 2, "", 100, "False", 8),
            ("fault", "stock", "gem5", "", 4, 2, 100, "True", 9),           # 2 of 4 cores ran: 50 per thread
            ("fault", "stock", "gem5", "", 2, "", 100, "True", 10)]         # no threads column value: per core
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)
    got = fit.load_table(path, workload="fault", variant="stock", backend="gem5", board="", ops_per_thread=50)
    assert [r["cycles_per_op"] for r in got] == ["9", "10"]
    assert [r["cycles_per_op"] for r in fit.load_table(path, workload="fault", variant="stock", backend="gem5",
                                                        board="", ops_per_thread=100)] == ["5"]
    assert [r["cycles_per_op"] for r in fit.load_table(path, variant="rcu")] == ["2"]
    assert [r["cycles_per_op"] for r in fit.load_table(path, backend="qemu")] == ["3"]
    assert [r["cycles_per_op"] for r in fit.load_table(path, board="l2_assoc=64")] == ["4"]
