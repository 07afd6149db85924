"""How long each spinlock site holds its lock, and how long its acquirers wait, from a sampled trace.

A lock that a queue of CPUs waits for costs each of them its holder's hold, which is what a
lock station's service time is; the lock word's own hand-off (what the hot-line trace measures)
is only the start of it.  A run made with `--gem5 roi_profile=N` traced N ns of every CPU's
instructions with their kernel symbols; per CPU, in order, a return from `_raw_spin_lock_irqsave`
(its last instruction, after any `queued_spin_lock_slowpath`) into a function C begins a hold at
site C, and the first instruction of `_raw_spin_unlock_irqrestore` ends the latest hold still open
(irqsave sections nest: a stack per CPU).  The wait is not needed, so a hold counts even when its
wait began before the window.

Only the irqsave pair is out of line in the kernel vmscale builds (plain spin_unlock is a store,
no symbol to see), which covers the LRU's `lru_lock` (folio_batch_move_lru, folios_put_refs)
and the zone lock.  A hold that a window's edge cuts is dropped: one of length L survives a
window of length W with probability (W - L) / W, so each complete one counts W / (W - L) times
(holds longer than W are not seen at all: the window must be longer than the holds).  A queued
spinlock also hands off: from a release to the next acquisition by a CPU that was waiting in
`queued_spin_lock_slowpath` (entered the lock before that release), the lock is free and no one
runs in it, while the released word's line and the queue's next node travel; each such hold has
that hand-off, paired as a sleeping lock's are (below), and the lock's station carries it while
another core waits (the i_pages lock of `pagecache-locked`, whose holds are a fraction of its cycle).

Sleeping locks: mmap_lock and the other rw_semaphores are taken for writing out of line
(`down_write`, `down_write_killable`), so a write hold begins where one of them executes its `ret`
into a function C (the site) and ends at the first instruction of `up_write`, or of `up_read` when
`downgrade_write` ran in between (munmap frees page tables under the read side).  A writer that
finds the lock held spins while the holder runs, then sleeps; the lock then stays free from the
holder's release until the woken waiter runs with it.  That gap, the hand-off, is part of what the
lock costs each operation while someone waits, and no hold shows it: for each write hold whose
acquirer entered the lock before the lock's latest release (so it was waiting), the hand-off is the
time from that release to its acquisition, both in one window (which lock a site takes:
vmscale_model.hotcarried.lock_of, one map for the model and this).  A release whose hold began
before the window (so no site is known) still counts as one, of the lock of the function the
unlock returns into (`vm_mmap_pgoff`; `up_read` after a downgrade returns into munmap's
`vms_complete_munmap_vmas`).

Read holds: a page fault whose VMA has no anon_vma yet (the first fault of every fresh mmap) cannot
finish under the VMA's own lock: `__vmf_anon_prepare` tries mmap_read_trylock, fails while a writer
holds or waits, and the fault retries under `lock_mm_and_find_vma`'s down_read_killable, sleeping
behind the writers (`local` does this once a round).  Such a hold begins where down_read* returns
into its site and ends at the `up_read` that returns into a function of the same lock
(`exc_page_fault` for the fault's mmap_read_unlock).  Read holds overlap and a woken waiter runs
only once scheduled, so summing holds and hand-offs does not give the lock's cycle: `occupancy`
measures it on the traced time line instead, as the time a writer held the lock and the time someone
queued for it (in the rwsem's slow path) while no writer did (`cycle_rows`: holds.csv rows of kind
'rwsem-cycle').

Pure logic over trace lines (`spans`, `summary`, `occupancy`); the command reads the run directory.
"""

import bisect
import math
import re
from collections import defaultdict

from vmscale_model.hotcarried import lock_of

