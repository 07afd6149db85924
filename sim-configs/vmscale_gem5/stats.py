"""Parse gem5's stats.txt: one dict per dump ("Begin/End Simulation Statistics" block).

Lines are `name value # description (Unit)`, or vectors/distributions printed as
`name | count pct cum | count pct cum ... # description`; sub-statistics use `::`
(`name::mean`, `name::samples`, `name::total`, `name::0-7`).  Values are floats (nan and
inf included); a pipe-form line becomes a list of its counts.
"""

import math
import re

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics   ----------"
RUBY = "board.cache_hierarchy.ruby_system"


def parse_line(line: str):
    """-> (name, value) or None for blank, comment and marker lines."""
    body = line.split("#", 1)[0].strip()
    parts = body.split()
    if not parts:
        return None
    name = parts[0]
    if len(parts) < 2:
        return None
    # float() reads gem5's nan, -nan, inf and -inf as they are printed
    if parts[1] == "|":
        groups = [g.split() for g in " ".join(parts[2:]).split("|") if g.strip()]
        return name, [float(g[0]) for g in groups if g]
    try:
        return name, float(parts[1])
    except ValueError:
        return None


def parse(text: str) -> list:
    """Every dump in the file, in order."""
    dumps, current = [], None
    for line in text.splitlines():
        if line.startswith(BEGIN):
            current = {}
            continue
        if line.startswith(END):
            if current is not None:
                dumps.append(current)
            current = None
            continue
        if current is None:
            continue
        parsed = parse_line(line)
        if parsed:
            current[parsed[0]] = parsed[1]
    if current:  # a run that died mid-dump: keep what was written
        dumps.append(current)
    return dumps


def parse_file(path) -> list:
    with open(path) as f:
        return parse(f.read())


def _sum_matching(stats: dict, pattern: str) -> float:
    rx = re.compile(pattern)
    vals = [v for k, v in stats.items() if rx.fullmatch(k) and isinstance(v, float)]
    return sum(vals) if vals else math.nan


def _total(stats: dict, name: str):
    """A controller event's count over all controllers of its kind.  gem5 prints `name::total`
    only for vectors of two or more; one controller (one core's L1, one L2 bank, one
    directory) prints `name count pct cum` alone, which is then the total.  An event that
    never happened has no line (a 1-core run has no forwarded request), so it is 0 when the
    controller printed others, and absent when the run had no such controller."""
    total = stats.get(f"{name}::total")
    if total is None and isinstance(stats.get(name), float):
        return stats[name]
    if total is None:
        group = name.rsplit(".", 1)[0] + "."
        if any(k.startswith(group) for k in stats):
            return 0.0
    return total


def _per_core(stats: dict, leaf: str) -> list:
    """One value per core of the board's processor (simple, or switchable start/switch cores)."""
    rx = re.compile(rf"board\.processor\.(cores|start|switch)\d*\.core\.{re.escape(leaf)}")
    return [v for k, v in stats.items() if rx.fullmatch(k)]


# A point is capacity-bound when the shared L2 (the LLC), not sharing, explains its cost:
# - one LLC eviction or more per op: every op then refetches a line from memory, a cost of the
#   order of a line transfer (hundreds of cycles), so capacity is a first-order term;
# - or at least half of the L1 invalidations come from LLC evictions: the coherence traffic
#   the model reads as sharing is then the inclusive L2 recalling copies.
CAPACITY_EVICTIONS_PER_OP = 1.0
CAPACITY_INV_SHARE = 0.5


def capacity(out: dict) -> dict:
    """LLC evictions and the share of L1 invalidations they caused (a lower bound: an eviction
    of a line several L1s share invalidates each copy, counted here once)."""
    if "l2_repl" not in out:
        return {}
    ev = out["l2_repl"] + out.get("l2_repl_clean", 0.0)
    res = {"llc_evictions": ev}
    inv, by_ev = out.get("l1_inv"), out.get("l2_repl_l1")
    if inv and by_ev is not None and not math.isnan(by_ev):
        res["eviction_inv_share"] = min(1.0, by_ev / inv)
    return res


# Threads given equal shares commit about equal instructions per core; a core that commits several
# times another's ran something besides its share inside the ROI (a retry loop on a line another
# core keeps taking, a kernel thread): the guest, not the design, then explains part of that point.
UNEVEN_WORK = 2.0


