"""Every way vmscale predicts a scaling curve, behind one interface.

    model = method.fit(rows)        # the rows of the core counts the method may learn from
    p = model.predict(cores)        # throughput at any core counts, with a band when it has one

A method that cannot model some rows raises NoModel with the reason, which the study shows.
The methods:

- `line`: the contended-line model (think time Z, line service S; exact MVA) fitted freely;
  its band comes from the fit's parameter covariance.
- `usl`: the Universal Scalability Law fitted to the same points, the usual yardstick.
- `counters`: the contended-line model with S measured by the simulator, not fitted: the
  line's transfers per operation (forwarded GETX + GETS), read at the largest core count it
  may learn from, x Ruby's mean miss latency, read at the smallest multi-core count, where a
  transfer barely queues.  Transfers per operation grow with load (a core keeps the line for
  a run of operations while the others think: refcount's shared atomic moves it 0.10 times per
  pair at 2 cores, 0.35 at 10), so the count nearest saturation gives the demand that sets
  1/S.  Z is the 1-core cost less S.  gem5 rows only.
- `hotlines`: one queue per traced hot line (hotstations), from a hot-line trace of the same
  case at the largest traced count the method may learn from; nothing fitted to the curve.

Pure: rows in, numbers out.
"""

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from vmscale_model import fit as fitlib
from vmscale_model import hotstations, solvers

# Coherence events that move the contended line to another core, per operation.
TRANSFER_KEYS = ("gem5.l1_fwd_getx_per_op", "gem5.l1_fwd_gets_per_op")
LATENCY_KEY = "gem5.ruby_miss_latency_mean"


class NoModel(ValueError):
    """This method cannot model these rows; the message says why."""


@dataclass
class Prediction:
    throughput: np.ndarray
    low: Optional[np.ndarray] = None      # 5-95% band, when the method has one
    high: Optional[np.ndarray] = None


@dataclass
class Model:
    """A fitted (or measured) model: its parameters (JSON-ready) and a predictor."""
    method: str
    params: dict
    predictor: object                     # cores array -> Prediction

    def predict(self, cores) -> Prediction:
        return self.predictor(np.atleast_1d(np.asarray(cores)))


def _num(r, key):
    try:
        return float(r.get(key))
    except (TypeError, ValueError):
        return math.nan


def mva_predict(think: float, service: float, cores) -> np.ndarray:
    """Exact MVA throughput of one contended line (ops per cycle, all cores)."""
    return solvers.mva_curve(np.array([think]), lambda t: np.full(len(t), service), np.asarray(cores))[0]


def _data(rows):
    try:
        return fitlib.prepare(rows)
    except fitlib.FitError as e:
        raise NoModel(str(e)) from e


class Line:
    name, label = "line", "contended-line model, fitted"

    def __init__(self, law: str = "crossbar"):
        self.law = law

    def fit(self, rows) -> Model:
        try:
            f = fitlib.fit(_data(rows), self.law)
        except fitlib.FitError as e:
            raise NoModel(str(e)) from e
        s = f.summary()

        def predict(cores):
            if not f.determined():      # no band where the points leave a parameter free
                return Prediction(f.predict(cores))
            lo, hi = f.band(cores)
            return Prediction(f.predict(cores), lo, hi)
        return Model(self.name, {"think": s["think"], "service": s["service"], "r2": s["r2"]}, predict)

    @staticmethod
    def describe(p) -> str:
        return f"Z {p['think']:.4g}, S {p['service']:.4g}"


class USL:
    name, label = "usl", "USL, fitted to the same points"

    def fit(self, rows) -> Model:
        try:
            u = fitlib.fit_usl(_data(rows))
        except fitlib.FitError as e:
            raise NoModel(str(e)) from e
        return Model(self.name, u, lambda cores: Prediction(
            solvers.usl_throughput(cores, u["lambda"], u["sigma"], u["kappa"])))

    @staticmethod
    def describe(p) -> str:
        return f"σ {p['sigma']:.3g}, κ {p['kappa']:.3g}"