LOCK = "_raw_spin_lock_irqsave"
# the unlock opens the kernel's .spinlock.text, so gem5's symbol table may name it by the section's
# start marker, which shares its address
UNLOCK = {"_raw_spin_unlock_irqrestore", "__lock_text_start"}
WAIT = {LOCK, "queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath"}
WRITE_LOCK = {"down_write", "down_write_killable"}
READ_LOCK = {"down_read", "down_read_killable", "down_read_interruptible"}
SLEEPING_LOCK = WRITE_LOCK | READ_LOCK
SLOWPATH = {"rwsem_down_write_slowpath", "rwsem_down_read_slowpath"}
WRITE_UNLOCK, READ_UNLOCK, DOWNGRADE = "up_write", "up_read", "downgrade_write"   # seen at their entry
RET = re.compile(r":\s+ret\b")


def roi_of(tick: int, rois: list):
    """The index of the ROI [(begin, end) ticks] holding tick, or None (the trace readers' shared test)."""
    return next((i for i, (b, e) in enumerate(rois) if b <= tick <= e), None)


def spans(lines, rois: list, window_ticks: int, period_ticks: int = 0, acquired: list = None,
          intervals: list = None) -> list:
    """Exec-trace lines -> complete holds [{roi, cpu, site, hold, end, kind}] in ticks, kind 'irqsave',
    'rwsem-write' or 'rwsem-read' (a sleeping lock's: with 'handoff', ticks from the lock's release to
    this acquisition when the acquirer was waiting, else None).  rois: [(begin, end) ticks]; a gap of
    window_ticks or more on a CPU (the next window) drops its open holds, or with period_ticks (the
    windows' period from each ROI's begin) a tick in the next period does; a hand-off is kept within
    one window.  A waiter's entry into the lock is remembered across windows (it may sleep through
    several).  acquired: a list that gets every acquisition seen, whole hold or not ({roi, site,
    kind}): a point event, so its count over the traced time is the lock's rate with no weighting.
    intervals: a list that gets each sleeping lock's held and waited-for spans, (roi, lock, 'write',
    'read' or 'wait', begin, end), None where the span's window edge is its end (a hold released, or a
    wait ended, before its window began; a hold still open when its window closed); a wait only where
    the acquirer queued (went into the rwsem's slow path, or was inside the lock when its window
    began), not a fast path's few instructions: `occupancy` reads them."""
    from vmscale_gem5.profile import TRACE_LINE
    out, paired, releases = [], [], []   # paired: holds that may have waited for a release of their lock
    spans_ = intervals if intervals is not None else []
    state = {}                  # cpu -> {"last": (tick, sym, ret), "stack", "wstack", "rstack", "entered", "roi"}

    def cut(st):                # a window or ROI closes on a CPU: its open sleeping-lock holds end with it
        for what, stack in (("write", st["wstack"]), ("read", st["rstack"])):
            for site, t_held, *_ in stack:
                spans_.append((st["roi"], lock_of(site), what, t_held, None))
        st["wstack"], st["rstack"] = [], []

    for line in lines:
        m = TRACE_LINE.match(line)
        if not m:
            continue
        tick, cpu, sym = int(m[1]), int(m[2] or 0), m[4] or ""
        roi = roi_of(tick, rois)
        st = state.setdefault(cpu, {"last": None, "stack": [], "wstack": [], "rstack": [], "entered": None,
                                    "roi": None, "win": None})
        last = st["last"]
        # the windows are [begin + k period, begin + k period + window): with the period known a new
        # window is a new k (a window of most of the period leaves gaps shorter than itself)
        win = (tick - rois[roi][0]) // period_ticks if period_ticks and roi is not None else None
        if roi is None or last is None or st["roi"] != roi:
            cut(st)
            st["stack"], st["entered"], last = [], None, None   # a new ROI
            st.pop("downgraded", None), st.pop("unmatched", None), st.pop("sp_unmatched", None)
            st["sp_entered"] = None
        elif (win != st["win"]) if period_ticks else (tick - last[0] >= window_ticks):
            cut(st)
            st["stack"], last = [], None                        # a new window: what was open is cut
            st.pop("sp_unmatched", None)
        st["win"] = win
        prev = last[1] if last else None
        if sym == LOCK and prev is not None and prev not in WAIT:
            st["sp_entered"], st["sp_slow"] = tick, False      # called: a spinlock's acquirer from here
        elif sym in WAIT and sym != LOCK:
            st["sp_slow"] = True                # it queues (the lock was not free)
        if prev == LOCK and sym not in WAIT:
            # returned from the lock: held; an acquirer that queued was waiting for a release
            st["stack"].append((sym, tick, st.get("sp_entered") if st.get("sp_slow") else None))
            st["sp_entered"] = None
            if acquired is not None:
                acquired.append({"roi": roi, "site": sym, "kind": "irqsave"})
        elif sym in UNLOCK and prev not in UNLOCK and st["stack"]:
            site, t_held, entered = st["stack"].pop()
            h = {"roi": roi, "cpu": cpu, "site": site, "hold": tick - t_held, "end": tick, "kind": "irqsave"}
            out.append(h)
            paired.append((h, t_held, entered))
            releases.append((roi, _pair_key(site, "irqsave"), tick))
        elif sym in UNLOCK and prev not in UNLOCK:
            st["sp_unmatched"] = tick           # a hold taken before the window: named by where the unlock returns
        elif prev in UNLOCK and last[2] and "sp_unmatched" in st and sym not in UNLOCK:
            releases.append((roi, _pair_key(sym, "irqsave"), st.pop("sp_unmatched")))
        # a function's first instruction (no +offset): a call, not a callee's return into it
        entry = bool(sym) and f"@{sym}+" not in line
        if sym in SLEEPING_LOCK and entry:
            st["entered"], st["slept"] = tick, False
        elif sym in SLOWPATH and entry:
            st["slept"] = True                  # the lock was not free: this acquirer queues
        elif prev in SLEEPING_LOCK and last[2] and sym not in SLEEPING_LOCK:
            write = prev in WRITE_LOCK          # its ret: held from here
            (st["wstack"] if write else st["rstack"]).append([sym, tick, st["entered"], False])
            if st["entered"] is None or st.get("slept"):    # inside the lock since before the window: queued
                spans_.append((roi, lock_of(sym), "wait", st["entered"], tick))
            if acquired is not None:
                acquired.append({"roi": roi, "site": sym, "kind": "rwsem-write" if write else "rwsem-read"})
            st["entered"] = None
        elif sym == DOWNGRADE and entry:
            if st["wstack"]:
                st["wstack"][-1][3] = True
            else:
                st["downgraded"] = True         # a hold taken before the window: its release is still seen
        elif sym in (WRITE_UNLOCK, READ_UNLOCK) and entry and st["wstack"] \
                and (sym == WRITE_UNLOCK or st["wstack"][-1][3]):
            site, t_held, entered, _ = st["wstack"].pop()
            _release(out, paired, releases, spans_, roi, cpu, site, t_held, entered, tick, "rwsem-write", "write")
        elif sym in (WRITE_UNLOCK, READ_UNLOCK) and entry:
            # a release whose lock is named by the function the unlock returns into: a read hold of
            # that lock taken in the window, or a hold whose acquisition was not seen
            st["unmatched"] = (tick, sym == READ_UNLOCK and not st.pop("downgraded", False))   # (when, a read's)
        elif prev in (WRITE_UNLOCK, READ_UNLOCK, DOWNGRADE) and last[2] and "unmatched" in st:
            t_rel, read = st.pop("unmatched")
            lock = lock_of(sym)
            mine = [i for i, r in enumerate(st["rstack"]) if lock_of(r[0]) == lock] if read else []
            if mine:
                site, t_held, entered, _ = st["rstack"].pop(mine[-1])
                _release(out, paired, releases, spans_, roi, cpu, site, t_held, entered, t_rel, "rwsem-read", "read")
            else:
                releases.append((roi, (False, lock), t_rel))
                spans_.append((roi, lock, "read" if read else "write", None, t_rel))
        st["last"], st["roi"] = (tick, sym, bool(RET.search(line))), roi
    for st in state.values():
        cut(st)
    _handoffs(paired, releases, rois, period_ticks or window_ticks)
    return out


