"""Plots of result tables: throughput and cycles per operation against cores."""

import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
# An SVG's element ids are hashes salted at random, and it carries the time it was written: a fixed
# salt and no date, so a record re-made from the same table is the same file.
matplotlib.rcParams["svg.hashsalt"] = "vmscale"
import matplotlib.pyplot as plt  # noqa: E402

from vmscale.rows import cost_metric, curve_labels  # noqa: E402

STABLE = {"svg": {"Date": None}, "png": {}}     # savefig metadata per format


def save_figure(fig, stem) -> list:
    """PNG (to look at) and SVG (for papers) side by side, the same bytes for the same figure;
    closes the figure."""
    paths = []
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}", dpi=120, bbox_inches="tight", metadata=STABLE[ext])
        paths.append(f"{stem}.{ext}")
    plt.close(fig)
    return paths


def read_table(path) -> list:
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("ok") == "True" and r.get("cycles_per_op")]


def scaling_plot(table, stem, workload) -> list:
    """Two panels for one workload: throughput per variant with ideal linear, cycles/op."""
    rows = [r for r in read_table(table) if r["workload"] == workload]
    if not rows:
        return []
    key, metric = cost_metric(rows)
    series = defaultdict(lambda: defaultdict(list))
    for r, label in zip(rows, curve_labels(rows)):
        series[label][int(r["cores"])].append(float(r[key]))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    backends = {r["backend"] for r in rows}
    for label, by in sorted(series.items()):
        cores = sorted(by)
        cpo = [sum(by[n]) / len(by[n]) for n in cores]
        thr = [n / c * 1e6 for n, c in zip(cores, cpo)]
        line, = ax1.plot(cores, thr, "o-", label=label)
        ax1.plot(cores, [thr[0] / cores[0] * n for n in cores], ":", color=line.get_color(), lw=1)
        ax2.plot(cores, cpo, "o-", label=label, color=line.get_color())
    ax1.set(xlabel="cores", ylabel=f"operations per million cycles ({metric})",
            title=f"{workload}: throughput (dotted: linear)")
    ax2.set(xlabel="cores", ylabel=f"cycles per operation per core ({metric})", title=f"{workload}: cost per operation")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if "qemu" in backends:
        fig.text(0.5, -0.02, "QEMU (TCG) rows: functional timing that includes host scheduling of vCPUs, "
                 "not cycle-level", ha="center", fontsize=8, color="gray")
    return save_figure(fig, stem)


def twin_plot(table, stem, workload) -> list:
    """A paper-figure twin: our cycles per operation by variant, and beside it, on its own
    axes, what the paper states (published.py), so the two are never read as one dataset."""
    from vmscale import published
    rows = [r for r in read_table(table) if r["workload"] == workload]
    pts = published.points(workload)
    if not rows or not pts:
        return []
    p = published.PUBLISHED[workload]
    key, metric = cost_metric(rows)
    series = defaultdict(lambda: defaultdict(list))
    for r, label in zip(rows, curve_labels(rows)):
        series[label][int(r["cores"])].append(float(r[key]))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for label, by in sorted(series.items()):
        cores = sorted(by)
        ax1.plot(cores, [sum(by[n]) / len(by[n]) for n in cores], "o-", label=label)
    ax1.set(xlabel="cores", ylabel=f"cycles per operation per core ({metric})")
    ax1.set_title(f"vmscale: {workload}", fontsize=9)
    for i, (label, cores, value, rel) in enumerate(pts):
        marker = {"=": "s", "~": "D", ">": "^"}[rel]
        ax2.plot([cores], [value], marker, ms=8, color=f"C{i + 5}",
                 label=f"{label}: {'' if rel == '=' else rel + ' '}{value:,}")
        if rel == ">":
            ax2.annotate("", xy=(cores, value * 2.2), xytext=(cores, value),
                         arrowprops={"arrowstyle": "->", "color": f"C{i + 5}"})
    ax2.set_xlabel("cores")
    ax2.set_title(f"published: {p['figure']}", fontsize=9)
    top = max(v * (3 if rel == ">" else 1.5) for _, _, v, rel in pts)
    ax2.set_ylim(top=max(top, ax2.get_ylim()[1]))
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax2.set_xlim(4, 160)
    fig.text(0.5, -0.04, f"right: {p['source']}; {p['machine']}; {p['metric']} as stated in the text "
             "(not our data)", ha="center", fontsize=7, color="gray")
    return save_figure(fig, stem)
