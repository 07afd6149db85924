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

A curve measured at two ROI sizes (operations per thread) at each core count is judged
three ways over: at each size, and on the slope between them, the steady-state cost per
operation with every cost that does not grow with the ROI taken out (cold caches after a
restore, the threads' start and finish skew, per-thread set-up inside the ROI).

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
    """(workload, variant, backend, board) -> the successful rows of that curve.

    board is gem5's non-default options ('gem5.board', e.g. 'l2_assoc=64'; '' for the default
    board and for other backends): points from different boards never join one curve."""
    out = {}
    for r in rows:
        if str(r.get("ok", "True")) in ("False", "false", "0"):
            continue
        key = (r["workload"], r["kernel_variant"], r.get("backend", ""), r.get("gem5.board") or "")
        out.setdefault(key, []).append(r)
    return out


def roi_size(r):
    """Operations per thread in a row's ROI, or None when the row does not say."""
    threads = _num(r, "threads")
    if not threads > 0:
        threads = _num(r, "cores")
    k = _num(r, "ops") / threads
    return k if math.isfinite(k) and k > 0 else None


# Counters whose per-op slope comes from their totals (the miss latency is a mean: taken as is).
SLOPE_COUNTS = {"gem5.l1_fwd_getx_per_op": "gem5.l1_fwd_getx", "gem5.l1_fwd_gets_per_op": "gem5.l1_fwd_gets"}


def slope_rows(rows: list) -> tuple:
    """One row per core count measured at two ROI sizes: the steady-state cost per operation.

    With per-thread cycles C = F + c k at k operations per thread, c = (C2 - C1) / (k2 - k1)
    from the smallest and the largest size (means over repeats), and F = C1 - c k1 is the
    ROI's fixed part, reported as `roi_fixed_cycles`.  Returns (rows, notes): core counts
    measured at one size only, or whose slope is not positive, are left out with a note.
    """
    by = {}
    for r in rows:
        by.setdefault(int(float(r["cores"])), {}).setdefault(roi_size(r), []).append(r)
    out, notes = [], []
    for n in sorted(by):
        sizes = sorted(k for k in by[n] if k is not None)
        if len(sizes) < 2:
            notes.append(f"{n} cores: one ROI size only")
            continue
        small, big = by[n][sizes[0]], by[n][sizes[-1]]
        k1, k2 = sizes[0], sizes[-1]
        c1 = np.mean([_num(r, "cycles_per_op") for r in small]) * k1
        c2 = np.mean([_num(r, "cycles_per_op") for r in big]) * k2
        slope = (c2 - c1) / (k2 - k1)
        if not slope > 0:
            notes.append(f"{n} cores: per-thread cycles do not grow with the ROI ({c1:.0f} at {k1:g}, "
                         f"{c2:.0f} at {k2:g} ops)")
            continue
        row = dict(big[0], cycles_per_op=float(slope), roi_fixed_cycles=float(c1 - slope * k1),
                   roi_sizes=f"{k1:g}/{k2:g}")
        ops1 = np.mean([_num(r, "ops") for r in small])
        ops2 = np.mean([_num(r, "ops") for r in big])
        for per_op, total in SLOPE_COUNTS.items():
            t1 = np.mean([_num(r, total) for r in small])
            t2 = np.mean([_num(r, total) for r in big])
            row[per_op] = float((t2 - t1) / (ops2 - ops1)) if math.isfinite(t1 + t2) else math.nan
        out.append(row)
    return out, notes


def _num(r, key):
    try:
        v = float(r.get(key))
    except (TypeError, ValueError):
        return math.nan
    return v


def transfers_per_op(rows: list) -> float:
    """The contended line's ownership transfers per operation: forwarded GETX + GETS per op (mean)."""
    return float(np.mean([sum(_num(r, k) for k in TRANSFER_KEYS) for r in rows]))


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
    transfers = transfers_per_op(by[n])
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


def band_grid(top: int) -> np.ndarray:
    """Core counts to draw a band over: powers of two and their midpoints up to 4x the data."""
    g = sorted({int(round(2 ** (k / 2))) for k in range(0, 2 * int(math.log2(max(top, 1) * 4)) + 1)})
    return np.array(g)


def errors(pred, measured) -> list:
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
        out["model"]["error"] = errors(out["model"]["predicted"], measured)
        # 5-95% band from the fit's parameter covariance: does the held-out point fall inside?
        lo, hi = f.band(data.cores[held])
        out["model"]["band"] = {"low": lo.tolist(), "high": hi.tolist(),
                                "inside": [bool(a <= m <= b) for a, m, b in zip(lo, measured, hi)]}
        grid = band_grid(int(data.cores.max()))
        glo, ghi = f.band(grid)
        out["model"]["band_grid"] = {"cores": grid.tolist(), "low": glo.tolist(), "high": ghi.tolist()}
    except fitlib.FitError as e:
        out["model"] = {"skipped": str(e)}
    try:
        u = fitlib.fit_usl(tdata)
        pred = solvers.usl_throughput(data.cores[held], u["lambda"], u["sigma"], u["kappa"])
        out["usl"] = dict(u, predicted=pred.tolist(), error=errors(pred, measured))
    except fitlib.FitError as e:
        out["usl"] = {"skipped": str(e)}
    m = measured_params(rows, set(data.cores[data.cores <= train_max].tolist()))
    if "skipped" not in m:
        pred = mva_predict(m["think"], m["service"], data.cores[held])
        m.update(predicted=pred.tolist(), error=errors(pred, measured),
                 train_error=errors(mva_predict(m["think"], m["service"], tdata.cores), tdata.throughput))
    out["measured_model"] = m
    return out


def study(rows: list, train_max: int = 16, min_points: int = 5, law: str = "crossbar", train_min: int = 1) -> dict:
    """Every curve with at least min_points core counts, judged; the rest listed as too short.

    A curve with several ROI sizes becomes one curve per size (`.../ops=K`) and the slope
    curve (`.../slope`), so sizes are never averaged together."""
    out = {}
    for (w, v, b, board), rs in sorted(curves(rows).items()):
        key = f"{w}/{v}" + (f"/{b}" if b else "") + (f"[{board}]" if board else "")
        sizes = sorted({roi_size(r) for r in rs} - {None})
        if len(sizes) < 2:
            out[key] = _judge_curve(rs, train_max, min_points, law, train_min)
            continue
        for k in sizes:
            out[f"{key}/ops={k:g}"] = _judge_curve([r for r in rs if roi_size(r) == k], train_max, min_points,
                                                   law, train_min)
        srows, notes = slope_rows(rs)
        out[f"{key}/slope"] = _judge_curve(srows, train_max, min_points, law, train_min)
        if notes:
            out[f"{key}/slope"]["notes"] = notes
        if srows:
            out[f"{key}/slope"]["roi_fixed_cycles"] = {int(float(r["cores"])): r["roi_fixed_cycles"] for r in srows}
    return out


def study_table(table, train_max: int = 16, min_points: int = 5, law: str = "crossbar", train_min: int = 1,
                workload=None) -> dict:
    """study() of a table file (missing file, no rows and failed rows handled by load_table)."""
    return study(fitlib.load_table(table, workload), train_max, min_points, law, train_min)


def _judge_curve(rows, train_max, min_points, law, train_min) -> dict:
    n = len({int(float(r["cores"])) for r in rows})
    if n < min_points:
        return {"skipped": f"{n} core counts (a curve needs {min_points})"}
    return judge(rows, train_max, law, train_min)


def _inside(m) -> str:
    inside = m.get("band", {}).get("inside")
    return "" if inside is None else " (in band: " + ", ".join("yes" if i else "no" for i in inside) + ")"


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
                 else [f"{m['think']:.4g}, {m['service']:.4g}", _pct(m["error"]) + _inside(m)])
        cols += (["-", u["skipped"]] if "skipped" in u
                 else [f"{u['sigma']:.3g}, {u['kappa']:.3g}", _pct(u["error"])])
        cols += (["-", mm["skipped"]] if "skipped" in mm
                 else [f"{mm['think']:.4g}, {mm['service']:.4g} ({mm['transfers_per_op']:.2f} x "
                       f"{mm['miss_latency']:.4g})", _pct(mm["error"])])
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines) + "\n"
