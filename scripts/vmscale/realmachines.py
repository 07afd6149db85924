"""Published page-fault scaling of Linux on real many-core machines, beside our curves.

Each entry is one published measurement, copied from its source with the machine it ran on.
Compared as a scaling ratio, throughput at N threads over throughput at one, because a
simulated core and a real one do different amounts of work per cycle (docs/gem5.md, CPU-model
fidelity): the ratio says how a design's cost grows with the cores, which both sides can state.
Never mixed into our tables: a published series is its own column and its own panel.
"""

from vmscale.errors import VmscaleError

# One mmtests pft-threads run: threads write-fault fresh anonymous pages of one ~100 GB
# mapping, so one VMA, as our `fault` workload's one region.  Harmonic mean of 10 runs per
# thread count (mmtests compare-kernels).  The baseline took mmap_lock for reading on every
# fault (our `rwlock`); the per-VMA lock series takes the VMA's lock instead (Linux 6.4 on,
# our `stock`).  The same post's second run gives each thread a VMA of its own.
PFT_PER_VMA_LOCKS = {
    "workload": "fault",
    "benchmark": ("mmtests pft-threads: threads write-fault fresh anonymous pages of one mapping (~100 GB), "
                  "faults per second, harmonic mean of 10 runs"),
    "source": ('Punit Agrawal, "Re: [PATCH v2 00/33] Per-VMA locks", linux-mm and linux-kernel, 28 Feb 2023, '
               "Message-ID <87fsaqouyd.fsf_-_@stealth> (lore.kernel.org/all/87fsaqouyd.fsf_-_@stealth)"),
    "machine": "2 sockets, 32 cores, 64 hardware threads: Intel Xeon 8336C (Ice Lake), 512 GB",
    "cores": 32,
    "hw_threads": 64,
    # label -> (our variant it stands beside, or None; {threads: faults per second})
    "series": {
        "mmap_lock, one VMA (6.2-rc4 mm-unstable-20230210)": ("rwlock", {
            1: 898781.7694, 4: 2965588.9697, 7: 4144512.3996, 12: 4969513.6934, 21: 5814379.4789,
            30: 6153685.3709, 48: 6197953.1327, 79: 6167135.3738, 110: 6264768.2247, 128: 6460727.8216}),
        "per-VMA locks, one VMA (v2 series on 6.2-rc4)": ("stock", {
            1: 894247.3174, 4: 2683651.5664, 7: 3891644.2128, 12: 4829731.4355, 21: 5941405.3116,
            30: 6489311.6634, 48: 7216320.7727, 79: 7425927.1022, 110: 7813329.3863, 128: 7875664.8999}),
        "per-VMA locks, a VMA per thread (v2 series on 6.2-rc4)": (None, {
            1: 887244.6592, 4: 3154236.9408, 7: 4933286.4045, 12: 6054577.0988, 21: 7637637.4162,
            30: 8598150.6717, 48: 9467132.3699, 79: 11919062.5284, 110: 15050228.1869, 128: 16647275.6575}),
    },
}

PUBLISHED = [PFT_PER_VMA_LOCKS]


def ratios(rate_at: dict) -> dict:
    """{N: rate at N / rate at 1}: a curve's scaling ratio; refused without a one-thread point."""
    if 1 not in rate_at or not rate_at[1] > 0:
        raise VmscaleError("a scaling ratio needs the rate at one thread")
    return {n: rate_at[n] / rate_at[1] for n in sorted(rate_at)}


def published(workload: str) -> list:
    """[(entry, label, our variant or None, {threads: ratio})] for a workload."""
    return [(p, label, ours, ratios(rates)) for p in PUBLISHED if p["workload"] == workload
            for label, (ours, rates) in p["series"].items()]


def ours(pts: dict, workload: str) -> dict:
    """Our scaling ratios from vmscale.fidelity.points' {(workload, variant, cpu, cores): window
    cycles per op per thread}: throughput at N is N / cost(N), so the ratio is N * cost(1) / cost(N).
    {(variant, cpu): {cores: ratio}}, only curves measured at one core."""
    curves = {}
    for (w, v, cpu, n), cost in pts.items():
        if w == workload:
            curves.setdefault((v, cpu), {})[n] = n / cost
    out = {k: ratios(c) for k, c in sorted(curves.items()) if 1 in c}
    if not out:
        raise VmscaleError(f"no {workload} curve of ours has a one-core point: a scaling ratio needs it")
    return out


def _mark(entry, n):
    """A published thread count past the physical cores runs on SMT siblings; past the hardware
    threads, more threads than the machine has."""
    return "‡" if n > entry["hw_threads"] else "†" if n > entry["cores"] else ""


