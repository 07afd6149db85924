"""Bonsai Figure 18's twin: the cost of a page fault while thread 0 spends a growing share of its
operations on mmap/munmap (each takes mmap_lock for writing), relative to each design's cost with
none (`fault.mmap_pct`=0), at one core count.

The cost is the faulting threads' own: thread 0's cycles include its mappings, so it is left out,
and each other thread's cycles per fault (`thread_cycles` / its faults) is averaged; the window
figure (all threads running) is kept beside it.  Pure logic here; the plot and the Markdown take
the result.
"""

import json
from collections import defaultdict

from vmscale import published
from vmscale.errors import VmscaleError


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _thread_cycles(r):
    t = r.get("thread_cycles")
    if isinstance(t, str):
        try:
            t = json.loads(t)
        except ValueError:
            return None
    return t if isinstance(t, list) and t else None


def faulting_cost(r) -> float:
    """Cycles per fault of the threads that only fault (all but thread 0); every thread faults the
    same number of pages (ops / threads)."""
    t, ops, threads = _thread_cycles(r), _num(r.get("ops")), _num(r.get("threads") or r.get("cores"))
    if not t or not ops or not threads:
        raise VmscaleError(f"fault row at {r.get('cores')} cores has no per-thread cycles",
                           "collect it from a run's results.jsonl (thread_cycles)")
    per = ops / threads
    rest = t[1:] if len(t) > 1 else t
    return sum(rest) / len(rest) / per


def rows_of(rows: list) -> list:
    """The fault rows of a Figure 18 sweep: ok, with mmap_pct, at one core count and board."""
    mine = [r for r in rows if r.get("workload") == "fault" and str(r.get("ok")) == "True"
            and _num(r.get("params.mmap_pct")) is not None]
    return mine if len({_num(r["params.mmap_pct"]) for r in mine}) > 1 else []


def relative(rows: list) -> dict:
    """{(cores, board): {variant: {pct: {"cost", "relative", "window", "window_relative"}}}}; a
    variant without its mmap_pct=0 point is left out (nothing to normalise to)."""
    acc = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows_of(rows):
        key = (int(float(r["cores"])), r.get("gem5.board") or r.get("backend"))
        acc[key][r["kernel_variant"]][_num(r["params.mmap_pct"])].append(r)
    out = {}
    for key, variants in sorted(acc.items()):
        for v, by in sorted(variants.items()):
            if 0.0 not in by:
                continue
            cost = {p: sum(faulting_cost(r) for r in rs) / len(rs) for p, rs in by.items()}
            win = {p: [_num(r.get("window_cycles_per_op")) for r in rs] for p, rs in by.items()}
            win = {p: sum(w) / len(w) if all(w) else None for p, w in win.items()}
            out.setdefault(key, {})[v] = {
                p: {"cost": cost[p], "relative": cost[p] / cost[0.0], "window": win[p],
                    "window_relative": win[p] / win[0.0] if win[p] and win[0.0] else None}
                for p in sorted(by)}
    return out


def by_cores(rel: dict) -> dict:
    """{(board, pct): {variant: {cores: relative}}} for every mmap_pct above 0 that two or more core
    counts of one board measured: how a design's cost under mapping grows with the machine (Bonsai's
    figure is at 80 cores)."""
    acc = {}
    for (cores, board), variants in rel.items():
        for v, by in variants.items():
            for p, d in by.items():
                if p > 0:
                    acc.setdefault((board, p), {}).setdefault(v, {})[cores] = d["relative"]
    return {k: dict(sorted(vs.items())) for k, vs in sorted(acc.items())
            if len({c for by in vs.values() for c in by}) > 1}


