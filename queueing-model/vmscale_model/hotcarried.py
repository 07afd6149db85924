"""Hot-line stations carried past their sockets by the board's distances.

The hot-line model (hotstations) queues an operation on every line a trace saw move, with the
line's measured hand-off time, and charges the rest of the 1-core cost as think time.  That holds
where the trace was made.  Beyond it the cores spread over more sockets, and two things grow that a
trace at n_t cores cannot show:

    Z(N)   = Z + M (R_bank(N) - R_bank(1)) + F (R_mem(N) - R_mem(1)) + S(N) + I(N)
    s_k(N) = s_k + c_k max(0, C(N) - C(n_t))

Z = C_1 - sum_k v_k s_k, the work outside the hot lines (the 1-core cost C_1 less the lines'
demand); M the L1 demand misses not on a hot line (the misses per operation at the largest fitted
core count less the lines' visits) and F the memory fetches per operation there, each paying the
round trip to its home bank (and memory channel) of the board at N cores instead of at one; S(N) the
wait for the TLB shoot-downs a RadixVM design broadcasts, carried, and, where a profile sampled it, the
receivers' time in the shoot-down IPIs' handler (vmscale_model.shootdowns); s_k
line k's traced hand-off, which grows by the board's mean transfer path past the trace's (never
shrinks below what was traced) once for each of the c_k ownership changes a visit holds: 1 for a
line only written (a shared atomic), more for one also read, where a write often takes the line
from its sharers by invalidation between two forwards (`fault`'s rwsem lines: 1.44-1.52 at 20 cores;
traced at 80, rwlock's mmap_lock line was busy throughout: 742 cycles a queued hand-off, 1.70 changes each).

Z is then anchored at the largest fitted count n0 (anchor()): a constant is added to Z(N) so that
the method's own solution at n0 meets the measured point there.  It is the work outside the queues
that n0 cores do beyond what one core's cost left: communication on no traced line (`reclaim`'s
neighbour reads of each published node: 1.15 misses per operation at one core, 3.8-4.3 from two on),
or a queue the trace does not hold (Linux's `local`: 5.9 M cycles an operation at 20 cores for its lines
alone, 3.7 M beside mmap_lock's cycle as a lock station, which saturates past 20 cores, so that there
the constant changes no prediction).  The held-out counts are then carried from n0 as the no-queue
method (sockets.Distances) carries its cost; the one-core point is no longer met by construction.
Where the queues alone are slower than the measured point, Z(n0) stops at 0.

A line the trace found saturated (utilisation >= sockets.SATURATED at n_t) with v_k < 1 is held for
runs of 1 / v_k operations: the owner keeps working while the next request travels, so a longer
path lengthens its runs as well as its hand-offs, and the line's visits per operation fall.  Its
demand follows sockets.ownership_runs (that module's docstring), from the trace's v_k and s_k
instead of a fitted S.  R and C are the board's
(vmscale_gem5.board.Board.miss_cycles, transfer_cycles: the caller passes them).  Exact MVA with
one queue per line and Z(N) as delay.  Nothing is fitted to the held-out counts: the trace, the
1-core and the largest fitted count's costs, the counters at the fitted counts and the board's graph.

Locks (`HotLocksOnBoard`): a spinlock that CPUs queue on serves each for its holder's hold, not
for its line's hand-off.  With the lock holds of a profiled run of the case (`vmscale threads`'
holds.csv, at the largest profiled count n_h not above the fitted ones) each lock is a station too:
visits v = holds per operation (pooled over the profiled counts: a code path's rate, sampled), service h(N) = max(0, h(n_h) + m (C(N) - C(n_h))), where m (the
transfers a hold waits on that lengthen with the path) comes from a second profiled count n_h' as
(h(n_h) - h(n_h')) / (C(n_h) - C(n_h')), else 0: the line through the two profiles (pathline), so below n_h
(one socket) the hold is the smaller count's, not the larger's.  Its demand at the smallest profiled count, the
nearest to one core's, leaves the think time (as a line's traced hand-off does): a hold lengthens
with its waiters even on one socket (mmap_lock's munmap hold: 90k cycles at 10 cores, 146k at 20),
so the demand at n_h can exceed what one core's cost leaves.  A lock also hands off (g, carried as
h is: a sleeping lock's wake-up, a queued spinlock's release reaching its next waiter, as profiled):
its demand is v h(N) alone and v (h(N) + g(N)) while another core waits.  Where the profiles on one
socket show the hand-off growing with the waiters (pathline.waiters: counts at which the lock was busy
throughout), that growth w is the station's per other core present (load-dependent MVA, v w (j - 1)),
and only the rest of g is carried by the path (mmap_lock's: +41 cycles a waiter at 4-10 cores, none).
Sites that take one lock are one station (LOCK_OF_SITE).  Where the profile measured a sleeping
lock's cycle on its time line (holds.csv kind 'rwsem-cycle': per operation, the time a writer held
it, and the time someone queued for it while no writer did: readers held it, or a woken waiter was
not yet running), that row is the station (v h written, v g queued for) in place of its sites' holds
and paired hand-offs, which miss the read side and the wake-ups no release was seen paired with
(`local`/stock at 20 cores: 272k of the lock's 314k cycles per operation).

Pure: rows and functions in, numbers out.
"""