def uneven_work(row: dict) -> bool:
    """Cores' ROI instructions, most over fewest, at or above UNEVEN_WORK (the flag `vmscale report` shows)."""
    try:
        return float(row.get("gem5.core_insts_spread")) >= UNEVEN_WORK
    except (TypeError, ValueError):
        return False


# The window counts whole operations: one a thread had begun when the window opened and one it had
# not finished when it closed can each be half-counted, so a window of k operations per thread is
# exact to about 1/k (and biased low where threads run in lockstep: each has one in flight at the
# close).  Below this many per thread `vmscale report` flags the point.
COARSE_WINDOW_OPS = 20


def window_ops_per_thread(row: dict) -> float:
    try:
        return float(row.get("window_ops")) / float(row.get("threads") or row.get("cores"))
    except (TypeError, ValueError, ZeroDivisionError):
        return math.nan


def count_step(row: dict) -> float:
    """The operations a thread counts at once: a workload that runs them in the kernel (reclaim, refcount)
    counts a write to its /proc file's `chunk` of them when the write returns; 1 for the rest."""
    try:
        chunk = float(row.get("params.chunk"))
    except (TypeError, ValueError):
        return 1.0
    return chunk if chunk >= 1 else 1.0


def coarse_window(row: dict) -> bool:
    """Fewer than COARSE_WINDOW_OPS counting steps (count_step) per thread inside the window (a
    multi-thread point): the window counts whole steps, so its throughput is exact to about one step
    per thread."""
    try:
        many = float(row.get("threads") or row.get("cores")) > 1
    except (TypeError, ValueError):
        return False
    return many and window_ops_per_thread(row) / count_step(row) < COARSE_WINDOW_OPS


def _num(row: dict, key: str) -> float:
    """A row's number (rows from a table.csv hold text); nan when absent or not a number."""
    try:
        return float(row.get(key))
    except (TypeError, ValueError):
        return math.nan


# The window's edges are scans of every thread's count, a line each that its thread last wrote: a
# transfer across the board's sockets per count (~390 cycles at 40 cores, four sockets: FINDINGS,
# session 63).  Since session 63 each read is timed and an edge is the mean time of its scan's reads
# (the harness reports each scan's span): exact while the threads' rates hold through a scan, else off
# by up to half a scan.  Before, the open read the counts before its clock and the close after its own,
# so the window counted half of each scan's span in operations and none in cycles: fast by about one
# scan's worth.  Where that share reaches EDGE_SCAN_SHARE `vmscale report` flags the point: for a timed
# row the edges' uncertainty, for an untimed one its over-count, a scan estimated at UNTIMED_SCAN_CYCLES
# a count (an upper estimate: above the most measured, 555 a count at 80 cores and 735 at 160).
EDGE_SCAN_SHARE = 0.05
UNTIMED_SCAN_CYCLES = 750


def window_edges(row: dict) -> tuple:
    """(one scan's worth of the window, the mean of its two edges' scans, as a share of it; whether the
    scans were timed); (nan, False) for a row without a window or a single thread."""
    n, wc = _num(row, "threads"), _num(row, "window_cycles")
    if not (n > 1 and wc > 0):
        return math.nan, False
    opened, closed = _num(row, "window_open_scan_cycles"), _num(row, "window_close_scan_cycles")
    if opened == opened and closed == closed:
        return (opened + closed) / 2 / wc, True
    return n * UNTIMED_SCAN_CYCLES / wc, False


def wide_edges(row: dict) -> bool:
    """The flag `vmscale report` shows: the edges' scans span at least EDGE_SCAN_SHARE of the window."""
    return bool(window_edges(row)[0] >= EDGE_SCAN_SHARE)


def capacity_bound(row: dict) -> bool:
    """The check `vmscale report` flags (the thresholds above)."""
    per_op, share = _num(row, "gem5.llc_evictions_per_op"), _num(row, "gem5.eviction_inv_share")
    return bool(per_op >= CAPACITY_EVICTIONS_PER_OP or share >= CAPACITY_INV_SHARE)