def _pair_key(site: str, kind: str):
    """What a release and an acquisition pair on: the site's lock, a spinlock's apart from a sleeping
    lock's (lock_of names locks by the function that takes them, and one function may take both)."""
    return (kind == "irqsave", lock_of(site))


def _release(out, paired, releases, spans_, roi, cpu, site, t_held, entered, tick, kind, what):
    h = {"roi": roi, "cpu": cpu, "site": site, "hold": tick - t_held, "end": tick, "kind": kind}
    out.append(h)
    paired.append((h, t_held, entered))
    releases.append((roi, _pair_key(site, kind), tick))
    spans_.append((roi, lock_of(site), what, t_held, tick))


def _handoffs(paired: list, releases: list, rois: list, period_ticks: int):
    """Each paired hold's hand-off (spans' docstring), in place: the latest release of its lock
    before the acquisition, in the acquisition's window, after the acquirer entered the lock."""
    by = {}
    for roi, lock, t in releases:
        by.setdefault((roi, lock), []).append(t)
    for ts in by.values():
        ts.sort()
    for h, t_acq, entered in paired:
        h["handoff"] = None
        ts = by.get((h["roi"], _pair_key(h["site"], h["kind"])), [])
        i = bisect.bisect_left(ts, t_acq) - 1
        if i < 0 or entered is None:
            continue
        begin = rois[h["roi"]][0]
        same_window = (ts[i] - begin) // period_ticks == (t_acq - begin) // period_ticks
        if same_window and entered < ts[i]:
            h["handoff"] = t_acq - ts[i]


