"""The fidelity card: what the CPU model does to a cost and to its scaling.

For each (workload, design) measured on one board with more than one CPU model: the cost at a low
and a high core count under each model, the scaling ratio cost(high) / cost(low), and beside them
the papers' absolute figure at the high count (vmscale.published, never mixed into ours).

Cost is the per-thread cycles per operation in the window where all threads ran
(window_cycles_per_op = threads / window throughput): comparable with the papers' per-operation
cycles, and the same figure whether threads finish together or not.
"""

import math
from collections import defaultdict

from vmscale.errors import VmscaleError
from vmscale.rows import ops_per_thread
from vmscale.published import PUBLISHED
from vmscale_gem5.board import Board

# CPU models in the card's order; a row's comes from its board label (cpu=..., default timing)
CPUS = ("timing", "o3")


def _num(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return math.nan
    return v


def split_label(label: str) -> tuple:
    """A row's board label -> (the CPU model, the label of the board without its CPU choices)."""
    b = Board.make(label or "")
    base = " ".join(w for w in (label or "").split() if not w.startswith(("cpu=", "tail_cpu=")))
    return b.cpu, base


def points(rows: list) -> tuple:
    """(board label without CPU choices, {(workload, variant, cpu, cores): mean cost}) from table
    rows of gem5 runs; rows that failed or have no cost are left out.  One board only.  Several
    tables: pass collect.replaced([rows, ...]), so that a re-made record's points replace the
    earlier record's instead of being averaged with them."""
    acc, boards = defaultdict(list), set()
    main = _main_sizes(rows)
    for r in rows:
        if r.get("backend") != "gem5" or str(r.get("ok")) != "True":
            continue
        if ops_per_thread(r) != main.get((r["workload"], r["kernel_variant"], r.get("gem5.board", ""))):
            continue        # a longer ROI at one count is a check of the curve's, never averaged into it
        cost = _num(r.get("window_cycles_per_op"))
        if math.isnan(cost):
            cost = _num(r.get("cycles_per_op"))
        if math.isnan(cost) or cost <= 0:
            continue
        cpu, base = split_label(r.get("gem5.board", ""))
        boards.add(base)
        acc[(r["workload"], r["kernel_variant"], cpu, int(r["cores"]))].append(cost)
    if not acc:
        raise VmscaleError("no successful gem5 rows with a cost in the tables")
    if len(boards) > 1:
        raise VmscaleError(f"the rows come from {len(boards)} boards ({'; '.join(sorted(b or 'default' for b in boards))}): "
                           "a fidelity card compares CPU models on one board")
    return boards.pop(), {k: sum(v) / len(v) for k, v in acc.items()}


def _main_sizes(rows: list) -> dict:
    """(workload, variant, board option string) -> the ROI size (operations per thread) measured at
    the most core counts: the curve's; the smaller size on a tie."""
    counts = defaultdict(set)
    for r in rows:
        counts[(r.get("workload"), r.get("kernel_variant"), r.get("gem5.board", ""), ops_per_thread(r))].add(r.get("cores"))
    main = {}
    for (w, v, b, k), cores in sorted(counts.items(), key=lambda kv: (kv[0][:3], -len(kv[1]), kv[0][3] or 0)):
        main.setdefault((w, v, b), k)
    return main


def published_at(workload: str, cores: int):
    """The paper's figure for this workload at this core count: (value, relation, what) or None."""
    for label, n, value, rel in PUBLISHED.get(workload, {}).get("points", []):
        if n == cores:
            return value, rel, label
    return None


def card(pts: dict, lo: int = 1, hi: int = 10) -> list:
    """One row per (workload, variant) with at least one CPU model measured at both counts."""
    out = []
    for w, v in sorted({(k[0], k[1]) for k in pts}):
        row = {"workload": w, "kernel_variant": v}
        for cpu in CPUS:
            a, b = pts.get((w, v, cpu, lo)), pts.get((w, v, cpu, hi))
            row[f"{cpu}_{lo}"], row[f"{cpu}_{hi}"] = a, b
            row[f"{cpu}_ratio"] = b / a if a and b else None
        if not any(row[f"{cpu}_ratio"] for cpu in CPUS):
            continue
        for n in (lo, hi):
            t, o = row["timing_%d" % n], row["o3_%d" % n]
            row[f"o3_over_timing_{n}"] = o / t if o and t else None
        pub = published_at(w, hi)
        row["published_%d" % hi] = pub[0] if pub else None
        row["published_what"] = f"{pub[1]} {pub[0]:,} ({pub[2]})" if pub else ""
        out.append(row)
    if not out:
        raise VmscaleError(f"no (workload, design) measured at both {lo} and {hi} cores under one CPU model")
    return out


def _f(x, fmt="{:,.0f}"):
    return "-" if x is None else fmt.format(x)


def markdown(rows: list, board: str, lo: int, hi: int) -> str:
    head = (f"| workload | design | Timing {lo} | Timing {hi} | Timing {hi}/{lo} | O3 {lo} | O3 {hi} | O3 {hi}/{lo} "
            f"| O3/Timing at {hi} | paper at {hi} |")
    lines = [f"Cycles per operation per thread (window), board `{board or 'default'}`; "
             f"ratios: cost at {hi} cores over cost at {lo}.", "", head, "|" + "---|" * 10]
    for r in rows:
        lines.append(f"| {r['workload']} | {r['kernel_variant']} | {_f(r[f'timing_{lo}'])} | {_f(r[f'timing_{hi}'])} "
                     f"| {_f(r['timing_ratio'], '{:.2f}')} | {_f(r[f'o3_{lo}'])} | {_f(r[f'o3_{hi}'])} "
                     f"| {_f(r['o3_ratio'], '{:.2f}')} | {_f(r[f'o3_over_timing_{hi}'], '{:.2f}')} "
                     f"| {r['published_what'] or '-'} |")
    cites = sorted({PUBLISHED[r["workload"]]["source"] for r in rows if r["published_what"]})
    if cites:
        lines += ["", "Papers' figures (measured on their machine, not by us): " + "; ".join(cites) + "."]
    return "\n".join(lines) + "\n"


def plot(rows: list, board: str, lo: int, hi: int, stem: str) -> list:
    """Cost at both counts under each CPU model, one group per (workload, design); the paper's
    figure at the high count as a marker of its own."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vmscale.plots import save_figure
    bars = [(cpu, n) for cpu in CPUS for n in (lo, hi)]
    width = 0.8 / len(bars)
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(rows)), 4))
    for i, (cpu, n) in enumerate(bars):
        xs = [j + (i - (len(bars) - 1) / 2) * width for j in range(len(rows))]
        ys = [r[f"{cpu}_{n}"] or 0 for r in rows]
        ax.bar(xs, ys, width, label=f"{'Timing' if cpu == 'timing' else 'O3'}, {n} core{'s' if n > 1 else ''}",
               hatch="//" if cpu == "o3" else None, alpha=0.55 if n == lo else 0.95,
               color="tab:blue" if cpu == "timing" else "tab:orange")
    pub = [(j, r[f"published_{hi}"]) for j, r in enumerate(rows) if r.get(f"published_{hi}")]
    if pub:
        ax.scatter([j for j, _ in pub], [p for _, p in pub], marker="*", s=140, color="black", zorder=3,
                   label=f"paper, {hi} cores (their machine)")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['workload']}\n{r['kernel_variant']}" for r in rows])
    ax.set_ylabel("cycles per operation per thread (window)")
    ax.set_yscale("log")
    ax.set_title(f"CPU-model fidelity: gem5 Timing vs O3, board {board or 'default'}")
    ax.legend(fontsize=8)
    return save_figure(fig, stem)