import numpy as np

from vmscale_model import fit as fitlib
from vmscale_model import hotstations, methods, network, pathline, phases, shootdowns, solvers
from vmscale_model.sockets import SATURATED, ownership_runs, per_op

BAND_Z = 1.645      # a 5-95% band's edges, in standard errors


# The functions of Linux 6.12 that take a lock with spin_lock_irqsave or, for writing, an
# rw_semaphore (vmscale.lockholds), by the lock they take (what one queue is); a site not named here
# is its own lock.  A compiler's clone of a function (`__page_cache_release.part.0`) is the function.
LOCK_OF_SITE = {"folio_batch_move_lru": "lru_lock", "folios_put_refs": "lru_lock", "__page_cache_release": "lru_lock",
                "lru_note_cost": "lru_lock", "free_pcppages_bulk": "zone_lock", "rmqueue_bulk": "zone_lock",
                "__rmqueue_pcplist": "zone_lock",     # rmqueue_bulk inlined into it (reclaim at 40 cores)
                "free_one_page": "zone_lock",
                # a page-cache lookup under the mapping's i_pages lock (kernel 0023, vm.vmscale_pagecache=locked)
                "filemap_get_entry": "i_pages", "filemap_get_read_batch": "i_pages", "next_uptodate_folio": "i_pages",
                # mmap_write_lock_killable(), inlined into the system calls that change the address space
                "vm_mmap_pgoff": "mmap_lock", "__vm_munmap": "mmap_lock", "do_mprotect_pkey": "mmap_lock",
                "__do_sys_brk": "mmap_lock", "__do_sys_mremap": "mmap_lock", "do_madvise": "mmap_lock",
                # a page fault that fell back from the VMA's lock to mmap_read_lock (down_read_killable)
                "lock_mm_and_find_vma": "mmap_lock",
                # where an up_read of mmap_lock returns (releases, not sites): munmap's (after
                # mmap_write_downgrade), a fault's mmap_read_unlock, the trylock of a first anonymous fault
                "vms_complete_munmap_vmas": "mmap_lock", "do_vmi_align_munmap": "mmap_lock",
                "exc_page_fault": "mmap_lock", "do_user_addr_fault": "mmap_lock", "__vmf_anon_prepare": "mmap_lock"}


def lock_of(site: str) -> str:
    if site.startswith(phases.PREFIX):       # a site's share in a later phase: that phase's queue for its lock
        return phases.PREFIX + lock_of(site[len(phases.PREFIX):])
    base = site.split(".")[0]
    return LOCK_OF_SITE.get(base, base)