def table(workload: str, mine: dict) -> list:
    """Long-form rows for a CSV: one per (source, series, count)."""
    rows = []
    for entry, label, variant, r in published(workload):
        for n, x in r.items():
            rows.append({"source": "published", "series": label, "beside": variant or "", "cpu": "",
                         "machine": entry["machine"], "cores": n, "scaling_ratio": round(x, 4),
                         "note": {"†": "SMT siblings", "‡": "more threads than hardware threads"}.get(_mark(entry, n), "")})
    for (v, cpu), r in mine.items():
        for n, x in r.items():
            rows.append({"source": "vmscale", "series": f"{workload}/{v}", "beside": v, "cpu": cpu,
                         "machine": "", "cores": n, "scaling_ratio": round(x, 4), "note": ""})
    return rows


def markdown(workload: str, mine: dict, board: str) -> str:
    """Two tables, the published one and ours, and one line per design setting them side by side
    at the largest count each has within its machine's physical cores."""
    pub = published(workload)
    if not pub:
        return ""
    lines = []
    for entry in {id(p): p for p, *_ in pub}.values():
        series = [(label, v, r) for p, label, v, r in pub if p is entry]
        counts = sorted({n for _, _, r in series for n in r})
        lines += [f"Published, not our data: {entry['benchmark']}; {entry['machine']}; {entry['source']}.", "",
                  "| threads | " + " | ".join(label for label, _, _ in series) + " |",
                  "|---|" + "---|" * len(series)]
        for n in counts:
            lines.append(f"| {n}{_mark(entry, n)} | " + " | ".join(
                f"{r[n]:.2f}" if n in r else "-" for _, _, r in series) + " |")
        lines += ["", f"† more threads than the machine's {entry['cores']} cores (SMT siblings); "
                  f"‡ more than its {entry['hw_threads']} hardware threads.", ""]
    counts = sorted({n for r in mine.values() for n in r})
    lines += [f"Ours: `{workload}` on gem5, board `{board or 'default'}`, throughput in the window where all "
              "threads ran, at N cores over one core.", "",
              "| cores | " + " | ".join(f"{v} ({cpu})" for v, cpu in mine) + " |", "|---|" + "---|" * len(mine)]
    for n in counts:
        lines.append(f"| {n} | " + " | ".join(f"{r[n]:.2f}" if n in r else "-" for r in mine.values()) + " |")
    lines.append("")
    for entry, label, variant, r in pub:
        if variant is None:
            continue
        for (v, cpu), m in mine.items():
            k = max((n for n in m if 1 < n <= entry["cores"]), default=None)
            if v != variant or k is None:
                continue
            n = min((n for n in r if n <= entry["cores"]), key=lambda n: (abs(n - k), n))
            lines.append(f"- {label}: {r[n]:.2f}x at {n} threads on the real machine ({r[n] / n:.0%} of linear); "
                         f"ours `{v}` ({cpu}) {m[k]:.2f}x at {k} cores ({m[k] / k:.0%} of linear).")
    return "\n".join(lines) + "\n"


def plot(workload: str, mine: dict, board: str, stem: str) -> list:
    """Ours and the published curves on two panels with one y axis: never one dataset."""
    pub = published(workload)
    if not pub or not mine:
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vmscale.plots import save_figure
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for (v, cpu), r in mine.items():
        ax1.plot(list(r), list(r.values()), "o-" if cpu == "timing" else "s--", label=f"{v} ({cpu})")
    top = max(max(r) for r in mine.values())
    for ax, n in ((ax1, top), (ax2, max(max(r) for *_, r in pub))):
        ax.plot([1, n], [1, n], ":", color="gray", lw=1, label="linear")
    ax1.set_title(f"vmscale: {workload} on gem5, {board or 'default board'}", fontsize=9)
    ax1.set_xlabel("cores")
    for i, (entry, label, _, r) in enumerate(pub):
        ns = sorted(r)
        ax2.plot(ns, [r[n] for n in ns], "^-", color=("tab:brown", "tab:pink", "tab:olive", "tab:cyan")[i % 4],
                 label=label)
        ax2.axvspan(entry["cores"], entry["hw_threads"], color="gray", alpha=0.08)
        ax2.axvspan(entry["hw_threads"], max(ns), color="gray", alpha=0.2)
    ax2.set_title(f"published: {pub[0][0]['machine']}", fontsize=8)
    ax2.set_xlabel("threads (shaded: SMT siblings; darker: more threads than hardware)")
    ax1.set_ylabel("throughput at N / throughput at 1")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.text(0.5, -0.04, "right: " + "; ".join(sorted({p['source'] for p, *_ in pub})) + " (not our data)",
             ha="center", fontsize=6, color="gray")
    return save_figure(fig, stem)

