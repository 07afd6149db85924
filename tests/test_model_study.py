"""The scaling study: fits on small core counts judged on large ones, against the USL and
against the model whose parameters come from the simulator's counters."""

import csv
import json

import numpy as np
import pytest

from conftest import vmscale
from vmscale_model import methods, study

CORES = [1, 2, 4, 8, 16, 32, 64]


def _rows(think, service, cores=CORES, variant="stock", counters=True, transfers=1.0):
    """Rows as a gem5 sweep writes them, with throughput from exact MVA (cycles/op per thread)."""
    x = methods.mva_predict(think, service, cores)
    rows = []
    for n, xn in zip(cores, x):
        r = {"workload": "refcount", "kernel_variant": variant, "backend": "gem5", "cores": str(n), "ok": "True",
             "cycles_per_op": str(n / xn)}
        if counters:
            # at one core the line never moves; above, `transfers` ownership moves per op
            r.update({"gem5.l1_fwd_getx_per_op": str(0.0 if n == 1 else transfers * 0.75),
                      "gem5.l1_fwd_gets_per_op": str(0.0 if n == 1 else transfers * 0.25),
                      "gem5.ruby_miss_latency_mean": str(service / transfers)})
        rows.append(r)
    return rows


def test_a_contended_line_curve_is_predicted_where_it_was_not_fitted():
    r = study.judge(_rows(2000.0, 150.0), train_max=16)
    assert r["train_cores"] == [1, 2, 4, 8, 16] and r["held_cores"] == [32, 64]
    assert r["methods"]["line"]["params"]["think"] == pytest.approx(2000, rel=0.02)
    assert r["methods"]["line"]["params"]["service"] == pytest.approx(150, rel=0.02)
    assert max(abs(e) for e in r["methods"]["line"]["error"]) < 0.02
    # the USL fitted to the same five points misses the 1/S ceiling it never saw
    assert max(abs(e) for e in r["methods"]["usl"]["error"]) > max(abs(e) for e in r["methods"]["line"]["error"])
    mm = r["methods"]["counters"]
    # transfers read at the largest fitted count (nearest saturation), latency at the smallest
    assert mm["params"]["transfers_at_cores"] == 16 and mm["params"]["latency_at_cores"] == 2
    assert mm["params"]["transfers_per_op"] == pytest.approx(1.0)
    assert mm["params"]["service"] == pytest.approx(150)
    # the 1-core point is Z + S in the model: Z is what is left of it once S is measured
    assert mm["params"]["think"] == pytest.approx(2000)
    assert max(abs(e) for e in mm["error"]) < 1e-6


def test_counters_scale_the_measured_service():
    # twice the transfers per op at half the latency: the same demand, the same prediction
    a = study.judge(_rows(2000.0, 150.0, transfers=1.0), 16)["methods"]["counters"]
    b = study.judge(_rows(2000.0, 150.0, transfers=2.0), 16)["methods"]["counters"]
    assert a["params"]["service"] == pytest.approx(b["params"]["service"]) and a["predicted"] == pytest.approx(b["predicted"])


def test_counters_read_transfers_nearest_saturation_and_never_from_held_out_points():
    """A core keeps the line for a run of operations at low load: fewer transfers per op at 2
    cores than near saturation.  The demand is read at the largest fitted count (16), the
    unqueued latency at 2; the held-out counts' counters (here absurd) are never read."""
    rows = _rows(2000.0, 150.0)
    for r in rows:
        n = int(r["cores"])
        share = {2: 0.1, 4: 0.3, 8: 0.6, 16: 1.0}.get(n, 5.0 if n > 16 else 0.0)
        r["gem5.l1_fwd_getx_per_op"], r["gem5.l1_fwd_gets_per_op"] = str(0.75 * share), str(0.25 * share)
        if n > 16:
            r["gem5.ruby_miss_latency_mean"] = "1e6"
    mm = study.judge(rows, 16)["methods"]["counters"]
    assert mm["params"]["transfers_per_op"] == pytest.approx(1.0) and mm["params"]["service"] == pytest.approx(150)
    assert max(abs(e) for e in mm["error"]) < 1e-6