def summary(sp: list, window_ticks: int, tick_per_cycle: float, windows: int = 0, roi_ticks: float = 0,
            ops: float = 0, acquired: list = None) -> list:
    """Per site and kind: holds seen, their mean in cycles (each weighted by W / (W - L)), the
    weight (holds the windows would have seen whole), largest total first.  With the ROI's windows,
    length and operations also the site's share of the ROI's time with the lock held ('held': the
    lock's utilisation from this site) and its holds per operation: from the acquisitions seen
    (spans' acquired, this ROI's) where given, else from the weights.  Each site also has its
    hand-offs seen and their mean in cycles (weighted alike; NaN where none was seen)."""
    counted = defaultdict(int)
    for a in acquired or ():
        counted[(a["site"], a["kind"])] += 1
    acc = defaultdict(lambda: [0, 0.0, 0.0, 0, 0.0, 0.0, 0.0])
    for s in sp:
        if s["hold"] >= window_ticks:
            continue
        w = window_ticks / (window_ticks - s["hold"])
        a = acc[(s["site"], s.get("kind", "irqsave"))]
        a[0] += 1
        a[1] += w
        a[2] += w * s["hold"]
        a[6] += w * s["hold"] ** 2
        g = s.get("handoff")
        if g is not None and g < window_ticks:
            wg = window_ticks / (window_ticks - g)
            a[3] += 1
            a[4] += wg
            a[5] += wg * g
    rows = []
    for (site, kind), (n, wt, h, ng, wg, g, h2) in acc.items():
        # the holds' spread (weighted as their mean): the model's band carries the mean's sampling error
        sd = math.sqrt(max(0.0, h2 / wt - (h / wt) ** 2)) / tick_per_cycle
        row = {"site": site, "kind": kind, "holds": n, "hold_cycles": h / wt / tick_per_cycle, "weight": wt,
               "hold_sd_cycles": sd,
               "handoffs": ng, "handoff_cycles": g / wg / tick_per_cycle if ng else float("nan")}
        if windows:
            row["held"] = h / (windows * window_ticks)
            if ops:
                seen = counted[(site, kind)] if acquired is not None else wt
                row["holds_per_op"] = seen / (windows * window_ticks) * roi_ticks / ops
        rows.append(row)
    return sorted(rows, key=lambda r: -r["hold_cycles"] * r["weight"])


