"""Each thread of a gem5 ROI: its cycles beside what its core did, by socket.

A curve's point is one number per case; its threads need not agree.  When some run slower, two
readings are possible and the stats tell them apart: a thread that waits on lines (longer misses,
more of them) or one that executes more (a spin or retry loop that hits in its L1, extra work).
So each thread's cycles (the harness's `thread_cycles`: thread i is pinned to CPU i) are set
beside its core's committed instructions and L1 demand misses in the case's ROI dump, and fitted
by least squares on each: a slope near the CPI of L1-hit code with r near 1 on instructions says
the slow threads execute more; on misses, that they wait on lines; a core busy for a small share
of its thread's cycles, that the thread sleeps (a sleeping lock: neither fit then explains it).

Pure logic over one dump and one result (per_thread, by_socket, fits); `load` reads a run
directory.
"""

import gzip
import json
import math
import re
from pathlib import Path

from vmscale.errors import VmscaleError

_CORE = re.compile(r"board\.processor\.(?:cores|start|switch)(\d*)\.core\.(.+)")
_L1 = re.compile(r"board\.cache_hierarchy\.ruby_system\.l1_controllers(\d*)\.(L1[DI]cache\.m_demand_misses)")


def per_thread(dump: dict, thread_cycles: list, socket_cores: int = 0) -> list:
    """One row per thread: thread, cpu, socket (cpu // socket_cores; 0 without sockets), its
    cycles, and its core's committed instructions, busy cycles and L1 demand misses (I + D)."""
    insts, busy, misses = {}, {}, {}
    for k, v in dump.items():
        m = _CORE.fullmatch(k)
        if m and isinstance(v, float):
            cpu = int(m[1] or 0)
            if m[2] in ("commitStats0.numInsts", "committedInsts"):
                insts[cpu] = v
            elif m[2] == "exec_context.thread_0.numBusyCycles":
                busy[cpu] = v
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
        out.append({"thread": t, "cpu": t, "socket": t // socket_cores if socket_cores else 0,
                    "cycles": float(cycles), "insts": insts[t], "busy_cycles": busy.get(t, math.nan),
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
        mean = {k: sum(t[k] for t in ts) / len(ts) for k in ("cycles", "insts", "busy_cycles", "l1_misses")}
        out.append({"socket": s, "threads": len(ts), **mean})
    return out


def load(run_dir) -> list:
    """Every case of a gem5 run directory with a result: its variant, workload and threads."""
    run_dir = Path(run_dir)
    from vmscale import console as consolelib
    from vmscale_gem5 import stats
    kept = [run_dir / "m5out" / "stats.txt", run_dir / "m5out" / "stats.txt.gz"]
    path = next((p for p in kept if p.is_file()), None)
    if path is None or not (run_dir / "console.log").is_file():
        raise VmscaleError(f"{run_dir}: no m5out/stats.txt(.gz) and console.log: not a finished gem5 run directory")
    text = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
    dumps = stats.parse(text)
    parsed = consolelib.parse((run_dir / "console.log").read_text(errors="replace"))
    done = [cid for cid in sorted(parsed.cases) if parsed.cases[cid].result]
    if len(dumps) not in (len(done), len(done) + 1):
        raise VmscaleError(f"{run_dir}: {len(dumps)} stats dump(s) for {len(done)} case(s) with results: "
                           "cannot tell which ROI is whose")
    socket_cores = 0
    manifest = run_dir / "manifest.json"
    if manifest.is_file():
        values = json.loads(manifest.read_text()).get("board_values") or {}
        if values.get("topology") == "sockets":
            socket_cores = int(values.get("socket_cores") or 0)
    out = []
    for cid, dump in zip(done, dumps):
        case = parsed.cases[cid]
        tc = case.result.get("thread_cycles")
        if not tc:
            raise VmscaleError(f"{run_dir}: case {cid} ({case.variant}/{case.workload}) has no thread_cycles "
                               "in its result (a harness older than per-thread cycles)")
        out.append({"case": cid, "variant": case.variant, "workload": case.workload,
                    "socket_cores": socket_cores, "threads": per_thread(dump, tc, socket_cores)})
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
        lines.append("  socket  threads  cycles (mean)  instructions  L1 misses  core busy")
        for s in by_socket(c["threads"]):
            lines.append(f"  {s['socket']:>6}  {s['threads']:>7}  {s['cycles']:>13,.0f}  {s['insts']:>12,.0f}"
                         f"  {s['l1_misses']:>9,.0f}  {s['busy_cycles'] / s['cycles']:>8.0%}")
    return "\n".join(lines)


def to_csv(cases: list) -> str:
    keys = ["thread", "cpu", "socket", "cycles", "insts", "busy_cycles", "l1_misses"]
    rows = ["case,variant,workload," + ",".join(keys)]
    for c in cases:
        for t in c["threads"]:
            rows.append(f"{c['case']},{c['variant']},{c['workload']}," + ",".join(f"{t[k]:g}" for k in keys))
    return "\n".join(rows) + "\n"


def plot(cases: list, stem: str) -> list:
    """One panel per case: each thread's cycles against its instructions, coloured by socket."""
    from vmscale.plots import plt, save_figure
    fig, axes = plt.subplots(1, len(cases), figsize=(4.5 * len(cases), 4), squeeze=False)
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
        if c["socket_cores"]:
            fig.colorbar(sc, ax=ax, label="socket")
    return save_figure(fig, stem)
