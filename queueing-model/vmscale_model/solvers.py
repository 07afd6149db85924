"""Analytic solvers: Piggin's closed form (eq. 3.9), exact MVA, Amdahl and USL.

Throughputs are operations per unit time (the unit of the think and service times).
"""

import math

import numpy as np

from vmscale_model.network import Model


def piggin_throughput(n, v: float, s: float):
    """Piggin eq. 3.9: N / (T + 1/v) with T the time in the line's queue and service."""
    n = np.asarray(n, dtype=float)
    a = n - 1.0 / (v * s) - 1.0
    t = ((a + np.sqrt(a * a + 4 * n)) / 2 + 1) * s
    return n / (t + 1.0 / v)


def amdahl_throughput(n, v: float, s: float):
    """Piggin eq. 3.14: serial part S, parallel part 1/v."""
    n = np.asarray(n, dtype=float)
    k = s / (s + 1.0 / v)
    return (1.0 / (s + 1.0 / v)) / (k + (1 - k) / n)


def usl_throughput(n, lam: float, sigma: float, kappa: float):
    """Gunther's universal scalability law."""
    n = np.asarray(n, dtype=float)
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def mva(think: float, demands, n: int, growth=None, handoff=None) -> dict:
    """Exact MVA for a closed network: one delay station (think) and FCFS queues.

    growth: per station, how much its demand grows per other customer present; handoff: per
    station, the demand added while another customer waits (a sleeping lock's wake-up of the
    next holder).  A load-dependent station has demand d + g (j - 1) + h [j >= 2] with j
    present.  Such a station is solved
    by load-dependent MVA, through the marginal probabilities p(j | population) of finding
    j there (Reiser and Lavenberg 1980; Menasce et al., Performance by Design, ch. 14).
    Returns throughput, per-station residence times and queue lengths at population n.
    """
    demands = [float(d) for d in demands]
    growth = [float(g) for g in (growth or [0.0] * len(demands))]
    handoff = [float(h) for h in (handoff or [0.0] * len(demands))]
    if len(growth) != len(demands):
        raise ValueError("growth: one value per station")
    if len(handoff) != len(demands):
        raise ValueError("handoff: one value per station")
    ld = [bool(g or h) for g, h in zip(growth, handoff)]

    def d_j(k, j):     # demand with j present
        return demands[k] + growth[k] * (j - 1) + handoff[k] * (j >= 2)
    q = [0.0] * len(demands)
    # p[k][j]: probability of j customers at load-dependent station k (population so far)
    p = [np.array([1.0]) if dep else None for dep in ld]
    x = 0.0
    r = [0.0] * len(demands)
    for pop in range(1, n + 1):
        r = []
        j = np.arange(1, pop + 1)
        for k, d in enumerate(demands):
            if ld[k]:
                r.append(float(np.sum(j * d_j(k, j) * p[k][:pop])))
            else:
                r.append(d * (1 + q[k]))
        x = pop / (think + sum(r))
        for k in range(len(demands)):
            if ld[k]:
                tail = x * d_j(k, j) * p[k][:pop]          # p(j | pop) for j >= 1
                p[k] = np.concatenate(([max(0.0, 1.0 - tail.sum())], tail))
                q[k] = float(np.sum(np.arange(pop + 1) * p[k]))
            else:
                q[k] = x * r[k]
    util = [x * d if not ld[k] else 1.0 - float(p[k][0]) for k, d in enumerate(demands)]
    return {"throughput": x, "residence": r, "queue": q, "utilisation": util, "response": sum(r)}


def mva_throughput(model: Model, n: int) -> float:
    """Throughput of `model` on n cores, service times taken at n (interconnect law)."""
    return mva(model.think, model.demands(n), n, model.growth(), model.handoffs())["throughput"]


def mva_curve(think, demand_at, targets) -> np.ndarray:
    """Throughput at each target core count, vectorised over parameter samples.

    think: array (samples,); demand_at(targets) -> array (samples, targets) for one queue.
    One recursion to max(targets) serves every target, since each target's demand is fixed.
    """
    targets = np.asarray(targets, dtype=int)
    think = np.atleast_1d(np.asarray(think, dtype=float))[:, None]
    d = np.asarray(demand_at(targets), dtype=float)
    if d.ndim == 1:
        d = d[None, :]
    q = np.zeros(np.broadcast_shapes(think.shape, d.shape))
    out = np.zeros_like(q)
    for pop in range(1, int(targets.max()) + 1):
        r = d * (1 + q)
        x = pop / (think + r)
        q = x * r
        hit = targets == pop
        if hit.any():
            out[:, hit] = x[:, hit]
    return out


def ceiling(service: float) -> float:
    """The bound every model shares: one line serves one core at a time, 1/S."""
    return math.inf if service <= 0 else 1.0 / service
