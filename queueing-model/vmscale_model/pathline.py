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
