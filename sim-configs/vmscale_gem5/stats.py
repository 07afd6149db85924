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


def _number(token: str) -> float:
    t = token.lower()
    if t in ("nan", "-nan"):
        return math.nan
    if t in ("inf", "+inf"):
        return math.inf
    if t == "-inf":
        return -math.inf
    return float(token)


def parse_line(line: str):
    """-> (name, value) or None for blank, comment and marker lines."""
    body = line.split("#", 1)[0].strip()
    if not body or body.startswith("-"):
        return None
    parts = body.split()
    name = parts[0]
    if len(parts) < 2:
        return None
    if parts[1] == "|":
        groups = [g.split() for g in " ".join(parts[2:]).split("|") if g.strip()]
        return name, [_number(g[0]) for g in groups if g]
    try:
        return name, _number(parts[1])
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


def _per_core(stats: dict, leaf: str) -> list:
    """One value per core of the board's processor (simple, or switchable start/switch cores)."""
    rx = re.compile(rf"board\.processor\.(cores|start|switch)\d*\.core\.{re.escape(leaf)}")
    return [v for k, v in stats.items() if rx.fullmatch(k)]


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
        "ruby_miss_latency_mean": g(f"{RUBY}.m_missLatencyHistSeqr::mean"),
        "ruby_miss_latency_samples": g(f"{RUBY}.m_missLatencyHistSeqr::samples"),
        "ruby_miss_latency_hist": g(f"{RUBY}.m_missLatencyHistSeqr"),
        "ruby_latency_mean": g(f"{RUBY}.m_latencyHistSeqr::mean"),
        "ruby_network_delay_mean": g(f"{RUBY}.delayHistogram::mean"),
        "l1_inv": g(f"{RUBY}.L1Cache_Controller.Inv::total"),
        "l1_fwd_getx": g(f"{RUBY}.L1Cache_Controller.Fwd_GETX::total"),
        "l1_fwd_gets": g(f"{RUBY}.L1Cache_Controller.Fwd_GETS::total"),
        "l1_load": g(f"{RUBY}.L1Cache_Controller.Load::total"),
        "l1_store": g(f"{RUBY}.L1Cache_Controller.Store::total"),
        "l2_getx": g(f"{RUBY}.L2Cache_Controller.L1_GETX::total"),
        "l2_gets": g(f"{RUBY}.L2Cache_Controller.L1_GETS::total"),
        "l2_upgrade": g(f"{RUBY}.L2Cache_Controller.L1_UPGRADE::total"),
        "dir_fetch": g(f"{RUBY}.Directory_Controller.Fetch::total"),
        "l1d_demand_misses": _sum_matching(stats, rf"{re.escape(RUBY)}\.l1_controllers\d*\.L1Dcache\.m_demand_misses"),
        "l1d_demand_accesses": _sum_matching(stats, rf"{re.escape(RUBY)}\.l1_controllers\d*\.L1Dcache\.m_demand_accesses"),
        "network_avg_hops": g(f"{RUBY}.network.average_hops"),
        "network_packet_latency": g(f"{RUBY}.network.average_packet_latency"),
    }
    out = {k: v for k, v in out.items() if v is not None}
    if ops:
        for key in ("l1_inv", "l1_fwd_getx", "l1_fwd_gets", "l1d_demand_misses", "l2_getx", "roi_insts"):
            if key in out and isinstance(out[key], float) and not math.isnan(out[key]):
                out[f"XX{key}_per_opXX"] = out[key] / ops
        if not math.isnan(out["roi_cycles"]) and cycles:
            # core-cycles per operation: comparable to the guest's per-thread cycles_per_op
            # when every core works through the whole ROI
            out["sim_cycles_per_op"] = out["roi_cycles"] * len(cycles) / ops
    return out