def occupancy(intervals: list, rois: list, window_ticks: int, period_ticks: int) -> dict:
    """A sleeping lock's time in the traced windows, from spans' intervals: {(roi, lock): {'held':
    ticks a writer held it, 'waiting': ticks someone queued for it while no writer held it (readers
    held it, or it was free: a woken waiter not yet running), 'read': ticks readers held it and no
    writer, 'traced': the windows' ticks}}.  Held + waiting per operation is the lock's cycle while
    a queue stands: a waiter that sleeps is woken when the lock is released and runs with it only
    once scheduled, and read holds overlap, so neither the holds nor the paired hand-offs add up to
    it; read holds with nobody queued stall no one and are left out (a lock only read is no queue).
    Where a span's edge is None it is its window's edge; a wait that outlasts its window counts in
    every window it spans."""
    def window(roi, t):
        b = rois[roi][0]
        k = (t - b) // period_ticks
        return k, b + k * period_ticks, min(b + k * period_ticks + window_ticks, rois[roi][1])
    per = {}                    # (roi, lock, k) -> {"write": [spans], "read": [...], "wait": [...]}
    for roi, lock, what, begin, end in intervals:
        if roi is None:
            continue
        if begin is None:
            k, wb, _ = window(roi, end)
            pieces = [(k, wb, end)]
        elif end is None:
            k, _, we = window(roi, begin)
            pieces = [(k, begin, we)]
        else:
            pieces = []
            k, wb, we = window(roi, begin)
            while wb < end:
                if min(end, we) > max(begin, wb):
                    pieces.append((k, max(begin, wb), min(end, we)))
                k, wb = k + 1, wb + period_ticks
                we = min(wb + window_ticks, rois[roi][1])
        for k, a, e in pieces:
            per.setdefault((roi, lock, k), {"write": [], "read": [], "wait": []})[what].append((a, e))
    out = {}
    for (roi, lock, _), spans in per.items():
        w, r, q = (_union(spans[x]) for x in ("write", "read", "wait"))
        acc = out.setdefault((roi, lock), {"held": 0, "waiting": 0, "read": 0})
        acc["held"] += _length(w)
        acc["waiting"] += _length(q) - _overlap(q, w)
        acc["read"] += _length(r) - _overlap(r, w)
    for (roi, lock), acc in out.items():
        b, e = rois[roi]
        acc["traced"] = sum(min(window_ticks, e - t) for t in range(b, e, period_ticks))
    return out


def _length(spans: list) -> int:
    return sum(e - a for a, e in spans)


def _union(spans: list) -> list:
    out = []
    for a, e in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        elif e > a:
            out.append([a, e])
    return out


def _overlap(xs: list, ys: list) -> int:
    """Ticks two sorted disjoint span lists share."""
    i = j = total = 0
    while i < len(xs) and j < len(ys):
        a, e = max(xs[i][0], ys[j][0]), min(xs[i][1], ys[j][1])
        total += max(0, e - a)
        if xs[i][1] < ys[j][1]:
            i += 1
        else:
            j += 1
    return total


def cycle_rows(occ: dict, acquired: list, roi: int, tick_per_cycle: float, roi_ticks: float, ops: float) -> list:
    """Per sleeping lock of one ROI (occupancy's), a holds.csv row of kind 'rwsem-cycle': its
    acquisitions per operation (every down_read/down_write seen returning into its sites), the
    cycles per acquisition a writer held it ('hold_cycles') and someone queued while no writer held
    it ('handoff_cycles': readers held it or it was free), and the shares of the traced time
    ('held', 'waiting').  So held + waiting per operation is the lock's cycle while a queue stands:
    the model's station for it (vmscale_model.hotcarried), the writes alone, the rest only while
    another core waits.  Locks no sleeping acquisition was seen taking are left out (an up_read of
    a lock whose reads take the trylock only)."""
    rows = []
    for (r, lock), a in occ.items():
        if r != roi or not a["traced"] or not ops:
            continue
        n = sum(1 for x in acquired if x["roi"] == roi and x["kind"].startswith("rwsem") and lock_of(x["site"]) == lock)
        if not n:
            continue
        per_op = n / a["traced"] * roi_ticks / ops
        rows.append({"site": lock, "kind": "rwsem-cycle", "holds": n, "weight": n,
                     "hold_cycles": a["held"] / n / tick_per_cycle, "handoffs": n,
                     "handoff_cycles": a["waiting"] / n / tick_per_cycle, "held": a["held"] / a["traced"],
                     "waiting": a["waiting"] / a["traced"], "holds_per_op": per_op})
    return sorted(rows, key=lambda r: -r["held"])
