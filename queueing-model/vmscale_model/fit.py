"""Fit the contended-line model to measured scaling, validate on held-out points, predict.

Data: rows with a core count and a throughput: the window throughput where every row has
one (`window_ops_per_cycle`: the ops all threads completed while all ran, per cycle of the
machine; the harness measures it), else cores / `cycles_per_op` (the mean of each thread's own
cycles per op, which threads that a contended line serves unfairly pull apart), or a column
`throughput`.  Model: N cores, think time Z,
one contended line whose service time is S(N) = fixed + per_hop * hops(law, N), solved by
exact MVA.  Parameters come from bounded least squares on log throughput, uncertainty from
the Jacobian's covariance; bands are percentiles of predictions over parameter samples.
"""

import csv
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import least_squares

from vmscale_model import solvers
from vmscale_model.network import LAWS, hops


class FitError(ValueError):
    """Bad input for a fit, with a one-line reason."""


@dataclass
class Data:
    cores: np.ndarray          # distinct core counts, ascending
    throughput: np.ndarray     # mean total throughput (ops per time unit) at each
    spread: np.ndarray         # standard deviation over repetitions (0 for one)
    unit: str = "ops/cycle"


def row_ops_per_thread(r):
    """A row's ROI size: operations per thread, or None when the row does not say."""
    try:
        return float(r["ops"]) / float(r.get("threads") or r["cores"])
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def load_table(path, workload=None, variant=None, backend=None, board=None, ops_per_thread=None) -> list:
    """A table's successful rows, filtered; board is gem5's option string ('' for the default
    board), ops_per_thread a ROI size."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except FileNotFoundError:
        raise FitError(f"{path}: no such file")
    if not rows:
        raise FitError(f"{path}: no rows")
    out = []
    for r in rows:
        if workload and r.get("workload") != workload:
            continue
        if variant and r.get("kernel_variant") != variant:
            continue
        if backend and r.get("backend") != backend:
            continue
        if board is not None and (r.get("gem5.board") or "") != board:
            continue
        if ops_per_thread is not None and row_ops_per_thread(r) != float(ops_per_thread):
            continue
        if r.get("ok", "True") in ("False", "false", "0"):
            continue
        out.append(r)
    if not out:
        raise FitError(f"{path}: no successful rows match workload={workload} variant={variant} backend={backend}"
                       + (f" board={board!r}" if board is not None else "")
                       + (f" ops_per_thread={ops_per_thread}" if ops_per_thread is not None else ""))
    return out


def _positive(v) -> bool:
    try:
        return float(v) > 0
    except (TypeError, ValueError):
        return False


def prepare(rows: list) -> Data:
    """Rows -> mean throughput per core count: the window throughput when every row has one,
    else cores / cycles_per_op."""
    if not rows:
        raise FitError("no rows to fit")
    cols = set(rows[0])
    boards = sorted({r.get("gem5.board") or "" for r in rows})
    if len(boards) > 1:
        raise FitError(f"the rows come from {len(boards)} gem5 boards ({', '.join(repr(b) for b in boards)}): "
                       "one curve is one board: give --board, or `vmscale model study` fits each apart")
    sizes = {}
    for r in rows:
        sizes.setdefault(r.get("cores"), set()).add(row_ops_per_thread(r))
    if any(len(v - {None}) > 1 for v in sizes.values()):
        raise FitError("the rows hold several ROI sizes at one core count: give --ops-per-thread, or "
                       "`vmscale model study` judges each size and their slope")
    if "cores" not in cols:
        raise FitError("missing column 'cores'")
    if all(_positive(r.get("window_ops_per_cycle")) for r in rows):
        def value(r):
            return float(r["window_ops_per_cycle"])
        unit = "ops/cycle (window)"
        key = "window_ops_per_cycle"
    elif "cycles_per_op" in cols:
        def value(r):
            return float(r["cores"]) / float(r["cycles_per_op"])
        unit = "ops/cycle"
        key = "cycles_per_op"
    elif "throughput" in cols:
        def value(r):
            return float(r["throughput"])
        unit = "ops/time"
        key = "throughput"
    else:
        raise FitError("missing column: need 'cycles_per_op' or 'throughput'")
    by = {}
    for r in rows:
        try:
            n = int(float(r["cores"]))
            raw = float(r[key])
        except (TypeError, ValueError):
            raise FitError(f"row with cores={r.get('cores')!r} {key}={r.get(key)!r}: not numbers")
        if n < 1 or raw <= 0 or not math.isfinite(raw):
            raise FitError(f"row with cores={n} {key}={raw}: cores must be >= 1 and {key} > 0")
        by.setdefault(n, []).append(value(r))
    cores = np.array(sorted(by))
    return Data(cores=cores, throughput=np.array([np.mean(by[n]) for n in cores]),
                spread=np.array([np.std(by[n]) for n in cores]), unit=unit)


@dataclass
class Fit:
    law: str
    names: list
    values: np.ndarray
    cov: np.ndarray
    data: Data
    residual_rms: float        # RMS of log residuals
    r2: float                  # on throughput
    fixed: dict = field(default_factory=dict)
    hop_fraction: float = 0.5  # crossbar fits: share of S that is one hop's traversal

    def params(self, law=None) -> dict:
        """Parameters, re-expressed for another interconnect when asked.

        A crossbar fit measures S at one hop and cannot split it; for other laws the
        assumption is S(N) = S (1 - f) + S f hops(N), f = hop_fraction (stated in outputs).
        """
        p = dict(self.fixed)
        p.update(dict(zip(self.names, self.values)))
        if law and law != self.law and self.law == "crossbar" and p["per_hop"] == 0:
            p["per_hop"] = p["service"] * self.hop_fraction
            p["service"] = p["service"] * (1 - self.hop_fraction)
        return p

    def stderr(self) -> dict:
        return dict(zip(self.names, np.sqrt(np.clip(np.diag(self.cov), 0, None))))

    def determined(self) -> bool:
        """Whether the points pin every fitted parameter down (standard error below its value).
        Where one is not (a curve still linear over the fitted counts leaves S free), a band drawn
        from the covariance says nothing and is not drawn."""
        se = self.stderr()
        p = self.params()
        return all(np.isfinite(se[k]) and se[k] < abs(p[k]) for k in self.names)

    def service(self, n, law=None):
        p = self.params(law)
        return p["service"] + p["per_hop"] * np.vectorize(lambda m: hops(law or self.law, m))(n)

    def predict(self, cores, law=None) -> np.ndarray:
        return _throughput(self.params(law), np.asarray(cores), law or self.law)[0]

    def band(self, cores, law=None, samples=200, seed=1, q=(5, 95)) -> tuple:
        """Percentile band of predictions over parameters drawn from the fit's covariance."""
        rng = np.random.default_rng(seed)
        if not np.all(np.isfinite(self.cov)):
            mid = self.predict(cores, law)
            return mid, mid
        draws = rng.multivariate_normal(self.values, self.cov, size=samples)
        draws = np.clip(draws, 1e-12, None)
        p = self.params()
        params = {k: np.full(samples, v, dtype=float) for k, v in p.items()}
        for i, name in enumerate(self.names):
            params[name] = draws[:, i]
        if law and law != self.law and self.law == "crossbar" and p["per_hop"] == 0:
            params["per_hop"] = params["service"] * self.hop_fraction
            params["service"] = params["service"] * (1 - self.hop_fraction)
        curves = _throughput(params, np.asarray(cores), law or self.law)
        return np.percentile(curves, q[0], axis=0), np.percentile(curves, q[1], axis=0)

    def summary(self) -> dict:
        se = self.stderr()
        out = {"law": self.law, "r2": self.r2, "log_rms": self.residual_rms, "points": len(self.data.cores)}
        for k, v in self.params().items():
            out[k] = float(v)
            if k in se:
                out[f"{k}_stderr"] = float(se[k])
        out["ceiling"] = 1.0 / float(self.service(int(self.data.cores.max())))
        if self.law == "crossbar" and self.params()["per_hop"] == 0:
            out["hop_fraction_assumed"] = self.hop_fraction
        return out


