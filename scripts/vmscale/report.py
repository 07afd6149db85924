"""`vmscale plot` and `vmscale report`: figures and a Markdown report from one tidy table.

The report pairs each workload with the seed papers' figure it reproduces when the data
is there (RadixVM Fig. 5 local/pipeline/global, Fig. 8 pageshare; Bonsai Fig. 16-18 fault).
"""

import csv
import os
import re
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from vmscale import hotlines, plots, published  # noqa: E402
from vmscale.errors import VmscaleError  # noqa: E402
from vmscale.plots import save_figure  # noqa: E402
from vmscale.rows import curve_labels  # noqa: E402
from vmscale.fileutil import atomic_write_text  # noqa: E402
from vmscale_gem5 import stats  # noqa: E402

TWINS = {
    "local": "RadixVM Figure 5 (local)", "pipeline": "RadixVM Figure 5 (pipeline)",
    "global": "RadixVM Figure 5 (global)", "pageshare": "RadixVM Figure 8 (page sharing)",
    "fault": "Bonsai Figures 16-18 (page-fault microbenchmark)", "pagecache": "Piggin, lockless pagecache lookups",
    "refcount": "RadixVM Figure 8 (shared counter vs Refcache; percpu_ref for SNZI)",
    "lazymm": "Refcache's first kernel user: lazy-TLB mm_count",
    "footprint": "RadixVM Table 2 (radix tree vs VMA tree memory)",
    "reclaim": "PARSEC Figure 5 (read/update micro-benchmark: RCU vs TSC quiescence)",
}
RUBY_METRICS = [("gem5.l1_inv_per_op", "L1 invalidations per op"),
                ("gem5.l1_fwd_getx_per_op", "forwarded GETX per op"),
                ("gem5.ruby_miss_latency_mean", "Ruby miss latency (cycles)")]


def _num(v):
    try:
        return float(v) if v not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _rows(table):
    try:
        return list(csv.DictReader(open(table, newline="")))
    except FileNotFoundError:
        raise VmscaleError(f"{table}: no such table", "make one with `vmscale collect` or `vmscale sweep run`")


def ruby_plot(table, stem, workload) -> list:
    rows = [r for r in _rows(table) if r["workload"] == workload and r.get("ok") == "True"]
    present = [(k, label) for k, label in RUBY_METRICS if any(r.get(k) for r in rows)]
    if not present:
        return []
    fig, axes = plt.subplots(1, len(present), figsize=(4.5 * len(present), 3.6), squeeze=False)
    for ax, (key, label) in zip(axes[0], present):
        by = defaultdict(lambda: defaultdict(list))
        for r, label in zip(rows, curve_labels(rows, with_backend=False)):
            if r.get(key):
                by[label][int(r["cores"])].append(float(r[key]))
        for v, pts in sorted(by.items()):
            n = sorted(pts)
            ax.plot(n, [sum(pts[c]) / len(pts[c]) for c in n], "o-", label=v)
        ax.set(xlabel="cores", title=label)
        ax.set_xscale("log", base=2)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    return save_figure(fig, stem)


def plot_all(table, out_dir, model=False) -> dict:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = _rows(table)
    figures = {}
    for w in sorted({r["workload"] for r in rows}):
        figs = plots.scaling_plot(table, str(out_dir / f"scaling-{w}"), w)
        figs += plots.twin_plot(table, str(out_dir / f"twin-{w}"), w)
        figs += ruby_plot(table, str(out_dir / f"ruby-{w}"), w)
        if model:
            from vmscale_model import fit as fitlib, outputs
            mine = [r for r in rows if r["workload"] == w and r.get("ok") == "True"]
            curves = defaultdict(list)   # one fit per curve: a board and a ROI size each
            for r, label in zip(mine, curve_labels(mine, with_backend=False)):
                curves[label].append(r)
            for label, rs in sorted(curves.items()):
                try:
                    tf = fitlib.fit_table(rs)
                except fitlib.FitError as e:
                    print(f"report: no model for {w}/{label}: {e}")
                    continue
                slug = re.sub(r"[^A-Za-z0-9._]+", "-", label).strip("-")
                figs += outputs.write_fit(tf, out_dir / f"model-{w}-{slug}", f"{w} / {label}: contended-line model")[:1]
        figures[w] = figs
    return figures


def _real_machines(workload, ok, out_dir) -> list:
    """Published real-machine scaling beside this table's curves (vmscale.realmachines), when
    the table has a gem5 curve of the workload from one core on one board."""
    from vmscale import fidelity, realmachines
    from vmscale.errors import VmscaleError
    if not realmachines.published(workload):
        return []
    try:
        board, pts = fidelity.points([r for r in ok if r["workload"] == workload])
        mine = realmachines.ours(pts, workload)
    except VmscaleError:
        return []
    figs = realmachines.plot(workload, mine, board, str(out_dir / f"realscale-{workload}"))
    return ["", f"![realscale-{workload}](realscale-{workload}.png)" if figs else "", "",
            realmachines.markdown(workload, mine, board)]


def _fig18(ok, out_dir) -> list:
    """Bonsai Figure 18's twin (vmscale.faultmmap) when the table has fault at several mmap_pct."""
    from vmscale import faultmmap
    rel = faultmmap.relative(ok)
    if not rel:
        return []
    figs = faultmmap.plot(rel, str(out_dir / "twin-fault-mmap"))
    return ["", "### Bonsai Figure 18: faults while thread 0 maps", "",
            "![twin-fault-mmap](twin-fault-mmap.png)" if figs else "", "", faultmmap.markdown(rel)]