def locks(hold_rows: list, n_max: int, transfer) -> list:
    """Lock stations from holds.csv rows of one case (with `cores`): holds and hand-offs at the largest
    profiled count not above n_max, takings per operation pooled over every profiled count up to it;
    [{name, visits, service (at that count), per_transfer (m), handoff, handoff_per_transfer, cores,
    demand_low, cores_low, seen (holds seen, all counts), visits_at_top}].  handoff: a lock's mean
    hand-off to a waiter (0 where none was seen: a profile made before spinlocks' were paired, or a
    lock never waited for), carried as the hold is; demand_low: holds per operation x hold at the
    smallest profiled count, the nearest to one core's (what leaves the think time)."""
    counts = sorted({int(float(r["cores"])) for r in hold_rows if int(float(r["cores"])) <= n_max})
    if not counts:
        return []

    def num(r, key):        # a column older holds.csv files lack, or NaN where none was seen: none
        x = methods._num(r, key)
        return x if x == x else 0.0

    def at(n):
        acc, cycled = {}, {lock_of(r["site"]) for r in hold_rows
                           if r.get("kind") == "rwsem-cycle" and int(float(r["cores"])) == n}
        for r in hold_rows:
            v, h = float(r["holds_per_op"]), float(r["hold_cycles"])
            if int(float(r["cores"])) != n or not (v > 0 and h > 0):
                continue
            if (r.get("kind") == "rwsem-cycle") != (lock_of(r["site"]) in cycled):
                continue        # a sleeping lock's cycle, where measured, stands for its sites' holds
            a = acc.setdefault(lock_of(r["site"]), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, True, True])
            if r.get("kind") == "rwsem-cycle":      # a cycle's hand-off is per taking, waited for or not
                a[7] = num(r, "held") + num(r, "waiting") >= SATURATED
            a[0] += v
            a[1] += v * h
            seen = num(r, "handoffs")
            a[2] += seen
            a[3] += seen * num(r, "handoff_cycles")
            a[4] += num(r, "holds")
            sd = methods._num(r, "hold_sd_cycles")
            a[5] += v * ((sd if sd == sd else 0.0) ** 2 + h * h)
            a[6] = a[6] and sd == sd and r.get("kind") != "rwsem-cycle"
        # per lock: (takings per op, mean hold, hand-off, holds seen, a cycle row?, the holds' squared
        # coefficient of variation: within and between its sites; 0 where a row has no spread, a
        # hand-off each taking waited for: a spinlock's paired ones, a cycle's where it was busy throughout)
        return {k: (v, d / v, g / ng if ng else 0.0, n, k in cycled,
                    max(0.0, d2 / v / (d / v) ** 2 - 1) if spread else 0.0, waited)
                for k, (v, d, ng, g, n, d2, spread, waited) in acc.items()}
    profiles = {n: at(n) for n in counts}
    top, lowest = profiles[counts[-1]], profiles[counts[0]]
    out = []
    for name, (_, h, g, seen_top, cycled, cv2, _) in top.items():
        # A lock's takings per operation are its code path's (the LRU's batches of 31 folios, a drain
        # per MADV_DONTNEED), not the core count's: every profile's sampled count is one estimate
        # of one rate, pooled (holds seen / sampled operations) for a smaller sampling error; only
        # profiles that counted it the same way (a sleeping lock's cycle, or its sites' holds).
        same = [p[name] for p in profiles.values() if name in p and p[name][4] == cycled and p[name][3] > 0]
        seen = sum(x[3] for x in same)
        v = seen / sum(x[3] / x[0] for x in same) if same else top[name][0]
        # hold and hand-off, each on the line through two profiled counts (pathline)
        held = {n: p[name] for n, p in profiles.items() if name in p}
        hold = pathline.through({n: x[1] for n, x in held.items()}, transfer)
        # the hand-off's growth with the waiters, read on one socket, and the rest of it on the path's line
        wait = pathline.waiters({n: x[2] for n, x in held.items() if x[2] > 0 and x[6]},
                                {n: x[3] for n, x in held.items()}, transfer)
        handoff = pathline.through({n: x[2] - wait.per_waiter * (n - 1) for n, x in held.items()}, transfer)
        m, mg = hold.slope, handoff.slope
        # the sampling variance of a count's mean hold (0 where holds.csv has no spread)
        var_top = cv2 * h * h / seen_top if seen_top > 0 else 0.0
        var_below = 0.0
        if m > 0:
            _, hb, _, nb, _, cv2b, _ = held[hold.below]
            var_below = cv2b * hb * hb / nb if nb > 0 else 0.0
        h_low = lowest.get(name, top[name])[1]
        out.append({"name": name, "visits": v, "service": h, "per_transfer": m, "handoff": handoff.value,
                    "handoff_per_transfer": mg, "handoff_measured": g, "per_waiter": wait.per_waiter,
                    "per_waiter_se": wait.stderr, "waiter_counts": list(wait.counts),
                    "cores": counts[-1], "demand_low": v * h_low,
                    "cores_low": counts[0], "seen": seen, "visits_at_top": top[name][0],
                    # sampling errors: the pooled rate's (relative), and the two profiled holds' (the
                    # line through them carries both: Carried.hold_sd)
                    "rate_error": 1 / seen ** 0.5 if seen > 0 else 0.0, "hold_var": var_top,
                    "hold_var_below": var_below, "transfer_step": hold.step})
    return sorted(out, key=lambda k: -k["visits"] * (k["service"] + k["handoff"]))


