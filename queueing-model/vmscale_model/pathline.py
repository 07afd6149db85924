"""A per-event cost carried past the profiled core counts by the board's mean transfer path.

A lock's hold, its hand-off to a waiter, the wait per shoot-down target and an IPI handler's time are
each measured at a few core counts and hold transfers whose trip lengthens as the cores span more
sockets.  Each is carried the same way: the line through the two largest measured counts whose
transfer paths differ, against the board's mean transfer path C(N),

    y(N) = y(n0) + m (C(N) - C(n0)),   m = max(0, (y(n0) - y(n1)) / (C(n0) - C(n1)))

n0 the largest count, n1 the largest below it on another path; m = 0 with one count, or where the
path does not grow from n1 to n0 (a cost never carried down a shorter path than it was measured on).
Pure: numbers and a function in, a line out.
"""

import math
from typing import NamedTuple


class PathLine(NamedTuple):
    at: int                 # n0, the largest measured count
    value: float            # y(n0)
    slope: float            # m, per cycle of the mean transfer path
    step: float = 0.0       # C(n0) - C(n1): 0 with one count
    below: int = 0          # n1 (0: none)

    def __call__(self, n: int, transfer) -> float:
        """y(n) on the board whose mean transfer path at n cores is transfer(n)."""
        if not self.slope:
            return self.value
        return self.value + self.slope * (float(transfer(n)) - float(transfer(self.at)))


def through(points: dict, transfer) -> PathLine:
    """The line through {cores: y} (module docstring); transfer(n): the board's mean path at n cores."""
    if not points:
        raise ValueError("a path line needs at least one measured count")
    counts = sorted(points)
    n0 = counts[-1]
    c0 = float(transfer(n0))
    below = [n for n in counts[:-1] if float(transfer(n)) != c0]
    if not below:
        return PathLine(n0, float(points[n0]), 0.0)
    n1 = below[-1]
    dc = c0 - float(transfer(n1))
    m = (float(points[n0]) - float(points[n1])) / dc if dc > 0 else 0.0
    return PathLine(n0, float(points[n0]), max(0.0, m) if math.isfinite(m) else 0.0, dc, n1)


class Waiters(NamedTuple):
    per_waiter: float       # w: cycles added per other core present, >= 0
    stderr: float = 0.0     # w's standard error (0 with two counts: no residual left)
    counts: tuple = ()      # the counts w was read from


def waiters(points: dict, weights: dict, transfer) -> Waiters:
    """How a per-event cost grows with the other cores present, on one transfer path: the weighted
    least-squares slope of y against n - 1 over the measured counts n >= 2 that share the smallest
    such count's path (one socket: no trip lengthens), weights the events seen at each.  A queue's
    cost that grows with its queue (a released rw_semaphore wakes every reader queued) shows there,
    where the path does not move.  w = 0 with fewer than two such counts, a slope that falls, or no
    measured count on a longer path: on an interconnect where every count shares one path (a crossbar
    the model carries a profile to) the counts' growth is not told apart from the path's."""
    counts = sorted(n for n in points if n >= 2 and weights.get(n, 0) > 0)
    if len(counts) < 2:
        return Waiters(0.0)
    c0 = float(transfer(counts[0]))
    same = [n for n in counts if float(transfer(n)) == c0]
    if len(same) < 2 or len(same) == len(counts):
        return Waiters(0.0)
    x = [n - 1.0 for n in same]
    y = [float(points[n]) for n in same]
    wt = [float(weights[n]) for n in same]
    sw = sum(wt)
    xm = sum(a * b for a, b in zip(wt, x)) / sw
    ym = sum(a * b for a, b in zip(wt, y)) / sw
    sxx = sum(a * (b - xm) ** 2 for a, b in zip(wt, x))
    slope = sum(a * (b - xm) * (c - ym) for a, b, c in zip(wt, x, y)) / sxx
    se = 0.0
    if len(same) > 2:       # weights are events seen, so the residuals' scale is estimated
        res = sum(a * (c - ym - slope * (b - xm)) ** 2 for a, b, c in zip(wt, x, y))
        se = (res / (len(same) - 2) / sxx) ** 0.5
    if not (math.isfinite(slope) and slope > 0):
        return Waiters(0.0, se, tuple(same))
    return Waiters(slope, se, tuple(same))