def test_what_cannot_be_judged_says_why():
    rows = _rows(2000.0, 150.0, counters=False) + _rows(500.0, 1.0, cores=[1, 2, 4], variant="refcache")
    result = study.study(rows, train_max=16)
    assert "not a gem5 table" in result["refcount/stock/gem5"]["methods"]["counters"]["skipped"]
    assert result["refcount/refcache/gem5"] == {"skipped": "3 core counts (a curve needs 5)"}
    short = study.judge(_rows(2000.0, 150.0, cores=[1, 2, 4, 8, 16]), train_max=16)
    assert short["skipped"] == "no core count above 16 to check the fit on"
    no_one = study.judge(_rows(2000.0, 150.0, cores=[2, 4, 8, 16, 32, 64]), train_max=16)
    assert "no 1-core point" in no_one["methods"]["counters"]["skipped"]
    # a measured demand above the whole 1-core cost leaves no think time: said, not fitted around
    big_rows = _rows(100.0, 150.0)
    for r in big_rows:
        if r["cores"] != "1":
            r["gem5.ruby_miss_latency_mean"] = "5000"
    assert "no think time left" in study.judge(big_rows, 16)["methods"]["counters"]["skipped"]
    failed = _rows(2000.0, 150.0)
    failed[-1]["ok"] = "False"
    assert study.judge([r for r in failed if r["ok"] == "True"], 16)["held_cores"] == [32]