def markdown(rel: dict) -> str:
    """A table per core count: each design's fault cost by mmap_pct, relative to its own base,
    then what Bonsai states (cited, not our data)."""
    lines = []
    for (cores, board), variants in rel.items():
        pcts = sorted({p for by in variants.values() for p in by})
        lines += [f"Page-fault cost while thread 0 maps and unmaps, {cores} cores ({board}); the faulting "
                  "threads' cycles per fault, relative to the design's own at mmap_pct 0 (in brackets: the "
                  "window figure's ratio, all threads running):", "",
                  "| design | " + " | ".join(f"mmap_pct {p:g}" for p in pcts) + " |",
                  "|---|" + "---|" * len(pcts)]
        for v, by in variants.items():
            cells = []
            for p in pcts:
                d = by.get(p)
                if not d:
                    cells.append("-")
                    continue
                w = f" [{d['window_relative']:.2f}]" if d.get("window_relative") else ""
                cells.append(f"{d['relative']:.2f}x ({d['cost']:,.0f}){w}")
            lines.append(f"| {v} | " + " | ".join(cells) + " |")
        lines.append("")
    for (board, pct), variants in by_cores(rel).items():
        counts = sorted({c for by in variants.values() for c in by})
        lines += [f"The same cost at mmap_pct {pct:g}, relative to each design's own at 0, by core count ({board}):",
                  "", "| design | " + " | ".join(f"{c} cores" for c in counts) + " |", "|---|" + "---|" * len(counts)]
        for v, by in variants.items():
            lines.append(f"| {v} | " + " | ".join(f"{by[c]:.2f}x" if c in by else "-" for c in counts) + " |")
        lines.append("")
    p = published.FIG18
    lines += [f"Published ({p['figure']}; {p['source']}; {p['machine']}), not our data:", ""]
    lines += [f"- {c}" for c in p["claims"]]
    return "\n".join(lines) + "\n"


def plot(rel: dict, stem: str) -> list:
    """Our relative fault cost by mmap_pct per design (left), Bonsai's stated end points (right)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from vmscale.plots import save_figure
    if not rel:
        return []
    grown = by_cores(rel)
    fig, axes = plt.subplots(1, 3 if grown else 2, figsize=(16 if grown else 11, 4.4))
    ax1, ax2 = axes[0], axes[-1]
    # a design keeps its colour, a core count its line style
    designs = sorted({v for variants in rel.values() for v in variants})
    counts = sorted({c for c, _ in rel})
    styles = ["-", "--", ":", "-."]
    for (cores, board), variants in rel.items():
        for v, by in variants.items():
            pcts = sorted(by)
            ax1.plot(pcts, [by[p]["relative"] for p in pcts], marker="o", color=f"C{designs.index(v)}",
                     ls=styles[counts.index(cores) % len(styles)], label=f"{v} ({cores} cores, {board})")
    ax1.axhline(1.0, color="gray", lw=0.8)
    if grown:
        ax3 = axes[1]
        for i, ((board, pct), variants) in enumerate(grown.items()):
            for v, by in variants.items():
                cs = sorted(by)
                ax3.plot(cs, [by[c] for c in cs], marker="o", color=f"C{designs.index(v)}",
                         ls=styles[-1 - i % len(styles)], label=f"{v}, mmap_pct {pct:g}")
        ax3.axhline(1.0, color="gray", lw=0.8)
        ax3.set_xscale("log", base=2)
        ax3.set_xticks(counts, [str(c) for c in counts])
        ax3.minorticks_off()
        ax3.set(xlabel="cores", ylabel="cycles per fault / the design's own at 0%")
        ax3.set_title("vmscale: the same, by core count\n(Bonsai's figure is at 80 cores)", fontsize=9)
    ax1.set(xlabel="share of thread 0's operations that are mmap+munmap (%)",
            ylabel="cycles per fault / the design's own at 0%")
    ax1.set_title("vmscale: fault while thread 0 maps\n(the faulting threads' cycles per fault)", fontsize=9)
    p = published.FIG18
    for i, (label, value) in enumerate(p["ends"]):
        ax2.bar(i, value, color=f"C{i + 5}", label=f"{label}: {value:g}x")
    ax2.set_xticks(range(len(p["ends"])), [lab.split(" (")[0] for lab, _ in p["ends"]], fontsize=7)
    ax2.set(ylabel="cost relative to base, at the most mapping time")
    ax2.set_title("published: Bonsai Figure 18, the end points its text states\n(not our data)", fontsize=9)
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.text(0.5, -0.06, f"right: {p['source']};\n{p['machine']}; its x axis is the time one core spends "
             "mapping, ours the share of thread 0's operations", ha="center", fontsize=7, color="gray")
    fig.tight_layout()
    return save_figure(fig, stem)
