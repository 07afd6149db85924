"""Each thread of a gem5 ROI: its cycles beside what its core did, by socket.

A curve's point is one number per case; its threads need not agree.  When some run slower, two
readings are possible and the stats tell them apart: a thread that waits on lines (longer misses,
more of them) or one that executes more (a spin or retry loop that hits in its L1, extra work).
So each thread's cycles (the harness's `thread_cycles`: thread i is pinned to CPU i) are set
beside its core's committed instructions and L1 demand misses in the case's ROI dump, and fitted
by least squares on each: a slope near the CPI of L1-hit code with r near 1 on instructions says
the slow threads execute more; on misses, that they wait on lines; a core busy (not halted) for a
small share of the ROI, that its thread sleeps (a sleeping lock: neither fit then explains it).

A run made with `--gem5 roi_profile=N` also traced N ns of every CPU's instructions every 100 us
(or roi_profile_period) of each ROI, with the kernel symbol of each (from roi_profile_start us into
the ROI: the per-operation figures then take the profiled span's share of the operations as its
share of the ROI's time): each thread's sampled instructions and time (an instruction's time is
the gap to its CPU's next one) by symbol, and the symbols the slower half of the threads spent
more time in than the faster half name what the slow ones do.

Pure logic over one dump and one result (per_thread, by_socket, fits, sampled, slower_by_symbol,
socket_shares); `load` reads a run directory (its ROI dumps by vmscale.backends.gem5.case_dumps).
"""

import gzip
import json
import lzma
import math
import re
from collections import Counter
from pathlib import Path

from vmscale import ipis, lockholds
from vmscale.errors import VmscaleError
from vmscale_gem5.options import ROI_PROFILE_PERIOD, roi_profile_period

PERIOD_TICKS = round(ROI_PROFILE_PERIOD * 1e12)     # the profile's period in ticks (ps)
_CORE = re.compile(r"board\.processor\.(?:cores|start|switch)(\d*)\.core\.(.+)")
# The symbols a CPU runs on taking a call-function IPI (a TLB shoot-down's flush, in 6.12 through
# smp_call_function_many_cond): its entry, the queue's walk, the flush, the EOI.  Shared entry code that
# page faults also take (irqentry_enter/exit) is left out: an IPI's cost is slightly under-counted.
IPI_HANDLER = frozenset({"asm_sysvec_call_function", "sysvec_call_function", "__sysvec_call_function",
                         "asm_sysvec_call_function_single", "sysvec_call_function_single",
                         "__sysvec_call_function_single", "generic_smp_call_function_single_interrupt",
                         "__flush_smp_call_function_queue", "flush_tlb_func", "irq_enter_rcu", "irq_exit_rcu",
                         "native_apic_mem_eoi"})
_L1 = re.compile(r"board\.cache_hierarchy\.ruby_system\.l1_controllers(\d*)\.(L1[DI]cache\.m_demand_misses)")


def per_thread(dump: dict, thread_cycles: list, per_socket: int = 0) -> list:
    """One row per thread: thread, cpu, socket (cpu // per_socket; 0 without sockets), its
    cycles, and its core's committed instructions, busy (not halted) and ROI cycles and L1 demand
    misses (I + D)."""
    insts, busy, misses, roi = {}, {}, {}, {}
    for k, v in dump.items():
        m = _CORE.fullmatch(k)
        if m and isinstance(v, float):
            cpu = int(m[1] or 0)
            if m[2] == "commitStats0.numInsts":     # as stats.summary counts them
                insts[cpu] = v
            elif m[2] == "exec_context.thread_0.numBusyCycles":
                busy[cpu] = v
            elif m[2] == "numCycles":
                roi[cpu] = v
            continue
        m = _L1.fullmatch(k)
        if m and isinstance(v, float):
            cpu = int(m[1] or 0)
            misses[cpu] = misses.get(cpu, 0.0) + v
    if not insts:
        raise VmscaleError("the ROI dump has no per-core committed instructions (not a gem5 CPU's stats?)")
    out = []
    for t, cycles in enumerate(thread_cycles):
        if t not in insts:
            raise VmscaleError(f"thread {t} ran on CPU {t}, which the ROI dump has no core for "
                               f"({len(insts)} cores)")
        out.append({"thread": t, "cpu": t, "socket": t // per_socket if per_socket else 0,
                    "cycles": float(cycles), "insts": insts[t], "busy_cycles": busy.get(t, math.nan),
                    "roi_cycles": roi.get(t, math.nan),
                    "l1_misses": misses.get(t, math.nan)})
    return out


