"""A curve fitted on one interconnect, predicted on another, and judged against its measurement.

The contended-line model is fitted (think Z, service S) on the source board's curve.  On the
target board the line's service changes by what its transfers travel:

    S_to(N) = S + T (c_to H_to(N) - c_from H_from(N))

T the line's ownership transfers per operation (measured on the source at its smallest
multi-core count: a difference of hops per transfer, not a saturation demand), c the cycles per router hop and H(N) the
hops on the line's critical path per transfer, from each board's graph and latencies (the caller
passes them: vmscale_gem5.board.Board.transfer_hops and hop_cycles for gem5 boards).  Nothing of
the target's measurement goes in.  Beside it, two predictions that know less:

- law: the fit re-expressed for an interconnect law (Fit.predict(law=...)), which must assume
  the share of S that is hop traversal (hop_fraction) and the law's mean hops;
- unchanged: the source fit as it is, the prediction a model without an interconnect term
  can offer;
- usl: the Universal Scalability Law fitted to the same source points, the same yardstick the
  study holds every model to.

Where the source was measured at the same core count, the hop prediction is also anchored
there: the source's measurement times the model's ratio of the two boards' throughputs, so
the fit's own error at that count cancels and only the hop term is judged.

Pure: rows and functions in, a dict out.
"""

import math

import numpy as np

from vmscale_model import fit as fitlib
from vmscale_model import methods, solvers
from vmscale_model.study import errors


def transfers_per_op(rows: list, train_cores) -> tuple:
    """(T, core count it was read at): at the smallest multi-core count fitted (methods.transfers_per_op)."""
    multi = sorted(n for n in train_cores if n > 1)
    if not multi:
        raise fitlib.FitError("no multi-core point to measure the line's transfers per operation")
    t = methods.transfers_per_op([r for r in rows if int(float(r["cores"])) == multi[0]])
    if not math.isfinite(t):
        raise fitlib.FitError("the rows lack gem5's coherence counters (l1_fwd_getx/gets per op)")
    return t, multi[0]


def _curve(think: float, service, cores) -> np.ndarray:
    """MVA throughput with a service time per core count."""
    service = np.asarray(service, dtype=float)[None, :]
    return solvers.mva_curve(np.array([think]), lambda _t: service, np.asarray(cores, dtype=int))[0]


def check(source_rows: list, target_rows: list, hops_from, hops_to, hop_cycles: tuple,
          train_max: int = 16, law: str = "mesh", hop_fraction: float = 0.5) -> dict:
    """Fit on the source's core counts <= train_max; predict every target core count.

    hops_from(n), hops_to(n): hops per transfer on each board at n cores (n > 1; at one core
    the line never moves, so the boards do not differ there); hop_cycles: (source, target)
    cycles per hop."""
    c_from, c_to = hop_cycles
    src = fitlib.prepare(source_rows)
    dst = fitlib.prepare(target_rows)
    train = src.cores <= train_max
    f = fitlib.fit(fitlib.Data(src.cores[train], src.throughput[train], src.spread[train], src.unit),
                   hop_fraction=hop_fraction)
    p = f.params()
    t, t_at = transfers_per_op(source_rows, src.cores[train].tolist())
    delta = np.array([(c_to * hops_to(n) - c_from * hops_from(n)) if n > 1 else 0.0 for n in dst.cores])
    service = p["service"] + t * delta
    out = {"source_fit": {"think": float(p["think"]), "service": float(p["service"]), "r2": f.r2,
                          "train_cores": src.cores[train].tolist()},
           "transfers_per_op": t, "transfers_at_cores": t_at, "hop_cycles": [float(c_from), float(c_to)],
           "cores": dst.cores.tolist(), "measured": dst.throughput.tolist(),
           "source_measured": {int(n): float(x) for n, x in zip(src.cores, src.throughput)},
           "hops_from": [float(hops_from(n)) if n > 1 else math.nan for n in dst.cores],
           "hops_to": [float(hops_to(n)) if n > 1 else math.nan for n in dst.cores]}
    by_hops = _curve(p["think"], service, dst.cores)
    predictions = {"hops": by_hops, "law": f.predict(dst.cores, law), "unchanged": f.predict(dst.cores)}
    try:
        u = fitlib.fit_usl(fitlib.Data(src.cores[train], src.throughput[train], src.spread[train], src.unit))
        predictions["usl"] = solvers.usl_throughput(dst.cores, u["lambda"], u["sigma"], u["kappa"])
        out["usl_fit"] = {k: float(u[k]) for k in ("lambda", "sigma", "kappa")}
    except fitlib.FitError as e:        # too few source points for its three parameters
        predictions["usl"] = np.full(len(dst.cores), np.nan)
        out["usl_fit"] = {"skipped": str(e)}
    # Anchored: the source's measurement at the same core count, scaled by what the model says
    # the hops change (the fit's own error at that count cancels).
    src_at = dict(zip(src.cores.tolist(), src.throughput))
    both = [n for n in dst.cores.tolist() if n in src_at]
    ratio = by_hops / predictions["unchanged"]
    anchored = [src_at[n] * r for n, r in zip(dst.cores.tolist(), ratio) if n in src_at]
    out["service_to"] = service.tolist()
    out["interconnect_law"], out["hop_fraction"] = law, hop_fraction
    for name, pred in predictions.items():
        out[name] = {"predicted": [float(x) for x in pred], "error": errors(pred, dst.throughput)}
    measured_both = [x for n, x in zip(dst.cores.tolist(), dst.throughput) if n in src_at]
    out["anchored"] = {"cores": both, "predicted": [float(x) for x in anchored],
                       "error": errors(anchored, measured_both)}
    return out


def table(key: str, r: dict) -> str:
    """One markdown block: the prediction errors at each target core count."""
    head = ("| cores | measured (ops/Mcycle) | hops/transfer from → to | by hops | by hops, anchored | by law "
            "| unchanged | USL |")
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    anchored = dict(zip(r["anchored"]["cores"], r["anchored"]["error"]))
    for i, n in enumerate(r["cores"]):
        hops = ("-" if n == 1 else f"{r['hops_from'][i]:.2f} → {r['hops_to'][i]:.2f}")
        cells = [f"{100 * e:+.1f}%" if math.isfinite(e) else "-"
                 for e in (r[k]["error"][i] for k in ("hops", "law", "unchanged", "usl"))]
        cells.insert(1, f"{100 * anchored[n]:+.1f}%" if n in anchored else "-")
        lines.append(f"| {n} | {1e6 * r['measured'][i]:,.0f} | {hops} | " + " | ".join(cells) + " |")
    sf = r["source_fit"]
    return (f"**{key}**: source fit on {','.join(map(str, sf['train_cores']))} cores: Z = {sf['think']:.4g}, "
            f"S = {sf['service']:.4g} cycles (R² {sf['r2']:.3f}); T = {r['transfers_per_op']:.3f} transfers/op "
            f"(at {r['transfers_at_cores']} cores), c = {r['hop_cycles'][0]:g} → {r['hop_cycles'][1]:g} cycles/hop; "
            f"law `{r['interconnect_law']}` with "
            f"hop share {r['hop_fraction']:g}.\n\n" + "\n".join(lines) + "\n")