class Carried:
    def __init__(self, rows: list, trace_rows: list, miss_cycles, transfer_cycles, top: int = 0,
                 hold_rows: list = (), lock_z: float = 0.0):
        """rows: the fitted core counts' rows of one curve (one at 1 core); trace_rows: hotlines.csv
        rows of the same case, the largest traced count not above the fitted ones used; hold_rows:
        holds.csv rows of the same case (with cores), for lock stations.  lock_z: each lock's rate
        and carried hold moved by lock_z of their sampling errors (a band's edge: the hot-line trace
        counts every transfer, the lock profile samples windows): the pooled rate's, 1 / sqrt(holds
        seen) of itself, and, where holds.csv has the holds' spread (hold_sd_cycles), the mean
        holds' carried along the line through the profiles (hold_sd)."""
        fitted = sorted({int(float(r["cores"])) for r in rows})
        if not fitted:
            raise methods.NoModel("no point of the curve at the fitted core counts (a curve of one ROI size "
                                  "measured only past them?)")
        traced = sorted({int(r["cores"]) for r in trace_rows if r.get("cores")})
        usable = [n for n in traced if n <= fitted[-1]]
        if not usable:
            raise methods.NoModel(f"no hot-line trace at or below the fitted core counts ({fitted[-1]}); "
                                  f"traced at {traced or 'none'}")
        self.n_t, self.n0 = usable[-1], fitted[-1]
        self.stations = hotstations.stations([r for r in trace_rows if int(r["cores"]) == self.n_t], top)
        try:
            m = hotstations.model(self.stations, methods._one_core_cycles(rows))
            self.per_op = per_op([r for r in rows if int(float(r["cores"])) == self.n0])
        except (ValueError, fitlib.FitError) as e:
            raise methods.NoModel(str(e)) from e
        self._miss, self._transfer = miss_cycles, transfer_cycles
        self._cache = {}
        ipi = [r for r in hold_rows if r.get("kind") == "ipi"]
        self.locks = locks([r for r in hold_rows if r.get("kind") != "ipi"], self.n0, lambda n: self._d(n)[1])
        # a design's broadcast TLB shoot-downs (RadixVM's, counted by the kernel): a wait outside every queue,
        # and, where profiled, the receivers' handler time
        self.shoot = shootdowns.Carried(rows, self._path)
        self.received = shootdowns.Received(rows, ipi, self._path)
        self.lock_z = lock_z
        if lock_z:
            for k in self.locks:
                f = max(0.05, 1 + lock_z * k["rate_error"])
                k.update(visits=k["visits"] * f, demand_low=k["demand_low"] * f,
                         per_waiter=max(0.0, k["per_waiter"] + lock_z * k["per_waiter_se"]))
        self.think = m["think"] - sum(k["demand_low"] for k in self.locks)
        if self.locks and not self.think > 0:
            raise methods.NoModel("the hot lines' and locks' demand is not below the 1-core cost: no think time left")
        self.offset = 0.0       # added to Z(N) by anchor()
        self.measured_n0 = float(methods._data(rows).throughput[-1])
        x = solvers.mva(self.think, m["demands"], self.n_t)["throughput"]
        self.saturated = [x * s["demand"] >= SATURATED and s["visits"] < 1 for s in self.stations]
        self.outside_misses = max(0.0, self.per_op["misses"] - sum(s["visits"] for s in self.stations))

    def _path(self, n):
        return self._d(n)[1]

    def _d(self, n):
        if n not in self._cache:
            self._cache[n] = (self._miss(n), float(self._transfer(n)))
        return self._cache[n]

    def hold(self, k: dict, n: int) -> float:
        """A lock's hold at n cores: its profiled hold, lengthened (or, below the profile, shortened)
        by its transfers' path; at a band's edge moved by lock_z of its sampling error there."""
        h = pathline.PathLine(k["cores"], k["service"], k["per_transfer"])(n, self._path)
        return max(0.0, h + self.lock_z * self.hold_sd(k, n))

    def hold_sd(self, k: dict, n: int) -> float:
        """The carried hold's sampling error at n cores: h(n) = (1 + r) h_top - r h_below on the line
        through the two profiles (r = (C(n) - C_top) / (C_top - C_below)), so both means' errors
        grow with the distance carried; the top count's alone where no line was drawn."""
        r = ((self._d(n)[1] - self._d(k["cores"])[1]) / k["transfer_step"]
             if k.get("hold_var_below") and k.get("transfer_step") else 0.0)
        return ((1 + r) ** 2 * k.get("hold_var", 0.0) + r * r * k.get("hold_var_below", 0.0)) ** 0.5

    def handoff(self, k: dict, n: int) -> float:
        """A lock's hand-off to a waiter at n cores, carried as the hold is."""
        return max(0.0, pathline.PathLine(k["cores"], k["handoff"], k["handoff_per_transfer"])(n, self._path))

    def at(self, n: int) -> tuple:
        """(Z(N), [demand_k(N)], [operations per ownership of each line], [hand-off demand_k(N)]) at n
        cores: a lock's hand-off demand is added while another core waits (solvers.mva's handoff)."""
        (m1, _), (mn, cn), (mt, ct) = self._d(1), self._d(n), self._d(self.n_t)
        z = (self.think + self.outside_misses * (mn["l1_bank"] - m1["l1_bank"])
             + self.per_op["memory_fetches"] * (mn["bank_memory"] - m1["bank_memory"]) + self.shoot.per_op(n)
             + self.received.per_op(n) + self.offset)
        z = max(0.0, z)
        grow, reach = max(0.0, cn - ct), max(0.0, mn["l1_bank"] - mt["l1_bank"])
        demands, runs = [], []
        for s, sat in zip(self.stations, self.saturated):
            r = ownership_runs(s["demand"], s["visits"], 1.0, [reach], [grow], [n]) if sat else None
            demands.append(r["service"][0] if r else s["visits"] * (s["service"] + s["changes"] * grow))
            runs.append(r["k"][0] if r else 1.0)
        handoffs = [0.0] * len(demands)
        for k in self.locks:
            demands.append(k["visits"] * self.hold(k, n))
            runs.append(1.0)
            handoffs.append(k["visits"] * self.handoff(k, n))
        return z, demands, runs, handoffs

    def growth(self) -> list:
        """Per station of at()'s lists, the demand added per other core present: a lock's hand-off
        growth with its waiters (per_waiter, read on one socket) at its takings per operation."""
        return [0.0] * len(self.stations) + [k["visits"] * k["per_waiter"] for k in self.locks]

    def as_network(self, n: int) -> network.Model:
        """The closed network at n cores as vmscale_model.network's Model (think, then every queue in
        turn), for the SimPy simulation (des.simulate) to check what mva solves here."""
        z, demands, _, handoffs = self.at(n)
        names = [s["name"] for s in self.stations] + [k["name"] for k in self.locks]
        return network.Model(think=z, stations=tuple(network.Station(nm, d, per_waiter=g, handoff=h) for nm, d, g, h
                                                     in zip(names, demands, self.growth(), handoffs))).validate()

    def throughput(self, cores) -> np.ndarray:
        out = []
        for n in np.atleast_1d(cores):
            z, demands, _, handoffs = self.at(int(n))
            out.append(solvers.mva(z, demands, int(n), growth=self.growth(), handoff=handoffs)["throughput"])
        return np.array(out)


