"""A ring of threads handing items on (`pipeline`), carried by the board's distances.

Thread c makes a page, hands it to c+1 through a one-page box, and takes c-1's (guest-workloads/
pipeline.c).  No queue forms anywhere: the boxes hold one page, so every thread goes at the pace of
the slowest, and the slowest is the one whose own work costs most -- a consumer whose predecessor
sits on another socket, as its page's lines (about 140 moves an item) cross the socket link
(`vmscale ring` reads each thread's busy and waiting time from a trace).  A network of stations
with think time has no such coupling and misses the curve by 2x (FINDINGS, session 52).  Per item at
N cores, for thread c:

    busy_c(N) = W + a X(c-1 -> c; N) + b X(c+1 -> c; N) + m R(c; N)
    period(N) = max_c busy_c(N)
    throughput(N) = N / (k period(N))

a, b the lines thread c takes from its predecessor and successor and m its other misses per item,
plus, where munmap's shoot-down is a broadcast (the shared tables), its wait as `shootdowns` carries
it and, where a profile of the case timed the shoot-down IPIs' handler, the time thread c loses to the
others' IPIs (`shootdowns.Received`: one from every other CPU's munmap an item under a broadcast);
X(o -> r) the network cycles of a line moved from core o to core r (r to the line's home bank, the
bank to o, o to r; mean over the homes, as lines are spread over every socket's bank), R(c) a
miss's round trip to its home bank, all on the board's graph (`vmscale_gem5.topology`).  W and the
counts come from the slowest thread of a trace at the largest fitted count (it never waits, so its
busy time is its period), W its busy time less its network cycles there.  k, the window's cycles
per item over that busy time, holds the ROI's fixed part (the first pages' set-up), read at the
traced count.  Nothing is fitted to the curve.

Pure: trace rows, curve rows and a board in, numbers out.
"""

import numpy as np

from vmscale_model import methods, shootdowns


