"""TLB shoot-downs a design broadcasts, carried past the fitted core counts.

A RadixVM design with shared page tables (radixvm, radixvm-atomic) flushes, on every munmap, the
TLBs of every CPU the address space ran on, and its initiator waits for them all (vr_flush in
kernel patch 0008, which counts the shoot-downs, their targets and the TSC cycles spent in them:
the ROI's vmstat.radix_shootdown_*).  That wait is neither a hot line nor a lock: no core
queues for it, yet it grows with the cores twice over, one target more per core and a longer trip
to each as the cores span more sockets.  `pageshare` at 20 and 40 cores spends 48-68% of an
operation in it.  Per operation at N cores:

    S(N) = t(N) p(N)
    t(N) = t(n0) (N - 1) / (n0 - 1)            where the fitted counts' targets follow N - 1 (a broadcast),
           t(n0)                               else (targeted: the CPUs that held the page)
    p(N) = p(n0) + m (C(N) - C(n0)),  m = (p(n0) - p(n1)) / (C(n0) - C(n1))

t the targets per operation, p the cycles per target, n0 and n1 the two largest fitted counts with
shoot-downs (and different transfer paths), C(N) the board's mean transfer path: the line
through two measured counts that carries a lock's hold too (vmscale_model.pathline).  A core waiting for its
acknowledgements takes the others' IPIs meanwhile, so p holds the handler time that falls inside
the initiator's own wait.  Nothing is fitted to the curve.

The receivers' side (`Received`): every CPU a shoot-down targets takes an IPI and runs the flush in
its handler, time its own operations lose, which no initiator's wait holds.  Per operation at N cores

    I(N) = q(N) h(N)

q the IPIs a CPU receives per operation of its own (the kernel's vmstat nr_tlb_remote_flush_received,
per operation), scaled by (N - 1) / (n0 - 1) as t(N) is where the fitted counts show a broadcast;
h the handler's cycles per IPI from a profiled run's sampled symbols (holds.csv rows of kind 'ipi',
`vmscale threads`), on the line through two profiled counts against the board's path (as p).
Where the profile read the IPIs as episodes on its time line (vmscale.ipis: entry to return, and what
each interrupted), h is theirs and I(N) keeps only the share w that interrupted the CPU's work: the
handler time inside its own shoot-down's wait is in p already, and an idle CPU's loses no operation,

    I(N) = q(N) h(N) w

w measured at the top profiled count.  A row without the split (a profile made before it: the
handler's symbols only, which miss the entry code and the queue's walk) counts all of it (w = 1).
Pure: rows and functions in, numbers out.
"""

import math

from vmscale_model import methods, pathline

CYCLES, TARGETS = "vmstat.radix_shootdown_cycles", "vmstat.radix_shootdown_targets"
RECEIVED = "vmstat.nr_tlb_remote_flush_received"
BROADCAST = 0.25        # targets per other CPU at n0 and n1 within this share of each other: a broadcast


def measured(rows: list) -> dict:
    """{cores: (targets per op, cycles per target)} where the ROI had shoot-downs with targets."""
    acc = {}
    for r in rows:
        n, ops = int(float(r["cores"])), methods._num(r, "ops")
        t, c = methods._num(r, TARGETS), methods._num(r, CYCLES)
        if n > 1 and ops > 0 and t > 0 and c > 0:
            a = acc.setdefault(n, [0.0, 0.0, 0.0])
            a[0], a[1], a[2] = a[0] + ops, a[1] + t, a[2] + c
    return {n: (t / ops, c / t) for n, (ops, t, c) in acc.items()}