def anchor(c: Carried, throughput=None, tol: float = 1e-9) -> float:
    """Sets c.offset, the work outside the queues that the largest fitted count n0 holds beyond what
    one core's cost left (communication that is no traced line: a neighbour's reads of each published
    node, `reclaim`), so that throughput(n0) (the method's own solution at one count) meets the
    measured point; returns it.  throughput(n): the method's solution at n cores (c's one network by
    default).  Z(N) is then carried from n0 as from one core.  The bound where the queues alone are
    slower than the measured point (Z(n0) at 0) is kept."""
    target, n0 = c.measured_n0, c.n0
    throughput = throughput or (lambda n: c.throughput([n])[0])
    c.offset = 0.0

    def x(offset):
        c.offset = offset
        return throughput(n0)
    lo = -c.at(n0)[0]             # Z(n0) = 0: the fastest the queues allow
    if x(lo) <= target:
        return c.offset
    hi = max(1.0, c.think)
    for _ in range(200):            # throughput falls to 0 as Z grows: a bound is found long before
        if not x(hi) > target:
            break
        hi *= 2
    else:
        raise methods.NoModel(f"no think time brings the model to the measured throughput at {n0} cores")
    for _ in range(200):            # throughput falls as Z grows: bisection
        mid = (lo + hi) / 2
        if x(mid) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= tol * max(1.0, abs(hi)):
            break
    c.offset = (lo + hi) / 2
    return c.offset