def fit(xs: list, ys: list) -> dict:
    """Least squares y = a + b x: slope b, intercept a, correlation r (nan when x or y is constant)."""
    n = len(xs)
    if n < 2:
        return {"slope": math.nan, "intercept": math.nan, "r": math.nan}
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    if not sxx or not syy:
        return {"slope": math.nan, "intercept": math.nan, "r": math.nan}
    b = sxy / sxx
    return {"slope": b, "intercept": my - b * mx, "r": sxy / math.sqrt(sxx * syy)}


def fits(threads: list) -> dict:
    """Thread cycles fitted on instructions and on L1 misses."""
    ys = [t["cycles"] for t in threads]
    out = {"insts": fit([t["insts"] for t in threads], ys)}
    if not any(math.isnan(t["l1_misses"]) for t in threads):
        out["l1_misses"] = fit([t["l1_misses"] for t in threads], ys)
    return out


def by_socket(threads: list) -> list:
    """Mean cycles, instructions and misses of each socket's threads."""
    out = []
    for s in sorted({t["socket"] for t in threads}):
        ts = [t for t in threads if t["socket"] == s]
        mean = {k: sum(t[k] for t in ts) / len(ts)
                for k in ("cycles", "insts", "busy_cycles", "roi_cycles", "l1_misses")}
        out.append({"socket": s, "threads": len(ts), **mean})
    return out


def sampled(lines, rois: list, window_ticks: int, period_ticks: int = PERIOD_TICKS) -> tuple:
    """Exec-trace lines -> (per ROI {cpu: {"insts": Counter(symbol), "ticks": Counter(symbol)}},
    per ROI {window: Counter(symbol -> ticks of every CPU)}) for rois [(begin, end) ticks], windows
    numbered by period from the ROI's begin.  An instruction's time is the gap to its CPU's next
    traced one when that falls in the same window (shorter than window_ticks): the time it took to
    commit, a miss's wait included, so 'ticks' is where the CPU's time went and 'insts' what it
    executed.  User-mode PCs count as 'user', kernel PCs gem5 could not name as 'kernel:PC'."""
    from vmscale_gem5.profile import TRACE_LINE
    out = [{} for _ in rois]
    timeline = [{} for _ in rois]
    last = {}                                   # cpu -> (tick, roi, symbol) of its previous line
    for line in lines:
        m = TRACE_LINE.match(line)
        if not m:
            continue
        tick, cpu, pc, sym = int(m[1]), int(m[2] or 0), m[3], m[4]
        i = lockholds.roi_of(tick, rois)
        if i is None:
            continue
        if not sym:
            sym = "user" if int(pc, 16) < 1 << 47 else f"kernel:{pc}"
        mine = out[i].setdefault(cpu, {"insts": Counter(), "ticks": Counter()})
        mine["insts"][sym] += 1
        prev = last.get(cpu)
        if prev and prev[1] == i and 0 <= tick - prev[0] < window_ticks:
            mine["ticks"][prev[2]] += tick - prev[0]
            w = (prev[0] - rois[i][0]) // period_ticks
            timeline[i].setdefault(w, Counter())[prev[2]] += tick - prev[0]
        last[cpu] = (tick, i, sym)
    return out, timeline