def test_cli_writes_the_study_table_and_figures(tmp_path):
    table = tmp_path / "t.csv"
    rows = _rows(2000.0, 150.0) + _rows(300.0, 0.001, variant="percpu-ref")
    with open(table, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    r = vmscale("model", "study", table, "--out", tmp_path / "s")
    assert r.returncode == 0, r.stderr
    assert "| refcount/stock/gem5 | 1,2,4,8,16 / 32,64 |" in r.stdout
    data = json.loads((tmp_path / "s/study.json").read_text())
    assert set(data) == {"refcount/stock/gem5", "refcount/percpu-ref/gem5"}
    assert (tmp_path / "s/refcount-stock-gem5.png").stat().st_size > 10_000
    # the readable verdict: a line per curve with each method's held-out errors and the best one; one grid
    verdict = (tmp_path / "s/verdict.txt").read_text().splitlines()
    assert len(verdict) == 2 and all(" at 32,64 cores: " in v and "-> best " in v for v in verdict)
    b = study.best(data["refcount/stock/gem5"])
    assert f"-> best {b[0]} ({100 * b[1]:.1f}%)" in next(v for v in verdict if v.startswith("refcount/stock/gem5"))
    assert (tmp_path / "s/grid.png").stat().st_size > 10_000
    # a near-linear curve: the model puts the ceiling far away and predicts the held-out points
    assert max(abs(e) for e in data["refcount/percpu-ref/gem5"]["methods"]["line"]["error"]) < 0.02
    bad = vmscale("model", "study", tmp_path / "missing.csv")
    assert bad.returncode == 2 and "no such file" in bad.stderr
    assert np.isfinite(data["refcount/stock/gem5"]["methods"]["usl"]["params"]["sigma"])


def test_the_one_core_point_can_be_left_out_of_the_fit():
    r = study.judge(_rows(2000.0, 150.0), train_max=16, train_min=2)
    assert r["train_cores"] == [2, 4, 8, 16] and r["held_cores"] == [32, 64]
    assert r["methods"]["line"]["params"]["service"] == pytest.approx(150, rel=0.02)
    assert r["methods"]["counters"]["params"]["think"] == pytest.approx(2000)   # still from the 1-core point


def _sized(think, service, k, fixed_per_core, cores=CORES):
    """Rows at k ops per thread whose ROI also carries a fixed cost F(n) = fixed_per_core * n
    per thread (as start skew and cold misses do), with transfers counted as totals."""
    rows = _rows(think, service, cores)
    for r in rows:
        n = int(r["cores"])
        steady = float(r["cycles_per_op"])
        r.update({"threads": str(n), "ops": str(n * k),
                  "cycles_per_op": str(steady + fixed_per_core * n / k),
                  "gem5.l1_fwd_getx": str(float(r["gem5.l1_fwd_getx_per_op"]) * n * k + 7 * n),
                  "gem5.l1_fwd_gets": str(float(r["gem5.l1_fwd_gets_per_op"]) * n * k)})
    return rows


def test_two_roi_sizes_give_the_steady_cost_free_of_the_rois_fixed_part():
    rows = _sized(2000.0, 150.0, 2000, 20000.0) + _sized(2000.0, 150.0, 4000, 20000.0)
    result = study.study(rows, train_max=16)
    # the sizes are judged apart, never averaged, and each alone is biased by F(n)/k
    assert set(result) == {"refcount/stock/gem5/ops=2000", "refcount/stock/gem5/ops=4000",
                           "refcount/stock/gem5/slope"}
    slope = result["refcount/stock/gem5/slope"]
    assert slope["methods"]["line"]["params"]["service"] == pytest.approx(150, rel=0.01)
    assert max(abs(e) for e in slope["methods"]["line"]["error"]) < 0.01
    assert slope["roi_fixed_cycles"][8] == pytest.approx(20000.0 * 8)
    assert abs(result["refcount/stock/gem5/ops=2000"]["methods"]["line"]["params"]["service"] - 150) > 5
    # transfers per op from the totals' slope: the 7 per thread outside the steady state drop out
    assert slope["methods"]["counters"]["params"]["transfers_per_op"] == pytest.approx(1.0)
    assert max(abs(e) for e in slope["methods"]["counters"]["error"]) < 1e-6


def test_a_roi_that_grows_with_the_cores_by_its_parameters_is_one_curve():
    """`global`'s threads each fault a region of 16 pages per thread: its operations per thread grow with
    the cores under the same parameters, one curve; two parameter sets are never one."""
    rows = _rows(2000.0, 150.0)
    for r in rows:
        n = int(r["cores"])
        r.update({"threads": str(n), "ops": str(32 * n * n), "params.iters": "2", "params.slice_pages": "16"})
    result = study.study(rows, train_max=16)
    assert list(result) == ["refcount/stock/gem5"] and result["refcount/stock/gem5"]["held_cores"] == [32, 64]
    other = [dict(r, **{"params.iters": "4", "ops": str(64 * int(r["cores"]) ** 2)}) for r in rows]
    assert "refcount/stock/gem5" not in study.study(rows + other, train_max=16)


def test_the_slope_curve_is_judged_on_the_steady_state_not_the_larger_rois_window():
    # rows with a window throughput (as gem5's have), biased like their thread cycles by F(n)/k
    rows = _sized(2000.0, 150.0, 2000, 20000.0) + _sized(2000.0, 150.0, 4000, 20000.0)
    for r in rows:
        r["window_cycles_per_op"] = r["cycles_per_op"]
        r["window_ops_per_cycle"] = str(int(r["cores"]) / float(r["cycles_per_op"]))
    slope = study.study(rows, train_max=16)["refcount/stock/gem5/slope"]
    steady = {int(r["cores"]): int(r["cores"]) / float(r["cycles_per_op"]) for r in _rows(2000.0, 150.0)}
    assert slope["throughput"] == pytest.approx([steady[n] for n in slope["cores"]], rel=1e-9)
    assert max(abs(e) for e in slope["methods"]["line"]["error"]) < 0.01
    result = study.study(rows, train_max=16)
    big = result["refcount/stock/gem5/ops=4000"]
    assert big["throughput"][-1] < 0.98 * slope["throughput"][-1]    # F(64)/k adds 3% to 4,000 ops' cost
    # each one-size curve is also judged against the steady state at its held-out counts
    at = big["steady"]["64"]
    assert at["throughput"] == pytest.approx(steady[64]) and at["sizes"] == "2000/4000"
    assert at["window_error"] == pytest.approx(big["throughput"][-1] / steady[64] - 1)
    i = big["held_cores"].index(64)
    assert at["error"]["line"] == pytest.approx(big["methods"]["line"]["predicted"][i] / steady[64] - 1)
    lines = [x for x in study.verdict(result).splitlines() if x.startswith("  steady state")]
    assert len(lines) == 2          # under each one-size curve, never under the slope's own
    assert f"at 64 cores (ops 2000/4000): the measured point is {100 * at['window_error']:+.1f}% off it" in lines[1]


def test_a_slope_needs_two_sizes_at_each_core_count_and_growth():
    rows = _sized(2000.0, 150.0, 2000, 0.0) + _sized(2000.0, 150.0, 4000, 0.0, cores=[1, 2, 4, 8, 16, 32])
    bad = _sized(2000.0, 150.0, 4000, 0.0, cores=[32])
    rows = [r for r in rows if not (r["cores"] == "32" and r["ops"] == str(32 * 4000))] + [
        dict(bad[0], cycles_per_op="1")]          # at 32 cores the longer ROI took fewer cycles
    srows, notes = study.slope_rows(rows)
    assert [int(r["cores"]) for r in srows] == [1, 2, 4, 8, 16]
    assert notes[0].startswith("32 cores: per-thread cycles do not grow") and notes[1] == "64 cores: one ROI size only"


def test_points_from_different_gem5_boards_are_separate_curves():
    rows = _rows(2000.0, 150.0) + [dict(r, **{"gem5.board": "l2_assoc=64"}) for r in _rows(2000.0, 100.0)]
    result = study.study(rows, train_max=16)
    assert result["refcount/stock/gem5"]["methods"]["line"]["params"]["service"] == pytest.approx(150, rel=0.02)
    assert result["refcount/stock/gem5[l2_assoc=64]"]["methods"]["line"]["params"]["service"] == pytest.approx(100, rel=0.02)


def test_the_fits_band_holds_points_from_its_own_law_and_not_a_slower_one():
    rows = _rows(2000.0, 150.0)
    for r in rows:   # measurement noise, so that the fit has a covariance to draw from
        n = int(r["cores"])
        r["cycles_per_op"] = str(float(r["cycles_per_op"]) * (1 + 0.01 * (-1) ** n))
    r = study.judge(rows, 16)
    band = r["methods"]["line"]["band"]
    assert all(lo <= p <= hi for lo, p, hi in zip(band["low"], r["methods"]["line"]["predicted"], band["high"]))
    assert band["inside"] == [True, True]
    # the same fit judged against a curve that is 30% slower at 32 and 64 cores: outside
    slow = [dict(x, cycles_per_op=str(float(x["cycles_per_op"]) * (1.3 if int(x["cores"]) > 16 else 1))) for x in rows]
    assert study.judge(slow, 16)["methods"]["line"]["band"]["inside"] == [False, False]
    assert "(in band: no, no)" in study.table({"k": study.judge(slow, 16)})


class _Halved:
    """A method that is not one of the built-in ones: it predicts half of what the free fit does.
    The study takes any object with the interface (name, label, fit -> Model, describe)."""
    name, label = "halved", "half the fitted model"

    def fit(self, rows):
        m = methods.Line().fit(rows)
        return methods.Model(self.name, m.params, lambda c: methods.Prediction(m.predict(c).throughput / 2))

    @staticmethod
    def describe(p):
        return "half"


def test_every_method_is_judged_through_one_interface():
    rows = _rows(2000.0, 150.0)
    for m in methods.default() + [_Halved()]:
        model = m.fit([r for r in rows if int(r["cores"]) <= 16])
        p = model.predict([1, 32, 4096])
        assert p.throughput.shape == (3,) and np.all(p.throughput > 0), m.name
        assert m.describe(model.params)
    r = study.judge(rows, 16, methods=methods.default() + [_Halved()])
    assert list(r["methods"]) == ["line", "usl", "counters", "halved"]
    assert r["methods"]["halved"]["error"] == pytest.approx([-0.5, -0.5], abs=0.02)
    # each method's curve to 4x the data, and where it puts the peak beside the measured one
    assert r["methods"]["line"]["curve"]["cores"][-1] == 256 and "low" in r["methods"]["line"]["curve"]
    assert r["peak_cores"] == 64 and r["methods"]["line"]["peak_cores"] == 64
    # a method that cannot model the rows says why, and the rest are judged all the same
    bare = _rows(2000.0, 150.0, counters=False)
    r = study.judge(bare, 16)
    assert "skipped" in r["methods"]["counters"] and "error" in r["methods"]["line"]


def test_a_case_traced_for_hot_lines_is_judged_by_the_hot_line_model_too():
    """Stations from a hotlines.csv of the case (one line: 1 visit per op x 150 cycles) give the
    curve they were traced from: the study adds the method where the trace names the case."""
    rows = _rows(2000.0, 150.0)
    trace = [{"workload": "refcount", "kernel_variant": "stock", "cores": "4", "rank": "1", "name": "bench_atomic",
              "kind": "data", "getx_per_op": "1.0", "gets_per_op": "0", "handoff_cycles": "150",
              "mean_latency_cycles": "400"},
             {"workload": "refcount", "kernel_variant": "stock", "cores": "4", "rank": "", "name": "rest",
              "kind": "", "getx_per_op": "0.1", "gets_per_op": "0", "handoff_cycles": "", "mean_latency_cycles": "90"}]
    result = study.study(rows + _rows(300.0, 0.001, variant="percpu-ref"), 16, hotlines=trace)
    hot = result["refcount/stock/gem5"]["methods"]["hotlines"]
    assert hot["params"]["stations"] == 1 and hot["params"]["at_cores"] == 4
    assert max(abs(e) for e in hot["error"]) < 1e-6
    assert "hotlines" not in result["refcount/percpu-ref/gem5"]["methods"]
    assert "one queue per traced hot line" in study.table(result)
    # a trace made on another board is not this curve's
    other = [dict(r, board="board=e7-8870") for r in trace]
    assert "hotlines" not in study.study(rows, 16, hotlines=other)["refcount/stock/gem5"]["methods"]
    # a trace from past the fitted counts is not learnt from
    late = [dict(r, cores="32") for r in trace]
    result = study.study(rows, 16, hotlines=late)
    assert "no hot-line trace at or below the fitted core counts (16)" in \
        result["refcount/stock/gem5"]["methods"]["hotlines"]["skipped"]


def test_a_table_that_varies_a_workloads_shape_keeps_each_value_its_own_curve():
    rows = [dict(r, workload="fault", **{"params.mmap_pct": pct}) for pct in ("0", "50") for r in _rows(2000.0, 150.0)]
    by = study.curves(rows)
    assert set(by) == {("fault", "stock mmap_pct=0", "gem5", ""), ("fault", "stock mmap_pct=50", "gem5", "")}
    assert all(len(rs) == len(CORES) for rs in by.values())
    # one value in the table: the variant as it is
    assert set(study.curves([r for r in rows if r["params.mmap_pct"] == "0"])) == {("fault", "stock", "gem5", "")}


def test_a_shape_that_only_tells_workloads_apart_names_no_curve():
    # fault re-arms every 64 pages, local maps 1: one value per workload, so neither label carries it
    # (a curve's hot-line trace is matched by its variant's name)
    rows = ([dict(r, workload="fault", **{"params.pages": "64"}) for r in _rows(2000.0, 150.0)]
            + [dict(r, workload="local", **{"params.pages": "1"}) for r in _rows(2000.0, 150.0)])
    assert set(study.curves(rows)) == {("fault", "stock", "gem5", ""), ("local", "stock", "gem5", "")}
    both = rows + [dict(r, **{"params.pages": "256"}) for r in rows if r["workload"] == "fault"]
    assert set(study.curves(both)) == {("fault", "stock pages=64", "gem5", ""), ("fault", "stock pages=256", "gem5", ""),
                                       ("local", "stock", "gem5", "")}