def _throughput(params: dict, cores, law: str) -> np.ndarray:
    """MVA throughput for (samples of) parameters at each core count -> (samples, len(cores))."""
    cores = np.asarray(cores, dtype=int)
    h = np.array([hops(law, n) for n in cores])
    think = np.atleast_1d(np.asarray(params["think"], dtype=float))
    service = np.atleast_1d(np.asarray(params["service"], dtype=float))[:, None]
    per_hop = np.atleast_1d(np.asarray(params["per_hop"], dtype=float))[:, None]
    return solvers.mva_curve(think, lambda _t: service + per_hop * h[None, :], cores)


def fit(data: Data, law: str = "crossbar", per_hop=None, hop_fraction: float = 0.5) -> Fit:
    """Fit think and service (and per_hop when given None and the law varies with N)."""
    if law not in LAWS:
        raise FitError(f"unknown interconnect law {law!r}: use {', '.join(LAWS)}")
    if not 0 <= hop_fraction <= 1:
        raise FitError(f"hop fraction {hop_fraction} must be within [0, 1]")
    n = data.cores
    free_hop = per_hop is None and law != "crossbar"
    names = ["think", "service"] + (["per_hop"] if free_hop else [])
    fixed = {} if free_hop else {"per_hop": float(per_hop or 0.0)}
    if len(n) < len(names) + 1:
        raise FitError(f"{len(n)} distinct core counts cannot fit {len(names)} parameters with any check: "
                       f"need at least {len(names) + 1}")
    # Starting point: one core gives think + service; the largest gives the ceiling.
    x1 = data.throughput[0] / n[0]
    s0 = min(1.0 / data.throughput.max(), 0.5 / x1)
    z0 = max(1.0 / x1 - s0, s0 * 1e-3)
    x0 = [z0, s0] + ([s0 * 0.1] if free_hop else [])
    scale = np.array(x0)

    def residuals(v):
        p = dict(fixed, **dict(zip(names, v * scale)))
        return np.log(_throughput(p, n, law)[0]) - np.log(data.throughput)

    res = least_squares(residuals, np.ones(len(names)), bounds=(1e-9, np.inf), method="trf")
    values = res.x * scale
    dof = len(n) - len(names)
    s2 = float(res.fun @ res.fun) / dof if dof > 0 else float("nan")
    j = res.jac / scale  # d residual / d parameter
    try:
        cov = np.linalg.inv(j.T @ j) * s2
    except np.linalg.LinAlgError:
        cov = np.full((len(names), len(names)), np.nan)
    pred = _throughput(dict(fixed, **dict(zip(names, values))), n, law)[0]
    ss_res = float(((data.throughput - pred) ** 2).sum())
    ss_tot = float(((data.throughput - data.throughput.mean()) ** 2).sum())
    return Fit(law=law, names=names, values=values, cov=cov, data=data,
               residual_rms=float(np.sqrt((res.fun ** 2).mean())),
               r2=1 - ss_res / ss_tot if ss_tot > 0 else float("nan"), fixed=fixed,
               hop_fraction=hop_fraction)


