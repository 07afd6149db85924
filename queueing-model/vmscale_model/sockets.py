"""A curve carried past the sockets it was fitted on, by the board's own distances.

The contended-line model is fitted (think Z, service S) on the core counts up to n0, all on a
board's first sockets.  Beyond them the cores spread over more sockets and a line's home (L2
bank, memory channel) is as often on another socket, so every miss of an operation and every
transfer of its contended line travels farther:

    Z(N) = Z + M (R_bank(N) - R_bank(n0)) + F (R_mem(N) - R_mem(n0))
    S(N) = S + T (C(N) - C(n0))

M the L1 demand misses per operation, F the memory fetches per operation and T the line's
ownership transfers per operation, all read at n0; R and C the mean network cycles of a miss's
round trips and of a transfer's critical path, from the board's graph and latencies (the caller
passes them: vmscale_gem5.board.Board.miss_cycles and transfer_cycles).  Nothing of the held-out
points goes in.  Beside it, the same fit unchanged and the USL fitted to the same points.

Pure: rows and functions in, a dict out.
"""

import math

import numpy as np

from vmscale_model import fit as fitlib
from vmscale_model import methods, solvers
from vmscale_model.study import errors

MISS_KEY = "gem5.l1d_demand_misses_per_op"


def per_op(rows: list) -> dict:
    """M, F and T at one core count, mean over its rows."""
    def mean(values):
        values = [v for v in values if math.isfinite(v)]
        return float(np.mean(values)) if values else math.nan
    m = mean(methods._num(r, MISS_KEY) for r in rows)
    # an empty cell beside the other counters: the ROI's stats had no such line, read as none counted
    f = mean((methods._num(r, "gem5.dir_fetch") if r.get("gem5.dir_fetch") not in (None, "") else 0.0)
             / methods._num(r, "ops") for r in rows)
    t = methods.transfers_per_op(rows)
    if not all(math.isfinite(x) for x in (m, f, t)):
        raise fitlib.FitError("the rows lack gem5's counters (L1 misses, directory fetches, forwarded GETX/GETS)")
    return {"misses": m, "memory_fetches": f, "transfers": t}


def predict(rows: list, train_max: int, miss_cycles, transfer_cycles) -> dict:
    """Fit on core counts <= train_max; predict every core count of the rows.

    miss_cycles(n) -> {"l1_bank": cycles, "bank_memory": cycles}; transfer_cycles(n) -> cycles."""
    d = fitlib.prepare(rows)
    train = d.cores <= train_max
    if train.sum() < 2 or train.all():
        raise fitlib.FitError(f"fit on <= {train_max} cores needs two fitted core counts and one held out "
                              f"(core counts: {d.cores.tolist()})")
    f = fitlib.fit(fitlib.Data(d.cores[train], d.throughput[train], d.spread[train], d.unit))
    p = f.params()
    n0 = int(d.cores[train].max())
    k = per_op([r for r in rows if int(float(r["cores"])) == n0])
    cores = d.cores.tolist()
    miss = {n: miss_cycles(n) for n in set(cores) | {n0}}      # each builds the board's graph once
    transfer = {n: float(transfer_cycles(n)) for n in set(cores) | {n0}}
    r0, c0 = miss[n0], transfer[n0]
    think, service = [], []
    for n in cores:
        think.append(p["think"] + k["misses"] * (miss[n]["l1_bank"] - r0["l1_bank"])
                     + k["memory_fetches"] * (miss[n]["bank_memory"] - r0["bank_memory"]))
        service.append(p["service"] + (k["transfers"] * (transfer[n] - c0) if n > 1 else 0.0))
    by_board = np.array([solvers.mva(z, [s], n)["throughput"] for z, s, n in zip(think, service, cores)])
    predictions = {"board": by_board, "unchanged": f.predict(d.cores)}
    out = {"fit": {"think": float(p["think"]), "service": float(p["service"]), "r2": f.r2,
                   "train_cores": d.cores[train].tolist()},
           "at": n0, "per_op": k, "cores": cores, "measured": d.throughput.tolist(),
           "think": think, "service": service,
           "miss_cycles": [miss[n] for n in cores], "transfer_cycles": [transfer[n] for n in cores]}
    try:
        u = fitlib.fit_usl(fitlib.Data(d.cores[train], d.throughput[train], d.spread[train], d.unit))
        predictions["usl"] = solvers.usl_throughput(d.cores, u["lambda"], u["sigma"], u["kappa"])
    except fitlib.FitError as e:     # too few points for its three parameters
        predictions["usl"] = np.full(len(d.cores), np.nan)
        out["usl_skipped"] = str(e)
    for name, pred in predictions.items():
        out[name] = {"predicted": [float(x) for x in pred], "error": errors(pred, d.throughput)}
    return out


def table(key: str, r: dict) -> str:
    """One markdown block: each core count's measurement and each prediction's error."""
    lines = ["| cores | measured (ops/Mcycle, window throughput) | held out | miss round trip to bank (cycles) | Z(N) | S(N) "
             "| by the board | unchanged fit | USL |", "|---|---|---|---|---|---|---|---|---|"]
    fitted = set(r["fit"]["train_cores"])
    for i, n in enumerate(r["cores"]):
        cells = [f"{100 * e:+.1f}%" if math.isfinite(e) else "-"
                 for e in (r[k]["error"][i] for k in ("board", "unchanged", "usl"))]
        lines.append(f"| {n} | {1e6 * r['measured'][i]:,.1f} | {'' if n in fitted else 'yes'} | "
                     f"{r['miss_cycles'][i]['l1_bank']:.0f} | {r['think'][i]:,.0f} | {r['service'][i]:,.1f} | "
                     + " | ".join(cells) + " |")
    k = r["per_op"]
    return (f"**{key}**: fitted on {','.join(map(str, r['fit']['train_cores']))} cores: Z = {r['fit']['think']:,.0f}, "
            f"S = {r['fit']['service']:.4g} cycles (R² {r['fit']['r2']:.3f}); at {r['at']} cores per op: "
            f"{k['misses']:.1f} L1 misses, {k['memory_fetches']:.2f} memory fetches, {k['transfers']:.2f} line "
            f"transfers.\n\n" + "\n".join(lines) + "\n")