def transfers_per_op(rows: list) -> float:
    """The contended line's ownership transfers per operation: forwarded GETX + GETS per op (mean)."""
    return float(np.mean([sum(_num(r, k) for k in TRANSFER_KEYS) for r in rows]))


def _one_core_cycles(rows) -> float:
    data = _data(rows)
    if 1 not in data.cores:
        raise NoModel("no 1-core point to take the think time from")
    return 1 / float(data.throughput[list(data.cores).index(1)])


def measured_params(rows: list) -> dict:
    """Z and S of the `counters` method from the rows' gem5 counters; NoModel says why not."""
    by = {}
    for r in rows:
        by.setdefault(int(float(r["cores"])), []).append(r)
    if 1 not in by:
        raise NoModel("no 1-core point to take the think time from")
    multi = sorted(n for n in by if n > 1)
    if not multi:
        raise NoModel("no multi-core point to measure the line's transfers")
    n, top = multi[0], multi[-1]
    transfers = transfers_per_op(by[top])
    latency = float(np.mean([_num(r, LATENCY_KEY) for r in by[n]]))
    one = _one_core_cycles(rows)
    if not all(math.isfinite(x) for x in (transfers, latency, one)):
        raise NoModel("the rows lack gem5's coherence counters or miss latency (not a gem5 table?)")
    service = transfers * latency
    if service >= one:
        raise NoModel(f"the measured line demand ({service:.4g} cycles) is not below the 1-core cost "
                      f"({one:.4g}): no think time left")
    return {"think": float(one - service), "service": float(service), "transfers_at_cores": top,
            "latency_at_cores": n, "transfers_per_op": float(transfers), "miss_latency": latency}


class Counters:
    name, label = "counters", "model from gem5 counters, not fitted"
    anchored = True     # takes Z from the 1-core point even where a fit leaves that point out

    def fit(self, rows) -> Model:
        p = measured_params(rows)
        return Model(self.name, p, lambda cores: Prediction(mva_predict(p["think"], p["service"], cores)))

    @staticmethod
    def describe(p) -> str:
        return (f"Z {p['think']:.4g}, S {p['service']:.4g} ({p['transfers_per_op']:.2f} transfers at "
                f"{p['transfers_at_cores']} cores x {p['miss_latency']:.4g} at {p['latency_at_cores']})")


class HotLines:
    """Stations from a hot-line trace of the case (hotlines.csv rows at one core count)."""
    name, label = "hotlines", "one queue per traced hot line, not fitted"
    anchored = True

    def __init__(self, trace_rows: list, top: int = 0):
        self.trace_rows, self.top = trace_rows, top

    def fit(self, rows) -> Model:
        traced = sorted({int(r["cores"]) for r in self.trace_rows if r.get("cores")})
        if not traced:
            raise NoModel("no hot-line trace of this case")
        # a trace is what the method learns from: none from past the counts it may learn from
        top = max(int(float(r["cores"])) for r in rows)
        at = [n for n in traced if n <= top]
        if not at:
            raise NoModel(f"no hot-line trace at or below the fitted core counts ({top}); traced at {traced}")
        st = hotstations.stations([r for r in self.trace_rows if int(r["cores"]) == at[-1]], self.top)
        try:
            m = hotstations.model(st, _one_core_cycles(rows))
        except ValueError as e:
            raise NoModel(str(e)) from e
        params = {"think": m["think"], "demand": m["demand"], "stations": len(st), "at_cores": at[-1]}
        return Model(self.name, params, lambda cores: Prediction(hotstations.predict(m, cores)))

    @staticmethod
    def describe(p) -> str:
        return f"Z {p['think']:.4g}, {p['stations']} lines, D {p['demand']:.4g} (traced at {p['at_cores']})"


def default(law: str = "crossbar") -> list:
    """The methods every curve is judged by (a hot-line method joins where a trace is given)."""
    return [Line(law), USL(), Counters()]