class HotLinesOnBoard:
    """The study's method: a traced case's hot-line stations, carried by the board's distances."""
    name, label = "hotboard", "hot lines carried by the board's distances from the largest fitted count"
    anchored = True
    carried = True      # its curve begins at the largest fitted count (anchor()): below it the points stand

    def __init__(self, trace_rows: list, board, top: int = 0):
        self.trace_rows, self.board, self.top = trace_rows, board, top

    def fit(self, rows) -> methods.Model:
        c = Carried(rows, self.trace_rows, self.board.miss_cycles, self.board.transfer_cycles, self.top)
        anchor(c)
        return methods.Model(self.name, self._params(c), lambda cores: methods.Prediction(c.throughput(cores)))

    @staticmethod
    def _params(c: Carried) -> dict:
        return {"think": c.think, "anchor": c.offset, "stations": len(c.stations), "traced_at": c.n_t, "at_cores": c.n0,
                "demand": sum(s["demand"] for s in c.stations), "runs": sum(c.saturated), **c.per_op,
                "shootdowns": "; ".join(x for x in (c.shoot.describe(), c.received.describe()) if x)}

    @staticmethod
    def describe(p) -> str:
        return (f"Z {p['think']:.4g} {p.get('anchor', 0.0):+.4g} at {p['at_cores']}, {p['stations']} lines, D {p['demand']:.4g} (traced at {p['traced_at']}); "
                f"per op at {p['at_cores']}: {p['misses']:.0f} misses; {p['runs']} line(s) held in runs"
                + (f"; {p['shootdowns']}" if p.get("shootdowns") else ""))


class HotLocksOnBoard(HotLinesOnBoard):
    """The hot-line stations with the case's profiled lock holds as stations too, both carried."""
    name, label = "hotlocks", "hot lines and lock holds carried by the board's distances from the largest fitted count"

    def __init__(self, trace_rows: list, hold_rows: list, board, top: int = 0):
        super().__init__(trace_rows, board, top)
        self.hold_rows = hold_rows

    def fit(self, rows) -> methods.Model:
        c = Carried(rows, self.trace_rows, self.board.miss_cycles, self.board.transfer_cycles, self.top,
                    self.hold_rows)
        if not c.locks:
            raise methods.NoModel("no lock holds profiled at or below the fitted core counts")
        anchor(c)
        params = {**self._params(c), "locks": [dict(lk) for lk in c.locks]}
        # the band: every lock's rate at the 5% and 95% of its sampling error (more demand, less throughput)
        try:
            lo, hi = (Carried(rows, self.trace_rows, self.board.miss_cycles, self.board.transfer_cycles, self.top,
                              self.hold_rows, lock_z=z) for z in (BAND_Z, -BAND_Z))
        except methods.NoModel:
            lo = hi = c
        for edge in {lo, hi} - {c}:        # each edge meets the measured point at n0 too
            anchor(edge)
        return methods.Model(self.name, params, lambda cores: methods.Prediction(
            c.throughput(cores), lo.throughput(cores), hi.throughput(cores)))

    @staticmethod
    def describe(p) -> str:
        held = "; ".join(f"{k['name']} {k['visits']:.3g} holds/op x {k['service']:.4g} cycles (+{k['per_transfer']:.2g} "
                         f"per transfer cycle, profiled at {k['cores']})"
                         + (f", hand-off to a waiter {k['handoff']:.4g} (+{k['handoff_per_transfer']:.2g})"
                            if k.get("handoff") else "")
                         + (f" +{k['per_waiter']:.3g} ± {k.get('per_waiter_se', 0.0):.2g} per other core present "
                            f"(on one socket: {', '.join(map(str, k.get('waiter_counts', [])))} cores)"
                            if k.get("per_waiter") else "") for k in p["locks"])
        return HotLinesOnBoard.describe(p) + f"; locks: {held}"


