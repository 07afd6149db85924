"""Queueing stations from a run's hot lines (`vmscale hotlines`): one FCFS queue per line.

A cache line that moves between private caches is a server that one core holds at a time.
Each operation visits line k v_k times (its forwarded GETX + GETS per op: the transfers that
hand the line over; invalidations are paid inside the next GETX's latency) and holds it for
s_k: the line's hand-off time where it queued (the time between two forwards while some core wanted
the line throughout: the next requester was already waiting, or a core waiting at the first still
was when the next asked; a write that took the line from its sharers by invalidation falls
between two forwards and is part of that time: `changes` counts such changes per visit), else its
transfer latency (the requester's miss time, which
on a queued line also holds the wait, so it is not a service time there).  Its demand is
D_k = v_k s_k.  The think time is what the 1-core cost leaves, Z = C_1 - sum D_k, so exact
MVA at one core gives the measured 1-core throughput by construction; above it the lines
queue apart, where the counter-based model of `methods.measured_params` lumps every transfer
into one queue.  Pure: rows in (from hotlines.csv), numbers out.
"""

import math

import numpy as np

from vmscale_model import solvers


def _f(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def stations(rows: list, top: int = 0) -> list:
    """One station per ranked line of one case with transfers and a measured latency.

    rows: hotlines.csv rows of one case (the unranked 'rest' row is skipped: it sums many
    lines that each move too rarely to queue).  top: only the first `top` ranks (0: all)."""
    out = []
    for r in rows:
        if not str(r.get("rank") or "").strip():
            continue
        if top and int(r["rank"]) > top:
            continue
        visits = _f(r["getx_per_op"]) + _f(r["gets_per_op"])
        # the line's occupancy per forward while it was wanted throughout (a trace older than that
        # column: the gaps to a requester already waiting, which leave out those where it went to a
        # newcomer while the waiting were served by no forward), else, never queued, its latency
        busy, handoff = _f(r.get("busy_handoff_cycles")), _f(r.get("handoff_cycles"))
        service, source = ((busy, "busy") if busy > 0 else (handoff, "handoff") if handoff > 0
                           else (_f(r["mean_latency_cycles"]), "latency"))
        if not (visits > 0 and service > 0):
            continue
        # the line's ownership changes per visit: a forward's, and a write's that took the line from
        # its sharers by invalidation (a trace older than that column: none); a hand-off between two
        # forwards holds those changes, each a trip over the board
        hidden = _f(r.get("inv_writes_per_op"))
        changes = 1 + (hidden / visits if hidden == hidden and hidden > 0 else 0.0)
        out.append({"name": r["name"], "kind": r["kind"], "visits": visits, "service": service,
                    "demand": visits * service, "service_from": source, "changes": changes})
    return sorted(out, key=lambda s: -s["demand"])


def model(st: list, one_core_cycles: float) -> dict:
    """Think time and demands; a ValueError when the lines' demand leaves no think time."""
    if not st:
        raise ValueError("no hot line with transfers and a measured latency: nothing to queue on")
    total = sum(s["demand"] for s in st)
    if not total < one_core_cycles:
        raise ValueError(f"the hot lines' demand ({total:.4g} cycles per op) is not below the 1-core cost "
                         f"({one_core_cycles:.4g}): no think time left")
    return {"think": one_core_cycles - total, "demands": [s["demand"] for s in st], "demand": total}


def predict(m: dict, cores) -> np.ndarray:
    """Throughput (ops per cycle, all cores) at each core count: exact multi-queue MVA."""
    return np.array([solvers.mva(m["think"], m["demands"], int(n))["throughput"] for n in np.atleast_1d(cores)])
