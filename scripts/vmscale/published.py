"""What the seed papers state about the figures we reproduce, cited.

Only numbers written in the papers' text (their plots are images): shown in a panel of
their own beside our figures and in the report's tables, never mixed into our data.
"""

BONSAI = ("Clements, Kaashoek, Zeldovich, \"Scalable Address Spaces Using RCU Balanced Trees\", "
          "ASPLOS 2012, section 7.3")
RADIXVM = ("Clements, Kaashoek, Zeldovich, \"RadixVM: Scalable address spaces for multithreaded "
           "applications\", EuroSys 2013, section 5.3")
MACHINE = "80 cores: eight 2.4 GHz 10-core Intel E7-8870"

# workload -> what the paper says.  A point: (label, cores, value, relation); relation is
# "=", "~" (approximately) or ">" (a lower bound the text gives).
PUBLISHED = {
    "fault": {
        "figure": "Bonsai Figures 16-17 (page-fault microbenchmark, no mmap/munmap)",
        "source": BONSAI, "machine": MACHINE, "metric": "cycles per page fault",
        "points": [("all four designs", 10, 7400, "~"),
                   ("pure RCU", 80, 8869, "="),
                   ("the three lock-based designs", 80, 74000, ">")],
        "claims": ["At 80 cores read/write locking spends 84% of its cycles acquiring and releasing "
                   "mmap_sem in read mode; the non-scalability is contention on mmap_sem's cache line.",
                   "Ratios: lock-based / pure RCU cost at 80 cores > 74,000 / 8,869 = 8.3; pure RCU's cost "
                   "grows 8,869 / 7,400 = 1.20x from 10 to 80 cores."],
    },
    "refcount": {
        "figure": "RadixVM Figure 8 (reference counting methods)",
        "source": RADIXVM, "machine": MACHINE, "metric": "page-sharing throughput",
        "points": [],
        "claims": ["Refcache counters scale perfectly with the number of cores; the shared atomic counter "
                   "does not; SNZI (our stand-in: the kernel's percpu_ref) reaches a bottleneck by 10 cores."],
    },
}


def points(workload: str) -> list:
    return list(PUBLISHED.get(workload, {}).get("points", []))


def markdown(workload: str) -> str:
    """The cited table for a report section, or '' when the paper gives nothing for it."""
    p = PUBLISHED.get(workload)
    if not p:
        return ""
    lines = [f"Published ({p['figure']}; {p['source']}; {p['machine']}), not our data:", ""]
    if p["points"]:
        lines += [f"| design | cores | {p['metric']} |", "|---|---|---|"]
        for label, cores, value, rel in p["points"]:
            lines.append(f"| {label} | {cores} | {'' if rel == '=' else rel + ' '}{value:,} |")
        lines.append("")
    lines += [f"- {c}" for c in p["claims"]]
    return "\n".join(lines) + "\n"


def our_ratios(rows: list) -> str:
    """Each variant's cost per operation over the cheapest one's, at the largest core count
    every variant reached, and each variant's growth from its smallest multi-core count."""
    from vmscale.rows import curve_labels
    by = {}
    for r, label in zip(rows, curve_labels(rows, with_backend=False)):   # boards and ROI sizes apart
        by.setdefault(label, {}).setdefault(int(r["cores"]), []).append(float(r["cycles_per_op"]))
    by = {v: {n: sum(x) / len(x) for n, x in pts.items()} for v, pts in by.items()}
    common = set.intersection(*(set(v) for v in by.values())) if by else set()
    if len(by) < 2 or not common:
        return ""
    n = max(common)
    best = min(by, key=lambda v: by[v][n])
    parts = [f"{v} / {best} = {by[v][n] / by[best][n]:.2f}" for v in sorted(by) if v != best]
    growth = []
    for v in sorted(by):
        multi = sorted(c for c in by[v] if c > 1)
        if multi and max(multi) > multi[0]:
            growth.append(f"{v} {by[v][max(multi)] / by[v][multi[0]]:.2f}x from {multi[0]} to {max(multi)} cores")
    return (f"Ours (cycles per operation) at {n} cores: {'; '.join(parts)}. Growth: {'; '.join(growth)}.")