class HotPhasesOnBoard(HotLocksOnBoard):
    """The hot lines and lock holds, carried, queued in the phases the workload's threads run in step
    (vmscale_model.phases): the faults' stations, then the re-arm's, one round after the other."""
    name, label = "phases", "hot lines and lock holds in the workload's in-step phases, carried from the largest fitted count"

    def __init__(self, trace_rows: list, hold_rows: list, board, workload: str, top: int = 0):
        super().__init__(trace_rows, hold_rows, board, top)
        self.workload = workload

    def fit(self, rows) -> methods.Model:
        params = {k.split(".", 1)[1]: v for k, v in rows[0].items() if k.startswith("params.") and v not in ("", None)}
        try:
            held = phases.split_holds(self.workload, self.hold_rows, params)
        except ValueError as e:
            raise methods.NoModel(str(e)) from e
        made = [self._carried(rows, held, 0.0)]
        try:    # the band: every lock's rate at the 5% and 95% of its sampling error (as HotLocksOnBoard's)
            made += [self._carried(rows, held, z) for z in (BAND_Z, -BAND_Z)]
        except methods.NoModel:
            made += made * 2
        c, quiet, share = made[0]
        info = {**self._params(c), "locks": [dict(lk) for lk in c.locks], "quiet_per_op": quiet,
                "rearm_share": share}
        return methods.Model(self.name, info, lambda cores: methods.Prediction(
            *(self._throughput(*m, cores) for m in made)))

    def _carried(self, rows, held, lock_z):
        c = Carried(rows, self.trace_rows, self.board.miss_cycles, self.board.transfer_cycles, self.top, held, lock_z)
        if not any(k["name"].startswith(phases.PREFIX) for k in c.locks):
            raise methods.NoModel("no lock holds of the re-arm profiled at or below the fitted core counts")
        top = [r for r in self.trace_rows if int(r["cores"]) == c.n_t and str(r.get("rank")) == "1"]
        quiet = methods._num(top[0], "quiet_cycles_per_op") if top else float("nan")
        if not quiet == quiet:
            raise methods.NoModel(f"the trace at {c.n_t} cores has no quiet time per operation "
                                  "(`vmscale hotlines` of its run measures it)")
        z, _, _, d_r, h_r = self._phase(c, c.n_t)
        z_r = phases.rearm_think(quiet, d_r, c.n_t, h_r)
        share = min(1.0, z_r / z) if z > 0 else 0.0
        anchor(c, lambda n: self._throughput(c, quiet, share, [n])[0])
        return c, quiet, share

    @staticmethod
    def _phase(c: Carried, n: int) -> tuple:
        """(Z(N), the faults' demands, their hand-offs, the re-arm's demands, its hand-offs) at n cores."""
        z, demands, _, handoffs = c.at(n)
        names = [s["name"] for s in c.stations] + [k["name"] for k in c.locks]
        rearm = [nm.startswith(phases.PREFIX) for nm in names]

        def pick(xs, side):
            return [x for x, r in zip(xs, rearm) if r == side]
        return z, pick(demands, False), pick(handoffs, False), pick(demands, True), pick(handoffs, True)

    def _throughput(self, c: Carried, quiet: float, share: float, cores) -> np.ndarray:
        out = []
        for n in np.atleast_1d(cores):
            z, d_f, h_f, d_r, h_r = self._phase(c, int(n))
            out.append(phases.throughput(z * (1 - share), d_f, h_f, z * share, d_r, int(n), h_r))
        return np.array(out)

    @staticmethod
    def describe(p) -> str:
        return (HotLocksOnBoard.describe(p) + f"; phases: the re-arm {p['rearm_share']:.0%} of the think time "
                f"(its trace quiet {p['quiet_per_op']:.4g} cycles per op)")