def summary(stats: dict, ops: float = None) -> dict:
    """The metrics vmscale reports for one dump (the ROI's, when the guest marked one).

    `ops`, the workload's operation count, turns counts into per-operation figures.
    """
    g = stats.get
    cycles = _per_core(stats, "numCycles")
    # simInsts/simOps (and gem5's hostInstRate, simInsts / hostSeconds) count from the start
    # of the simulation: stats.reset() does not clear them.  The per-core commit counters are
    # reset with the ROI, so the ROI's instructions and host rate come from those.
    insts = _per_core(stats, "commitStats0.numInsts")
    roi_insts = sum(insts) if insts else math.nan
    host_s = g("hostSeconds")
    out = {
        "sim_ticks": g("simTicks"), "sim_seconds": g("simSeconds"), "sim_insts": g("simInsts"),
        "roi_insts": roi_insts,
        "sim_ops": g("simOps"), "host_seconds": host_s,
        "host_inst_rate": roi_insts / host_s if insts and host_s else g("hostInstRate"),
        "sim_freq": g("simFreq"),
        # numCycles can include idle time from before a stats reset (counted lazily on
        # wake-up), so ROI cycles come from simTicks and the board's clock period.
        "cycles_max": max(cycles) if cycles else math.nan,
        "roi_cycles": g("simTicks") / g("board.clk_domain.clock")
        if g("simTicks") is not None and g("board.clk_domain.clock") else math.nan,
        "cores_in_stats": len(cycles),
        "core_insts_spread": max(insts) / min(insts) if len(insts) > 1 and min(insts) > 0 else math.nan,
        "ruby_miss_latency_mean": g(f"{RUBY}.m_missLatencyHistSeqr::mean"),
        "ruby_miss_latency_samples": g(f"{RUBY}.m_missLatencyHistSeqr::samples"),
        "ruby_miss_latency_hist": g(f"{RUBY}.m_missLatencyHistSeqr"),
        "ruby_latency_mean": g(f"{RUBY}.m_latencyHistSeqr::mean"),
        "ruby_network_delay_mean": g(f"{RUBY}.delayHistogram::mean"),
        "l1_inv": _total(stats, f"{RUBY}.L1Cache_Controller.Inv"),
        "l1_fwd_getx": _total(stats, f"{RUBY}.L1Cache_Controller.Fwd_GETX"),
        "l1_fwd_gets": _total(stats, f"{RUBY}.L1Cache_Controller.Fwd_GETS"),
        "l1_load": _total(stats, f"{RUBY}.L1Cache_Controller.Load"),
        "l1_store": _total(stats, f"{RUBY}.L1Cache_Controller.Store"),
        "l2_getx": _total(stats, f"{RUBY}.L2Cache_Controller.L1_GETX"),
        "l2_gets": _total(stats, f"{RUBY}.L2Cache_Controller.L1_GETS"),
        "l2_upgrade": _total(stats, f"{RUBY}.L2Cache_Controller.L1_UPGRADE"),
        "dir_fetch": _total(stats, f"{RUBY}.Directory_Controller.Fetch"),
        # Lines the L2 evicted, dirty and clean.  The L2 is inclusive: evicting a line an L1
        # holds invalidates that copy too, so an L2 too small (or a set too narrow) for the
        # cores' working sets shows here and in l1_inv together.
        "l2_repl": _total(stats, f"{RUBY}.L2Cache_Controller.L2_Replacement"),
        "l2_repl_clean": _total(stats, f"{RUBY}.L2Cache_Controller.L2_Replacement_clean"),
        # Evictions of lines L1s hold (shared: SS; owned: MT): each sends at least one Inv.
        "l2_repl_l1": _sum_matching(stats, rf"{re.escape(RUBY)}\.L2Cache_Controller\.(SS|MT)\.L2_Replacement(_clean)?"),
        "l1d_demand_misses": _sum_matching(stats, rf"{re.escape(RUBY)}\.l1_controllers\d*\.L1Dcache\.m_demand_misses"),
        "l1d_demand_accesses": _sum_matching(stats, rf"{re.escape(RUBY)}\.l1_controllers\d*\.L1Dcache\.m_demand_accesses"),
        "network_avg_hops": g(f"{RUBY}.network.average_hops"),
        "network_packet_latency": g(f"{RUBY}.network.average_packet_latency"),
    }
    out = {k: v for k, v in out.items() if v is not None}
    out.update(capacity(out))
    if ops:
        for key in ("l1_inv", "l1_fwd_getx", "l1_fwd_gets", "l1d_demand_misses", "l2_getx", "l2_repl",
                    "l2_repl_clean", "llc_evictions", "roi_insts"):
            if key in out and isinstance(out[key], float) and not math.isnan(out[key]):
                out[f"{key}_per_op"] = out[key] / ops
        if not math.isnan(out["roi_cycles"]) and cycles:
            # core-cycles per operation: comparable to the guest's per-thread cycles_per_op
            # when every core works through the whole ROI
            out["sim_cycles_per_op"] = out["roi_cycles"] * len(cycles) / ops
    return out
