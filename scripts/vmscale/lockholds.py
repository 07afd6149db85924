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
(holds longer than W are not seen at all: the window must be longer than the holds).

Pure logic over trace lines (`spans`, `summary`); the command reads the run directory.
"""

from collections import defaultdict

LOCK = "_raw_spin_lock_irqsave"
# the unlock opens the kernel's .spinlock.text, so gem5's symbol table may name it by the section's
# start marker, which shares its address
UNLOCK = {"_raw_spin_unlock_irqrestore", "__lock_text_start"}
WAIT = {LOCK, "queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath"}


def spans(lines, rois: list, window_ticks: int) -> list:
    """Exec-trace lines -> complete holds [{roi, cpu, site, hold}] in ticks.  rois: [(begin, end)
    ticks]; a gap of window_ticks or more on a CPU (the next window) drops its open holds."""
    from vmscale_gem5.profile import TRACE_LINE
    out = []
    state = {}                  # cpu -> {"last": (tick, sym), "stack": [(site, t_held)], "roi": i}
    for line in lines:
        m = TRACE_LINE.match(line)
        if not m:
            continue
        tick, cpu, sym = int(m[1]), int(m[2] or 0), m[4] or ""
        roi = next((i for i, (b, e) in enumerate(rois) if b <= tick <= e), None)
        st = state.setdefault(cpu, {"last": None, "stack": [], "roi": None})
        last = st["last"]
        if roi is None or last is None or st["roi"] != roi or tick - last[0] >= window_ticks:
            st["stack"], last = [], None        # a new window: what was open is cut
        prev = last[1] if last else None
        if prev == LOCK and sym not in WAIT:
            st["stack"].append((sym, tick))     # returned from the lock: held
        elif sym in UNLOCK and prev not in UNLOCK and st["stack"]:
            site, t_held = st["stack"].pop()
            out.append({"roi": roi, "cpu": cpu, "site": site, "hold": tick - t_held})
        st["last"], st["roi"] = (tick, sym), roi
    return out


def summary(sp: list, window_ticks: int, tick_per_cycle: float, windows: int = 0, roi_ticks: float = 0,
            ops: float = 0) -> list:
    """Per site: holds seen, their mean in cycles (each weighted by W / (W - L)), the weight (holds
    the windows would have seen whole), largest total first.  With the ROI's windows, length and
    operations also the site's share of the ROI's time with the lock held ('held': the lock's
    utilisation from this site) and its holds per operation."""
    acc = defaultdict(lambda: [0, 0.0, 0.0])
    for s in sp:
        if s["hold"] >= window_ticks:
            continue
        w = window_ticks / (window_ticks - s["hold"])
        a = acc[s["site"]]
        a[0] += 1
        a[1] += w
        a[2] += w * s["hold"]
    rows = []
    for k, (n, wt, h) in acc.items():
        row = {"site": k, "holds": n, "hold_cycles": h / wt / tick_per_cycle, "weight": wt}
        if windows:
            row["held"] = h / (windows * window_ticks)
            if ops:
                row["holds_per_op"] = wt / (windows * window_ticks) * roi_ticks / ops
        rows.append(row)
    return sorted(rows, key=lambda r: -r["hold_cycles"] * r["weight"])