def slower_by_symbol(threads: list, symbols: dict, top: int = 5, kind: str = "ticks") -> list:
    """The symbols the slower half of the threads (by cycles) spent more sampled time in ('ticks')
    or executed more of ('insts') than the faster half, per thread: [(symbol, slower, faster)],
    largest gap first."""
    ranked = sorted(threads, key=lambda t: t["cycles"])
    half = len(ranked) // 2
    if not half:
        return []
    fast, slow = ranked[:half], ranked[-half:]

    def of(t):
        return symbols.get(t["cpu"], {}).get(kind, Counter())

    def mean(group, sym):
        return sum(of(t)[sym] for t in group) / len(group)
    syms = {s for t in ranked for s in of(t)}
    gaps = [(s, mean(slow, s), mean(fast, s)) for s in syms]
    return sorted([g for g in gaps if g[1] > g[2]], key=lambda g: g[2] - g[1])[:top]


def socket_shares(threads: list, symbols: dict, kind: str = "ticks", top: int = 3) -> list:
    """Each socket's top symbols and their shares of its threads' sampled time (or instructions)."""
    out = []
    for s in sorted({t["socket"] for t in threads}):
        total = Counter()
        for t in threads:
            if t["socket"] == s:
                total.update(symbols.get(t["cpu"], {}).get(kind, Counter()))
        n = sum(total.values()) or 1
        out.append((s, [(k, v / n) for k, v in total.most_common(top)]))
    return out


def ipi_row(symbols: dict, received: float, ops: float, window_ticks: int, tick_per_cycle: float,
            period_ticks: int = PERIOD_TICKS, episodes: dict = None):
    """A holds.csv row (kind 'ipi') for the shoot-down IPIs the CPUs took in one ROI: holds = IPIs
    received (the kernel's vmstat count), hold_cycles = the CPUs' time handling them per IPI (the
    sampled time scaled by period / window: every CPU is traced in the same windows); None where
    none was received or none sampled.  The receivers' side of a shoot-down, which the initiator's
    wait (the kernel's radix_shootdown_cycles) does not hold.  With the ROI's episodes (ipis.episodes)
    the time is theirs, entry to return, and work_share the share of it that interrupted neither the
    CPU's own shoot-down wait nor its idle loop; without, the IPI_HANDLER symbols' time (an
    under-count: it misses the entry code and the queue's walk)."""
    ticks = sum(c["ticks"][s] for c in symbols.values() for s in IPI_HANDLER if s in c["ticks"])
    shares = {}
    if episodes and episodes.get("ticks", 0) > 0:
        ticks, shares = episodes["ticks"], ipis.split(episodes["interrupted"])
    if not (received > 0 and ops > 0 and ticks > 0 and tick_per_cycle == tick_per_cycle):
        return None
    per = ticks * period_ticks / window_ticks / tick_per_cycle / received
    return {"site": "call-function-ipi", "kind": "ipi", "holds": int(received), "hold_cycles": per,
            "weight": math.nan, "held": math.nan, "holds_per_op": received / ops,
            "work_share": shares.get("work", math.nan), "wait_share": shares.get("wait", math.nan),
            "idle_share": shares.get("idle", math.nan),
            "episodes": episodes["whole"] if episodes else math.nan,
            "interrupted": (episodes or {}).get("interrupted") or Counter()}


def span_share(begin: int, end: int, start_ticks: int) -> float:
    """The profiled span's share of its ROI's operations (and IPIs), taken as its share of the ROI's
    time: the span [begin, end) began roi_profile_start (start_ticks) into the ROI.  A start slower
    than the rest (the reason to skip it) leaves more of the operations in the span, so the
    per-operation figures are then upper bounds (all the ROI's operations give the lower ones).
    An empty span (the ROI ended before its first window) has none."""
    return (end - begin) / (end - begin + start_ticks) if end > begin else 0.0


def _hz(clock: str) -> float:
    m = re.fullmatch(r"([\d.]+)\s*([GMk]?)Hz", str(clock))
    if not m:
        raise VmscaleError(f"board clock {clock!r}: expected e.g. 2.4GHz")
    return float(m[1]) * {"G": 1e9, "M": 1e6, "k": 1e3, "": 1.0}[m[2]]