def simulated_period(means, residuals, iters: int = 4000, seed: int = 1) -> float:
    """The period of a ring whose threads' busy times are their means times independent draws of
    `residuals` (busy over its thread's mean): thread c puts its page once it has made it and c+1
    has taken the one before, and takes c-1's once both are put.  The waits of a ring whose threads
    vary independently, against what a trace shows."""
    means, residuals = np.asarray(means, float), np.asarray(residuals, float)
    rng = np.random.default_rng(seed)
    take = np.zeros(len(means))
    start = None
    for i in range(iters):
        busy = means * rng.choice(residuals, len(means))
        put = np.maximum(take + busy, np.roll(take, -1))
        take = np.maximum(put, np.roll(put, 1))
        if i == iters // 8:
            start = take.copy()
    return float(np.mean(take - start) / (iters - 1 - iters // 8))


class Distances:
    """The board's network cycles for one core count: a line's move between two cores, a miss's
    round trip to its home bank."""

    def __init__(self, board, n: int):
        g = board.graph(n)
        banks = list(range(n, n + board.namespace(n).l2_banks))
        self.n, self._g, self._banks = n, g, banks
        self._to, self._from = {}, {}       # a core's mean cycles to and from the banks (thousands of cores)

    def _c(self, a: int, b: int) -> float:
        return self._g.cycles(self._g.ext[a], self._g.ext[b])

    def _to_banks(self, core: int) -> float:
        if core not in self._to:
            self._to[core] = sum(self._c(core, x) for x in self._banks) / len(self._banks)
        return self._to[core]

    def _from_banks(self, core: int) -> float:
        if core not in self._from:
            self._from[core] = sum(self._c(x, core) for x in self._banks) / len(self._banks)
        return self._from[core]

    def move(self, owner: int, requester: int) -> float:
        return self._to_banks(requester) + self._from_banks(owner) + self._c(owner, requester)

    def round_trip(self, core: int) -> float:
        return 2 * self._to_banks(core)


def network(d: Distances, c: int, a: float, b: float, m: float) -> float:
    """Thread c's network cycles per item at d.n cores."""
    n = d.n
    if n < 2:
        return m * d.round_trip(c)
    return a * d.move((c - 1) % n, c) + b * d.move((c + 1) % n, c) + m * d.round_trip(c)


class Ring:
    """The carried ring of one traced case."""

    def __init__(self, rows: list, trace_rows: list, board, ipi_rows=()):
        at = max(int(r["cores"]) for r in trace_rows)
        threads = [r for r in trace_rows if int(r["cores"]) == at]
        slow = max(threads, key=lambda r: methods._num(r, "busy_cycles"))
        window = [methods._num(r, "window_cycles_per_op") for r in rows if int(float(r["cores"])) == at]
        window = [w for w in window if w > 0]
        if not window:
            raise methods.NoModel(f"no window cycles per op at the traced {at} cores")
        self.board, self.at, self.cpu = board, at, int(slow["cpu"])
        self.a, self.b = methods._num(slow, "pred_moves_per_op"), methods._num(slow, "succ_moves_per_op")
        self.m = methods._num(slow, "misses_per_op") + methods._num(slow, "other_moves_per_op")
        self.busy = methods._num(slow, "busy_cycles")
        # a broadcast shoot-down's wait, carried apart: its targets grow with the cores (a targeted one's
        # IPI lines are among the neighbours' moves already)
        sd = shootdowns.Carried([r for r in rows if int(float(r["cores"])) <= at], board.transfer_cycles)
        self.shootdowns = sd if sd and sd.broadcast else None
        # the others' IPIs, where a profile timed their handler (the trace's busy time holds them at `at`)
        got = shootdowns.Received([r for r in rows if int(float(r["cores"])) <= at],
                                  [r for r in ipi_rows if r.get("kind") == "ipi"], board.transfer_cycles)
        self.received = got if got else None
        self.work = (self.busy - network(Distances(board, at), self.cpu, self.a, self.b, self.m)
                     - self.wait(at))
        self.k = sum(window) / len(window) / self.busy    # the model's period there is the slowest's busy time
        self._periods = {}

    def period(self, n: int) -> float:
        n = int(n)
        if n not in self._periods:
            d = Distances(self.board, n)
            like = [c for c in range(n) if self.role(c, n) == self.role(self.cpu, self.at)] or range(n)
            self._periods[n] = (self.work + max(network(d, c, self.a, self.b, self.m) for c in like)
                                + self.wait(n))
        return self._periods[n]

    def wait(self, n: int) -> float:
        return ((self.shootdowns.per_op(n) if self.shootdowns else 0.0)
                + (self.received.per_op(n) if self.received else 0.0))

    def role(self, c: int, n: int) -> tuple:
        """Whether thread c's predecessor and successor sit on other sockets: the slowest thread at
        the traced count is carried as the threads of its role."""
        per = self.board.socket_cores or n
        return ((c - 1) % n // per != c // per, (c + 1) % n // per != c // per)

    def throughput(self, cores) -> np.ndarray:
        return np.array([n / (self.k * self.period(n)) for n in np.atleast_1d(cores)])


class RingOnBoard:
    """`ring`: the pipeline's threads at the pace of the slowest, carried by the board's distances."""
    name = "ring"
    label = "a ring at its slowest thread's pace, carried by the board's distances, not fitted"
    anchored = True
    carried = True      # its curve begins at the largest fitted count: below it the points stand

    def __init__(self, trace_rows: list, board, hold_rows=()):
        self.trace_rows, self.board, self.hold_rows = trace_rows, board, list(hold_rows)

    def fit(self, rows) -> methods.Model:
        top = max(int(float(r["cores"])) for r in rows)
        usable = [r for r in self.trace_rows if int(r["cores"]) <= top]
        if not usable:
            raise methods.NoModel(f"no ring trace at or below {top} cores")
        ring = Ring(rows, usable, self.board, self.hold_rows)
        params = {"traced_at": ring.at, "slowest_cpu": ring.cpu, "work": ring.work, "busy": ring.busy,
                  "pred_moves": ring.a, "succ_moves": ring.b, "misses": ring.m, "window_over_period": ring.k,
                  "shootdowns": ring.shootdowns.describe() if ring.shootdowns else "",
                  "received": ring.received.describe() if ring.received else ""}
        return methods.Model(self.name, params, lambda cores: methods.Prediction(ring.throughput(cores)))

    @staticmethod
    def describe(p) -> str:
        return (f"W {p['work']:.4g} + the slowest thread's network cycles (cpu{p['slowest_cpu']} at {p['traced_at']}: "
                f"{p['pred_moves']:.0f} lines from its predecessor, {p['misses']:.0f} misses an item), "
                f"window/period {p['window_over_period']:.3f}"
                + (f"; {p['shootdowns']}" if p.get("shootdowns") else "")
                + (f"; {p['received']}" if p.get("received") else ""))
