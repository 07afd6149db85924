"""A scaling study: every curve of a result table fitted on its small core counts and
judged on the large ones it was not fitted to, three ways.

- the contended-line model fitted freely (think Z and service S by least squares);
- the Universal Scalability Law fitted to the same points (the usual yardstick);
- the contended-line model with parameters measured by the simulator, not fitted:
  the line's demand per operation S is (ownership transfers per operation) x (Ruby's
  mean miss latency), both read at the smallest multi-core count, where a transfer
  barely queues; Z is the 1-core cycles per operation less S (in the model one core
  still visits the line once per operation, so its cycle count is Z + S).  It needs
  gem5 rows (the coherence counters); other backends get no such model.

Pure: rows in, dicts out.  The CLI (`vmscale model study`) does the files.
"""

import math

import numpy as np

from vmscale_model import fit as fitlib
from vmscale_model import solvers

# Coherence events that move the contended line to another core, per operation.
TRANSFER_KEYS = ("gem5.l1_fwd_getx_per_op", "gem5.l1_fwd_gets_per_op")
LATENCY_KEY = "gem5.ruby_miss_latency_mean"


def curves(rows: list) -> dict:
    """(workload, variant, backend) -> the successful rows of that curve."""
    out = {}
    for r in rows:
        if str(r.get("ok", "True")) in ("False", "false", "0"):
            continue
        out.setdefault((r["workload"], r["kernel_variant"], r.get("backend", "")), []).append(r)
    return out


def _num(r, key):
    try:
        v = float(r.get(key))
    except (TypeError, ValueError):
        return math.nan
    return v


def measured_params(rows: list, train_cores) -> dict:
    """Z and D from simulator counters, or {'skipped': reason}."""
    by = {}
    for r in rows:
        by.setdefault(int(float(r["cores"])), []).append(r)
    if 1 not in by or 1 not in train_cores:
        return {"skipped": "no 1-core point to take the think time from"}
    multi = sorted(n for n in train_cores if n > 1)
    if not multi:
        return {"skipped": "no multi-core point to measure the line's transfers"}
    n = multi[0]
    transfers = np.mean([sum(_num(r, k) for k in TRANSFER_KEYS) for r in by[n]])
    latency = np.mean([_num(r, LATENCY_KEY) for r in by[n]])
    one = np.mean([_num(r, "cycles_per_op") for r in by[1]])
    if not all(math.isfinite(x) for x in (transfers, latency, one)):
        return {"skipped": "the rows lack gem5's coherence counters or miss latency (not a gem5 table?)"}
    service = float(transfers * latency)
    if service >= one:
        return {"skipped": f"the measured line demand ({service:.4g} cycles) is not below the 1-core cost "
                           f"({one:.4g}): no think time left"}
    return {"think": float(one - service), "service": service, "at_cores": n,
            "transfers_per_op": float(transfers), "miss_latency": float(latency)}


def mva_predict(think: float, service: float, cores) -> np.ndarray:
    return solvers.mva_curve(np.array([think]), lambda t: np.full(len(t), service), np.asarray(cores))[0]


def _errors(pred, measured) -> list:
    return [float(p / m - 1) for p, m in zip(pred, measured)]


def judge(rows: list, train_max: int, law: str = "crossbar", train_min: int = 1) -> dict:
    """One curve: fit on core counts in [train_min, train_max], report each method's error above.

    train_min = 2 leaves out the 1-core point, where the line never moves (no coherence at
    all); the counter-based model still takes its Z from that point."""
    data = fitlib.prepare(rows)
    train = (data.cores <= train_max) & (data.cores >= train_min)
    held = data.cores > train_max
    out = {"cores": data.cores.tolist(), "throughput": data.throughput.tolist(),
           "train_cores": data.cores[train].tolist(), "held_cores": data.cores[held].tolist()}
    if not held.any():
        out["skipped"] = f"no core count above {train_max} to check the fit on"
        return out
    tdata = fitlib.Data(data.cores[train], data.throughput[train], data.spread[train], data.unit)
    measured = data.throughput[held]
    try:
        f = fitlib.fit(tdata, law)
        s = f.summary()
        out["model"] = {"think": s["think"], "service": s["service"], "r2": s["r2"],
                        "predicted": f.predict(data.cores[held]).tolist()}
        out["model"]["error"] = _errors(out["model"]["predicted"], measured)
    except fitlib.FitError as e:
        out["model"] = {"skipped": str(e)}
    try:
        u = fitlib.fit_usl(tdata)
        pred = solvers.usl_throughput(data.cores[held], u["lambda"], u["sigma"], u["kappa"])
        out["usl"] = dict(u, predicted=pred.tolist(), error=_errors(pred, measured))
    except fitlib.FitError as e:
        out["usl"] = {"skipped": str(e)}
    m = measured_params(rows, set(data.cores[data.cores <= train_max].tolist()))
    if "skipped" not in m:
        pred = mva_predict(m["think"], m["service"], data.cores[held])
        m.update(predicted=pred.tolist(), error=_errors(pred, measured),
                 train_error=_errors(mva_predict(m["think"], m["service"], tdata.cores), tdata.throughput))
    out["measured_model"] = m
    return out


def study(rows: list, train_max: int = 16, min_points: int = 5, law: str = "crossbar", train_min: int = 1) -> dict:
    """Every curve with at least min_points core counts, judged; the rest listed as too short."""
    out = {}
    for (w, v, b), rs in sorted(curves(rows).items()):
        n = len({int(float(r["cores"])) for r in rs})
        key = f"{w}/{v}" + (f"/{b}" if b else "")
        if n < min_points:
            out[key] = {"skipped": f"{n} core counts (a curve needs {min_points})"}
            continue
        out[key] = judge(rs, train_max, law, train_min)
    return out


def _pct(errs) -> str:
    return ", ".join(f"{100 * e:+.1f}%" for e in errs)


def table(result: dict) -> str:
    """The README's table: parameters and hold-out errors, per curve."""
    lines = ["| curve | core counts (fit / held out) | model Z, S (cycles) | model error | USL σ, κ | USL error "
             "| measured Z, S (cycles) | measured-model error |",
             "|---|---|---|---|---|---|---|---|"]
    for key, r in result.items():
        if "skipped" in r:
            lines.append(f"| {key} | {r['skipped']} | | | | | | |")
            continue
        m, u, mm = r["model"], r["usl"], r["measured_model"]
        cols = [key, f"{','.join(map(str, r['train_cores']))} / {','.join(map(str, r['held_cores']))}"]
        cols += (["-", m["skipped"]] if "skipped" in m
                 else [f"{m['think']:.4g}, {m['service']:.4g}", _pct(m["error"])])
        cols += (["-", u["skipped"]] if "skipped" in u
                 else [f"{u['sigma']:.3g}, {u['kappa']:.3g}", _pct(u["error"])])
        cols += (["-", mm["skipped"]] if "skipped" in mm
                 else [f"{mm['think']:.4g}, {mm['service']:.4g} ({mm['transfers_per_op']:.2f} x "
                       f"{mm['miss_latency']:.4g})", _pct(mm["error"])])
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines) + "\n"
