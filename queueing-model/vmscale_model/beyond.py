"""Predictions far past the simulated machine: 1,024 and 4,096 cores on other interconnects.

The hot-line model carried by a board's distances (hotcarried: nothing fitted to the curve, the
stations traced and profiled at <= 20 cores) is the method the reference board's held-out points
judge best; what it needs from a machine is two numbers per core count, the mean network cycles of
a contended line's transfer and of a miss's round trips.  So it predicts any interconnect the board
type can describe from the same calibrated link, router and socket latencies: the sockets topology
(the reference board, more sockets of ten cores on a Moebius ladder), a crossbar (every transfer
one router away, whatever the size) and a mesh (paths growing with its side).  Each prediction has
a band from the lock profile's sampling error (hotcarried.BAND_Z; the hot-line trace counts every
transfer); the USL fitted to the same points is beside it, the same on every interconnect (it has
no notion of one).  A ring of threads (`pipeline`, given its ring.csv) is carried by `ring` too: its
slowest thread's lines from its neighbours and its misses, on each interconnect's distances.  How
far to trust any of them: the held-out errors at 4x and 8x (study), not the band.

Pure: rows in, rows out (the CLI reads the files and draws).
"""

import numpy as np

from vmscale_model import hotcarried, methods, phases, ring, study

TOPOLOGIES = ("sockets", "crossbar", "mesh")
CORES = (160, 1024, 4096)
FIGURE_CORES = (1, 2, 4, 10, 20, 40, 80, 160, 320, 640, 1024, 4096)     # the figures' line


def board_on(label: str, topology: str):
    """The board of a row label with its interconnect replaced (sockets: the label's own)."""
    from vmscale_gem5.board import Board
    return Board.make(label if topology == "sockets" else f"{label} topology={topology}")


def curves(rows: list, train_max: int) -> dict:
    """(workload, variant, board label, ROI size) -> rows: the gem5 curves on a named board with a
    1-core point and at least three core counts up to train_max, one per ROI size."""
    out = {}
    for (w, v, backend, label), rs in study.curves(rows).items():
        if backend != "gem5" or not label:
            continue
        for k in sorted({study.roi_size(r) for r in rs} - {None}):
            sized = [r for r in rs if study.roi_size(r) == k]
            known = {int(float(r["cores"])) for r in sized if int(float(r["cores"])) <= train_max}
            if 1 in known and len(known) >= 3:
                out[(w, v, label, k)] = sized
    return out


def predict(rows: list, traces: list, holds: list, train_max: int = 20, cores=CORES,
            topologies=TOPOLOGIES, progress=None, rings=()) -> list:
    """One row per curve, method, interconnect and core count: {workload, variant, board, ops,
    method, interconnect, cores, throughput, low, high, measured} (throughput in operations per cycle
    of the machine; measured where the table has the point on that interconnect).  rings: a
    ring.csv's rows (`vmscale ring`), for the curves that are a ring of threads (`pipeline`)."""
    out = []
    for (w, v, label, k), rs in sorted(curves(rows, train_max).items()):
        def mine(rs_):
            return [r for r in rs_ if r.get("workload") == w and r.get("kernel_variant") == v
                    and r.get("board", label) == label]
        trace, held, ringed = mine(traces), mine(holds), mine(rings)
        if not trace and not ringed:
            continue
        known = [r for r in rs if int(float(r["cores"])) <= train_max]
        measured = {int(float(r["cores"])): float(r["window_ops_per_cycle"]) for r in rs}
        base = {"workload": w, "variant": v, "board": label, "ops": k}
        fitted = []
        for topo in topologies:
            board = board_on(label, topo)
            chosen = [hotcarried.HotLocksOnBoard(trace, held, board) if held
                      else hotcarried.HotLinesOnBoard(trace, board)] if trace else []
            if held and w in phases.REARM:      # its rounds' phases in step, as the study judges it too
                chosen.append(hotcarried.HotPhasesOnBoard(trace, held, board, w))
            if ringed:          # a ring of threads (pipeline): its slowest thread's pace on this interconnect
                chosen.append(ring.RingOnBoard(ringed, board, held))
            for method in chosen:
                try:
                    fitted.append((topo, method.name, method.fit(known)))
                except methods.NoModel as e:
                    if progress:
                        progress(f"{w}/{v} on {topo}: {method.name}: {e}")
                    if type(method) is hotcarried.HotLocksOnBoard:    # no lock profiled at the fitted
                        chosen.append(hotcarried.HotLinesOnBoard(trace, board))    # counts: the hot lines alone
        try:
            fitted.append(("any", "usl", methods.USL().fit(known)))
        except (methods.NoModel, ValueError) as e:
            if progress:
                progress(f"{w}/{v} USL: {e}")
        for topo, name, model in fitted:
            if progress:
                progress(f"{w}/{v} ({k:g} ops per thread): {name} on {topo} to {max(cores)} cores")
            p = model.predict(np.asarray(cores))
            for i, n in enumerate(cores):
                out.append(dict(base, method=name, interconnect=topo, cores=int(n), throughput=float(p.throughput[i]),
                                low=float(p.low[i]) if p.low is not None else float("nan"),
                                high=float(p.high[i]) if p.high is not None else float("nan"),
                                measured=measured.get(int(n), float("nan")) if topo in ("sockets", "any")
                                else float("nan")))
    return out


def table_md(pred: list) -> str:
    """The predictions as a markdown table: one row per curve and interconnect, window cycles per
    operation per thread (cores / throughput: what a thread's operation costs; flat is linear
    scaling) at each core count, with the band where it is wider than 0.5%."""
    cores = sorted({p["cores"] for p in pred})
    lines = ["| curve | method | interconnect | " + " | ".join(f"{n} cores" for n in cores) + " |",
             "|---|---|---|" + "---|" * len(cores)]
    keys = []
    for p in pred:
        key = (p["workload"], p["variant"], p["ops"], p["method"], p["interconnect"])
        if key not in keys:
            keys.append(key)
    for key in keys:
        cells = []
        for n in cores:
            (p,) = [p for p in pred if (p["workload"], p["variant"], p["ops"], p["method"], p["interconnect"]) == key
                    and p["cores"] == n]
            cell = f"{n / p['throughput']:,.0f}"
            if p["low"] == p["low"] and p["high"] > p["low"] * 1.005:
                cell += f" ({n / p['high']:,.0f}-{n / p['low']:,.0f})"
            if p["measured"] == p["measured"]:
                cell += f"; measured {n / p['measured']:,.0f} ({p['throughput'] / p['measured'] - 1:+.1%})"
            cells.append(cell)
        w, v, k, m, t = key
        lines.append(f"| {w} / {v} ({k:g} ops per thread) | {m} | {t} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