def _per_thread(r) -> str:
    k = stats.window_ops_per_thread(r)
    if k != k:
        return "-"
    notes = ["coarse"] if stats.coarse_window(r) else []
    if stats.wide_edges(r):
        share, timed = stats.window_edges(r)
        notes.append(f"edges {share:.0%}" if timed else f"untimed edges ~{share:.0%}")
    return f"**{k:.3g}** ({'; '.join(notes)})" if notes else f"{k:.3g}"


def report(table, out_dir, model=False) -> Path:
    out_dir = Path(out_dir)
    figures = plot_all(table, out_dir, model)
    rows = [r for r in _rows(table)]
    ok = [r for r in rows if r.get("ok") == "True"]
    backends = sorted({r["backend"] for r in rows})
    dates = sorted({r["date"][:10] for r in rows if r.get("date")})
    lines = [f"# vmscale report: {Path(table).name}", "",
             f"{len(rows)} rows ({len(rows) - len(ok)} failed), backends {', '.join(backends)}, "
             f"kernels {', '.join(sorted({r.get('kernel_release') or '?' for r in rows}))}; "
             # the newest run's date, not the clock's: a report re-made from its table is the same file
             f"runs from {min(dates, default='?')} to {max(dates, default='?')}.", ""]
    if "qemu" in backends:
        lines += ["QEMU rows are functional runs under TCG: their cycle counts include host scheduling of the "
                  "vCPUs and are not cycle-level measurements.", ""]
    for w, figs in figures.items():
        lines += [f"## {w}: twin of {TWINS.get(w, '-')}", ""]
        lines += [f"![{Path(os.path.relpath(f, out_dir)).with_suffix('')}]({os.path.relpath(f, out_dir)})"
                  for f in figs if f.endswith(".png")]
        cited = published.markdown(w)
        if cited:
            lines += ["", cited]
            ours = published.our_ratios([r for r in ok if r["workload"] == w and r.get("cycles_per_op")])
            if ours:
                lines += ["", ours]
        lines += _real_machines(w, ok, out_dir)
        if w == "fault":
            lines += _fig18(ok, out_dir)
        hot = hotlines.companion(table)
        if hot.is_file() and hotlines.markdown(hot, w):
            lines += ["", hotlines.markdown(hot, w)]
        lines += ["", "| variant | cores | cycles/op (thread mean) | window cycles/op | window ops per kcycle | "
                  "window ops per thread | LLC evictions/op | capacity | cores' work | ok |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        mine = [r for r in rows if r["workload"] == w]
        for label, r in sorted(zip(curve_labels(mine, with_backend=False), mine), key=lambda p: (p[0], int(p[1]["cores"]))):
            rate = _num(r.get("window_ops_per_cycle"))
            ev = _num(r.get("gem5.llc_evictions_per_op"))
            lines.append(f"| {label} | {r['cores']} | {r.get('cycles_per_op') or '-'} | "
                         f"{r.get('window_cycles_per_op') or '-'} | {f'{rate * 1e3:.3g}' if rate else '-'} | "
                         f"{_per_thread(r)} | {f'{ev:.2f}' if ev is not None else '-'} | "
                         f"{'**LLC-bound**' if stats.capacity_bound(r) else '-'} | "
                         f"{'**uneven**' if stats.uneven_work(r) else '-'} | {r['ok']} |")
        if any(stats.capacity_bound(r) for r in mine):
            lines += ["", f"**LLC-bound**: at least {stats.CAPACITY_EVICTIONS_PER_OP:g} LLC eviction per op, or at least "
                      f"{stats.CAPACITY_INV_SHARE:.0%} of the L1 invalidations caused by LLC evictions: the board's "
                      "shared cache, not the design's sharing, explains that point's cost (vmscale_gem5.stats.capacity)."]
        if any(stats.coarse_window(r) for r in mine):
            lines += ["", f"**coarse**: fewer than {stats.COARSE_WINDOW_OPS} counting steps per thread inside the window "
                      "(an operation, or a workload's `chunk` of them that one write to its /proc file runs), which "
                      "counts whole steps: its throughput is exact only to about one step per thread "
                      "(low where the threads run in lockstep, each with one in flight at its close; "
                      "vmscale_gem5.stats.coarse_window). A longer ROI, or the slope between two ROI sizes, says more."]
        if any(stats.wide_edges(r) for r in mine):
            lines += ["", "**edges**: the window opens and closes with a scan of every thread's count, a line each "
                      "(a transfer across the board's sockets per count), and each edge is the mean time of its "
                      "scan's reads; the percentage is half the two scans' span over the window, what the edges are "
                      "off by if the threads' rates change during a scan. **untimed edges** (runs before session 63): "
                      "the window counted the scans' operations but not their cycles, so its throughput is high by "
                      f"about that share (a scan estimated at {stats.UNTIMED_SCAN_CYCLES} cycles a count, an upper "
                      "estimate; vmscale_gem5.stats.window_edges, FINDINGS, session 63)."]
        if any(stats.uneven_work(r) for r in mine):
            lines += ["", f"**uneven**: a core committed at least {stats.UNEVEN_WORK:g}x another core's instructions in "
                      "the ROI: something besides the workload's equal shares ran there (or its threads' shares are "
                      "unequal by design), so the guest, not the design, explains part of that point (vmscale_gem5.stats)."]
        lines.append("")
    path = out_dir / "report.md"
    atomic_write_text(path, "\n".join(lines) + "\n")
    return path
