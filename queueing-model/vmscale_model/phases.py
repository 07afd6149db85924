"""A workload whose threads run its rounds in step: one closed network per phase.

`fault` does rounds of `pages` faults, then checks the pages and gives them back (MADV_DONTNEED).
Its threads start together and work alike, so they fault together and re-arm together: the hot-line
traces' time lines show the mmap_lock line wanted by every thread through the faults and by none
through the re-arm, 30-36% of the ROI at 10, 20 and 80 cores (`vmscale hotlines`, quiet_share).
One think time drawn at random (solvers.mva) spreads the re-arm's work over the faults, where it
hides the queues: at 80 cores it saw the lock's line 82% busy with 4.5 cores queued where the trace
had 20-50.  Here a round is two networks in series, each of all N threads:

    C(N) = N / X_F(N) + N / X_R(N),     X(N) = N / C(N)

X_F with the stations the faults visit and think Z - Z_R, X_R with the re-arm's stations and think
Z_R.  Which stations are whose comes from the kernel's code paths (REARM); where a phase has a
bottleneck, the bottlenecks add (X -> 1 / (D_F,max + D_R,max)), where one network's max would have
been all.  Z_R at the traced count is what makes the re-arm network take the trace's quiet time
per operation there (rearm_think), and keeps its share of Z beyond.  Pure: numbers in, numbers out.
"""

from vmscale_model import solvers

PREFIX = "rearm:"       # a lock site's share that the re-arm phase takes (hotcarried.lock_of keeps it apart)
FBATCH = 31             # Linux 6.12's folio_batch: the LRU adds a CPU gathers before it takes lru_lock


def _fault_rearm(site: str, params: dict) -> float:
    """`fault`'s re-arm (madvise -> zap_page_range_single): lru_add_drain() moves the folios the faults'
    full batches left (pages mod 31 of each round's pages), and tlb_finish_mmu frees the zapped folios,
    taking lru_lock in __page_cache_release (folios_put_refs); the rest of a round's lock work is the
    faults' (their batches of 31 adds, the timers and accounting)."""
    base = site.split(".")[0]
    if base in ("__page_cache_release", "folios_put_refs", "free_pcppages_bulk", "free_one_page"):
        return 1.0
    if base == "folio_batch_move_lru":
        pages = int(float(params.get("pages") or 0))
        return (pages % FBATCH) / pages if pages > 0 else 0.0
    return 0.0


# workload -> (site, params) -> the share of the site's holds taken in the re-arm phase
REARM = {"fault": _fault_rearm}


def split_holds(workload: str, hold_rows: list, params: dict) -> list:
    """Hold rows with each site's re-arm share as a site of its own (PREFIX + site, holds per op
    scaled by the share) and the rest under its name; a workload without phases: ValueError."""
    share_of = REARM.get(workload)
    if share_of is None:
        raise ValueError(f"no in-step phases known for {workload!r} (known: {', '.join(sorted(REARM))})")
    out = []
    for r in hold_rows:
        s = min(1.0, max(0.0, share_of(r["site"], params)))
        v = float(r["holds_per_op"])
        if s > 0:
            out.append(dict(r, site=PREFIX + r["site"], holds_per_op=str(v * s)))
        if s < 1:
            out.append(dict(r, holds_per_op=str(v * (1 - s))))
    return out


def rearm_think(target: float, demands, n: int, handoffs=None) -> float:
    """The think time Z_R for which n threads take `target` cycles per operation through the re-arm's
    stations (n / X_R = target); 0 where the stations alone take that long (their queue is all)."""
    def took(z):
        return n / solvers.mva(z, demands, n, handoff=handoffs)["throughput"]
    if not target > 0 or took(0.0) >= target:
        return 0.0
    lo, hi = 0.0, float(target)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if took(mid) < target else (lo, mid)
    return (lo + hi) / 2


def throughput(think_f: float, demands_f, handoffs_f, think_r: float, demands_r, n: int, handoffs_r=None) -> float:
    """Operations per cycle of n threads that run the two phases in step (module docstring); handoffs:
    per station, a sleeping lock's hand-off demand while another thread waits (solvers.mva's)."""
    t_f = n / solvers.mva(think_f, demands_f, n, handoff=handoffs_f)["throughput"]
    t_r = (n / solvers.mva(think_r, demands_r, n, handoff=handoffs_r)["throughput"]
           if think_r > 0 or any(demands_r) else 0.0)
    return n / (t_f + t_r)