def _rois(path: Path) -> list:
    out, begin = [], None
    for line in path.read_text().splitlines():
        word, tick = line.split()
        if word == "begin":
            begin = int(tick)
        elif begin is not None:
            out.append((begin, int(tick)))
            begin = None
    return out


def load(run_dir) -> list:
    """Every case of a gem5 run directory with a result: its variant, workload and threads."""
    from vmscale.backends.gem5 import board_of, case_dumps
    run_dir = Path(run_dir)
    parsed, dumps = case_dumps(run_dir)
    per_socket, window_ns, tick_per_cycle, cores, period_ticks = 0, 1000, math.nan, 0, PERIOD_TICKS
    start_ticks = 0
    manifest = run_dir / "manifest.json"
    if manifest.is_file():
        m = json.loads(manifest.read_text())
        cores = int(m["cores"])
        a = board_of(m.get("gem5_options") or {}).namespace(cores)
        if a.topology == "sockets":
            per_socket = a.socket_cores
        window_ns = a.roi_profile or window_ns
        period_ticks = round(roi_profile_period(a) * 1e12)
        start_ticks = round(a.roi_profile_start * 1e6)     # us -> ps
        tick_per_cycle = 1e12 / _hz(a.clock)     # ps per cycle
    marks = run_dir / "m5out" / "profile-rois.txt"
    # a record may keep the trace as trace.out.xz (a third of gzip's size)
    trace = next((p for p in (run_dir / "m5out" / "trace.out.gz", run_dir / "m5out" / "trace.out.xz") if p.is_file()),
                 None)
    profiles = timelines = holds = None
    if trace and marks.is_file():
        rois = _rois(marks)
        if len(rois) != len(dumps):
            raise VmscaleError(f"{run_dir}: {len(rois)} profiled ROI(s) for {len(dumps)} case(s) with results")
        opener = lzma.open if trace.suffix == ".xz" else gzip.open
        with opener(trace, "rt", errors="replace") as f:
            profiles, timelines = sampled(f, rois, window_ns * 1000, period_ticks)
        with opener(trace, "rt", errors="replace") as f:
            acquired, intervals = [], []
            holds = lockholds.spans(f, rois, window_ns * 1000, period_ticks, acquired, intervals)
            occupancy = lockholds.occupancy(intervals, rois, window_ns * 1000, period_ticks)
        with opener(trace, "rt", errors="replace") as f:
            episodes = ipis.episodes(f, rois, window_ns * 1000)
    out = []
    for i, (cid, dump) in enumerate(dumps):
        case = parsed.cases[cid]
        tc = case.result.get("thread_cycles")
        if not tc:
            raise VmscaleError(f"{run_dir}: case {cid} ({case.variant}/{case.workload}) has no thread_cycles "
                               "in its result (a harness older than per-thread cycles)")
        threads = per_thread(dump, tc, per_socket)
        held = None
        if holds is not None:
            b, e = rois[i]
            share = span_share(b, e, start_ticks)
            ops = float(case.result.get("ops") or 0) * share
            held = lockholds.summary([h for h in holds if h["roi"] == i], window_ns * 1000, tick_per_cycle,
                                     windows=-(-(e - b) // period_ticks), roi_ticks=e - b, ops=ops,
                                     acquired=[a for a in acquired if a["roi"] == i])
            held += lockholds.cycle_rows(occupancy, acquired, i, tick_per_cycle, e - b, ops)
            ipi = ipi_row(profiles[i], share * float((case.result.get("vmstat") or {}).get(
                              "nr_tlb_remote_flush_received") or 0), ops, window_ns * 1000,
                          tick_per_cycle, period_ticks, episodes=episodes[i])
            held += [ipi] if ipi else []
        out.append({"case": cid, "variant": case.variant, "workload": case.workload, "cores": cores or len(tc),
                    "per_socket": per_socket, "threads": threads,
                    "symbols": profiles[i] if profiles is not None else None,
                    "timeline": timelines[i] if timelines is not None else None, "holds": held})
    return out


def render(cases: list) -> str:
    lines = []
    for c in cases:
        f = fits(c["threads"])
        lines.append(f"case {c['case']} {c['variant']}/{c['workload']}: {len(c['threads'])} threads")
        fi = f["insts"]
        lines.append(f"  cycles on instructions: {fi['slope']:.2f} cycles per instruction, r {fi['r']:.3f}")
        if "l1_misses" in f:
            fm = f["l1_misses"]
            lines.append(f"  cycles on L1 misses: {fm['slope']:.0f} cycles per miss, r {fm['r']:.3f}")
        lines.append("  socket  threads  cycles (mean)  instructions  L1 misses  busy (ROI)")
        for s in by_socket(c["threads"]):
            lines.append(f"  {s['socket']:>6}  {s['threads']:>7}  {s['cycles']:>13,.0f}  {s['insts']:>12,.0f}"
                         f"  {s['l1_misses']:>9,.0f}  {s['busy_cycles'] / s['roi_cycles']:>9.0%}")
        if c.get("symbols") is not None:
            lines.append("  sampled (roi_profile): where the slower half of the threads spent more time than the faster "
                         "half, ns per thread")
            for sym, slow, fast in slower_by_symbol(c["threads"], c["symbols"]):
                lines.append(f"    {sym:<40} {slow / 1e3:>9.0f} vs {fast / 1e3:>9.0f}")
            for sock, tops in socket_shares(c["threads"], c["symbols"]):
                lines.append(f"    socket {sock}: " + ", ".join(f"{k} {v:.0%}" for k, v in tops))
        if c.get("holds"):
            lines.append("  lock holds (roi_profile): site, kind, holds seen whole, mean hold, share of the ROI held, "
                         "holds per op, a sleeping lock's mean hand-off to its waiter")
            for h in [h for h in c["holds"] if h.get("kind") not in ("rwsem-cycle", "ipi")][:8]:
                g = h.get("handoff_cycles", math.nan)
                lines.append(f"    {h['site']:<32} {h.get('kind', 'irqsave'):<11} {h['holds']:>6}  "
                             f"{h['hold_cycles']:>9,.0f} cycles  {h.get('held', math.nan):>5.1%}  "
                             f"{h.get('holds_per_op', math.nan):.4f}"
                             + (f"  hand-off {g:,.0f} cycles ({h['handoffs']})" if g == g else ""))
            for h in [h for h in c["holds"] if h.get("kind") == "rwsem-cycle" and h["held"] + h["waiting"] >= 0.01]:
                v = h["holds_per_op"]
                lines.append(f"    {h['site']:<32} its cycle: a writer held it {h['held']:.1%} of the traced time, "
                             f"someone queued with no writer in it {h['waiting']:.1%}; per op {v:.2f} acquisitions, "
                             f"written {v * h['hold_cycles']:,.0f} + queued for {v * h['handoff_cycles']:,.0f} cycles")
            for h in [h for h in c["holds"] if h.get("kind") == "ipi"]:
                lines.append(f"    shoot-down IPIs received: {h['holds_per_op']:.3g} per op, {h['hold_cycles']:,.0f} cycles "
                             "each in the handler (sampled)")
                if h.get("work_share", math.nan) == h.get("work_share", math.nan):
                    top = ", ".join(f"{k} {v / sum(h['interrupted'].values()):.0%}"
                                    for k, v in h["interrupted"].most_common(4))
                    lines.append(f"      of it, {h['episodes']:,} whole episodes: interrupting work {h['work_share']:.0%}, "
                                 f"the CPU's own shoot-down wait {h['wait_share']:.0%}, idle {h['idle_share']:.0%} "
                                 f"({top})")
    return "\n".join(lines)


def symbols_csv(cases: list) -> str:
    rows = ["case,variant,workload,cpu,symbol,instructions,ticks"]
    for c in cases:
        for cpu, counts in sorted((c.get("symbols") or {}).items()):
            for sym, n in counts["insts"].most_common():
                rows.append(f"{c['case']},{c['variant']},{c['workload']},{cpu},{sym},{n},{counts['ticks'][sym]}")
    return "\n".join(rows) + "\n"


def holds_csv(cases: list) -> str:
    """The lock holds of each case (lockholds.summary), as the model's lock stations read them."""
    keys = ["site", "kind", "holds", "hold_cycles", "weight", "held", "holds_per_op", "handoffs", "handoff_cycles",
            "waiting", "hold_sd_cycles", "work_share"]
    rows = ["case,kernel_variant,workload,cores," + ",".join(keys)]
    for c in cases:
        for h in c.get("holds") or []:
            rows.append(f"{c['case']},{c['variant']},{c['workload']},{c['cores']}," + ",".join(
                str(h.get(k, "irqsave")) if k in ("site", "kind") else f"{h.get(k, math.nan):g}" for k in keys))
    return "\n".join(rows) + "\n"


def to_csv(cases: list) -> str:
    keys = ["thread", "cpu", "socket", "cycles", "insts", "busy_cycles", "roi_cycles", "l1_misses"]
    rows = ["case,variant,workload," + ",".join(keys)]
    for c in cases:
        for t in c["threads"]:
            rows.append(f"{c['case']},{c['variant']},{c['workload']}," + ",".join(f"{t[k]:g}" for k in keys))
    return "\n".join(rows) + "\n"


def plot(cases: list, stem: str) -> list:
    """One panel per case: each thread's cycles against its instructions, coloured by socket; under
    it, for a profiled run, where the CPUs' sampled time went through the ROI (top symbols)."""
    from vmscale.plots import plt, save_figure
    profiled = any(c.get("timeline") for c in cases)
    fig, axes = plt.subplots(2 if profiled else 1, len(cases), figsize=(4.5 * len(cases), 7.5 if profiled else 4),
                             squeeze=False)
    for ax, c in zip(axes[1] if profiled else [], cases):
        _timeline_panel(ax, c.get("timeline") or {})
    for ax, c in zip(axes[0], cases):
        ts = c["threads"]
        sc = ax.scatter([t["insts"] / 1e3 for t in ts], [t["cycles"] / 1e3 for t in ts],
                        c=[t["socket"] for t in ts], cmap="viridis", s=14)
        f = fits(ts)["insts"]
        if not math.isnan(f["slope"]):
            xs = sorted(t["insts"] for t in ts)
            ax.plot([xs[0] / 1e3, xs[-1] / 1e3], [(f["intercept"] + f["slope"] * x) / 1e3 for x in (xs[0], xs[-1])],
                    "k--", lw=0.8, label=f"{f['slope']:.2f} cycles/inst, r {f['r']:.3f}")
            ax.legend(fontsize=7)
        ax.set_title(f"{c['variant']}/{c['workload']}, {len(ts)} threads", fontsize=9)
        ax.set_xlabel("instructions committed in the ROI (thousands)")
        ax.set_ylabel("thread's cycles (thousands)")
        if c["per_socket"]:
            fig.colorbar(sc, ax=ax, label="socket")
    return save_figure(fig, stem)


def _timeline_panel(ax, timeline: dict, top: int = 5):
    total = Counter()
    for counts in timeline.values():
        total.update(counts)
    names = [k for k, _ in total.most_common(top)]
    ws = sorted(timeline)
    bottom = [0.0] * len(ws)
    for name in names + ["other"]:
        share = []
        for w in ws:
            n = sum(timeline[w].values()) or 1
            v = (n - sum(timeline[w][k] for k in names)) if name == "other" else timeline[w][name]
            share.append(v / n)
        ax.bar([w * 100 for w in ws], share, width=80, bottom=bottom, label=name[:28])
        bottom = [b + x for b, x in zip(bottom, share)]
    ax.set_xlabel("us into the ROI (one sampled window per 100 us)")
    ax.set_ylabel("share of the CPUs' sampled time")
    ax.legend(fontsize=6, loc="upper right")