def holdout(data: Data, k: int, law: str = "crossbar", per_hop=None) -> dict:
    """Fit on all but the k largest core counts; report the error on those k."""
    if k < 1 or k >= len(data.cores):
        raise FitError(f"hold-out of {k} points needs more than {k} core counts (have {len(data.cores)})")
    train = Data(data.cores[:-k], data.throughput[:-k], data.spread[:-k], data.unit)
    f = fit(train, law, per_hop)
    cores = data.cores[-k:]
    pred = f.predict(cores)
    err = (pred - data.throughput[-k:]) / data.throughput[-k:]
    return {"fit": f, "cores": cores.tolist(), "measured": data.throughput[-k:].tolist(),
            "predicted": pred.tolist(), "relative_error": err.tolist(),
            "max_abs_relative_error": float(np.abs(err).max())}


def fit_usl(data: Data) -> dict:
    """Universal scalability law fit, for comparison."""
    if len(data.cores) < 4:
        raise FitError("USL needs at least 4 core counts")
    lam0 = data.throughput[0] / data.cores[0]

    def residuals(v):
        return np.log(solvers.usl_throughput(data.cores, lam0 * v[0], v[1], v[2])) - np.log(data.throughput)

    res = least_squares(residuals, [1.0, 0.01, 1e-4], bounds=([1e-9, 0, 0], [np.inf, 1, 1]))
    return {"lambda": float(lam0 * res.x[0]), "sigma": float(res.x[1]), "kappa": float(res.x[2]),
            "log_rms": float(np.sqrt((res.fun ** 2).mean()))}


PREDICTION_GRID = (64, 256, 1024, 4096)


@dataclass
class TableFit:
    """One curve of a result table, fitted: what `vmscale model fit` prints and writes."""
    fit: Fit
    data: Data
    hold: dict                 # holdout() of the largest core counts, or None
    summary: dict              # JSON-ready: parameters, hold-out, USL, predictions per law with bands


def fit_table(table, workload=None, variant=None, backend=None, law: str = "crossbar", per_hop=None,
              hop_fraction: float = 0.5, holdout_points: int = 1, board=None, ops_per_thread=None) -> TableFit:
    """Fit the contended-line model to one curve of a table (a CSV path or its rows).

    The library's front door (a notebook calls this; the CLI, the demo and reports too):
    loads and filters, fits, holds out the `holdout_points` largest core counts, fits the USL
    beside it, and predicts every interconnect law to 4096 cores with bands."""
    rows = table if isinstance(table, list) else load_table(table, workload, variant, backend, board, ops_per_thread)
    data = prepare(rows)
    f = fit(data, law, per_hop, hop_fraction)
    summary = {"table": None if isinstance(table, list) else str(table), "workload": workload, "variant": variant,
               "backend": backend, "fit": f.summary(),
               "measured": {"cores": data.cores.tolist(), "throughput": data.throughput.tolist()}}
    hold = None
    if holdout_points:
        try:
            hold = holdout(data, holdout_points, law, per_hop)
            summary["holdout"] = {k: v for k, v in hold.items() if k != "fit"}
        except FitError as e:
            summary["holdout"] = {"skipped": str(e)}
    if len(data.cores) >= 4:
        summary["usl"] = fit_usl(data)
    grid = [n for n in PREDICTION_GRID if n > data.cores.max()]
    summary["predictions"] = {}
    for other in LAWS:
        lo, hi = f.band(grid, other)
        summary["predictions"][other] = [{"cores": n, "throughput": float(m), "low": float(a), "high": float(b)}
                                         for n, m, a, b in zip(grid, f.predict(grid, other), lo, hi)]
    return TableFit(fit=f, data=data, hold=hold, summary=summary)