class Carried:
    """S(N) from the fitted rows of one curve; transfer(n): the board's mean transfer path at n cores."""

    def __init__(self, rows: list, transfer):
        seen = measured(rows)
        counts = sorted(seen)
        self.n0 = counts[-1] if counts else None
        if self.n0 is None:
            self.targets = self.per_target = self.slope = 0.0
            self.broadcast = False
            return
        self._transfer = transfer
        self.targets = seen[self.n0][0]
        self.line = pathline.through({n: c for n, (_, c) in seen.items()}, transfer)
        self.per_target, self.slope, self.n1 = self.line.value, self.line.slope, self.line.below or None
        # whether the targets follow N - 1 is the kernel's choice, not the path's: any lower count says
        # (on a crossbar every count has the same path, and the line has no n1)
        lower = counts[:-1]
        self.broadcast = bool(lower) and _broadcast(self.targets, self.n0, seen[lower[-1]][0], lower[-1])

    def __bool__(self):
        return self.n0 is not None

    def per_op(self, n: int) -> float:
        """Cycles per operation waiting for shoot-downs at n cores (0 at one core)."""
        if self.n0 is None or n <= 1:
            return 0.0
        t = self.targets * (n - 1) / (self.n0 - 1) if self.broadcast else self.targets
        p = self.line(n, self._transfer)
        return t * max(0.0, p) if math.isfinite(p) else 0.0

    def describe(self) -> str:
        if self.n0 is None:
            return ""
        kind = "to every other CPU" if self.broadcast else "targeted"
        return (f"shoot-downs {kind}: {self.targets:.3g} targets/op x {self.per_target:.4g} cycles at {self.n0}"
                f" (+{self.slope:.2g} per transfer cycle)")


def _broadcast(r0: float, n0: int, r1: float, n1: int) -> bool:
    """Counts per operation at n0 and n1 cores that follow N - 1: each other CPU's share within BROADCAST."""
    a, b = r0 / (n0 - 1), r1 / (n1 - 1)
    return abs(a - b) <= BROADCAST * max(a, b)


class Received:
    """I(N), the receivers' handler time per operation (module docstring), from the fitted rows of one
    curve and its profiles' 'ipi' rows (holds.csv, with cores) up to the largest fitted count."""

    def __init__(self, rows: list, ipi_rows: list, transfer):
        acc = {}
        for r in rows:
            n, ops, q = int(float(r["cores"])), methods._num(r, "ops"), methods._num(r, RECEIVED)
            if n > 1 and ops > 0 and q > 0:
                a = acc.setdefault(n, [0.0, 0.0])
                a[0], a[1] = a[0] + ops, a[1] + q
        per = {n: q / ops for n, (ops, q) in acc.items()}
        fitted = max((int(float(r["cores"])) for r in rows), default=0)
        held, work = {}, {}
        for r in ipi_rows:
            n, h = int(float(r["cores"])), methods._num(r, "hold_cycles")
            if r.get("kind") == "ipi" and n <= fitted and h > 0:
                held[n] = h
                w = methods._num(r, "work_share")
                work[n] = w if 0 <= w <= 1 else 1.0     # a row without the split: all of it
        self._transfer = transfer
        self.n0 = max(per) if per and held else None
        if self.n0 is None:
            return
        self.q = per[self.n0]
        lower = [n for n in sorted(per) if n < self.n0]
        self.broadcast = bool(lower) and _broadcast(self.q, self.n0, per[lower[-1]], lower[-1])
        self.line = pathline.through(held, transfer)
        self.h_at, self.h, self.slope = self.line.at, self.line.value, self.line.slope
        self.work = work[self.h_at]

    def __bool__(self):
        return self.n0 is not None

    def per_op(self, n: int) -> float:
        """Cycles per operation a CPU spends handling others' shoot-down IPIs at n cores (0 at one)."""
        if self.n0 is None or n <= 1:
            return 0.0
        q = self.q * (n - 1) / (self.n0 - 1) if self.broadcast else self.q
        h = self.line(n, self._transfer)
        return q * max(0.0, h) * self.work if math.isfinite(h) else 0.0

    def describe(self) -> str:
        if self.n0 is None:
            return ""
        return (f"IPIs received {self.q:.3g}/op at {self.n0}{' (a broadcast)' if self.broadcast else ''}"
                f" x {self.h:.4g} handler cycles at {self.h_at} (+{self.slope:.2g} per transfer cycle)"
                + (f", {self.work:.0%} of it interrupting work" if self.work < 1 else ""))
