"""What the seed papers state about the figures we reproduce, cited.

Only numbers written in the papers' text (their plots are images): shown in a panel of
their own beside our figures and in the report's tables, never mixed into our data.
"""

BONSAI = ("Clements, Kaashoek, Zeldovich, \"Scalable Address Spaces Using RCU Balanced Trees\", "
          "ASPLOS 2012, section 7.3")
RADIXVM_PAPER = ("Clements, Kaashoek, Zeldovich, \"RadixVM: Scalable address spaces for multithreaded "
                 "applications\", EuroSys 2013")
RADIXVM = RADIXVM_PAPER + ", section 5.3"
RADIXVM_55 = RADIXVM_PAPER + ", sections 5.3 and 5.5"
MACHINE = "80 cores: eight 2.4 GHz 10-core Intel E7-8870"
PIGGIN = ("Piggin, \"A lockless pagecache in Linux\", BSc (Software Engineering) subthesis, Australian "
          "National University, 2006, sections 2.4.2, 6.3 and 7")
PARSEC = ("Wang, Stamler, Parmer, \"Parallel Sections: Scaling System-Level Data-Structures\", "
          "EuroSys 2016, sections 3.2-3.3 and 5.1")
PARSEC_MACHINE = "40 cores: four 2.0 GHz 10-core Intel Xeon E7-4850"

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
    "local": {
        "figure": "RadixVM Figures 5 and 9 (local: mmap, write, munmap of thread-private memory)",
        "source": RADIXVM_55, "machine": MACHINE, "metric": "pages written per second",
        "points": [],
        "claims": ["RadixVM scales linearly: no lock contention, a fixed number of cache misses, no remote "
                   "DRAM access and no TLB shoot-down, so an iteration costs the same at every core count.",
                   "Linux (mmap_sem three times per iteration) and Bonsai slow down as cores are added.",
                   "At one core RadixVM is within 8% of Linux.",
                   "With shared page tables (Figure 9) every munmap broadcasts a shoot-down, about 500,000 "
                   "cycles each, and the benchmark grinds to a halt."],
    },
    "pipeline": {
        "figure": "RadixVM Figures 5 and 9 (pipeline: a page mapped by one thread, written and unmapped by the next)",
        "source": RADIXVM_55, "machine": MACHINE, "metric": "pages written per second",
        "points": [],
        "claims": ["RadixVM scales well but not linearly: every munmap sends exactly one remote TLB shoot-down, "
                   "which takes longer as cores are added (the APIC's IPI protocol).",
                   "Linux and Bonsai behave as on local; at one core RadixVM is within 8% of Linux.",
                   "With shared page tables (Figure 9) it grinds to a halt, as local does."],
    },
    "global": {
        "figure": "RadixVM Figures 5 and 9 (global: all threads write all pages of a shared region)",
        "source": RADIXVM_55, "machine": MACHINE, "metric": "pages written per second",
        "points": [],
        "claims": ["RadixVM scales well, limited by shoot-downs: at 80 cores one to the other 79 cores takes "
                   "nearly a millisecond, amortised over a 20 MB region.",
                   "Per-core page tables take n page faults per page where shared tables take one, and still "
                   "win (Figure 9): they remove contention on the shared page-table structure.",
                   "Most of those faults only fill a page-table entry from the radix tree (no new page): even at 80 "
                   "cores, with the radix tree's locks heavily contended, a \"fill\" fault takes 1,200 cycles "
                   "(section 5.3).",
                   "Linux and Bonsai do better here than on local and pipeline: more faults per mmap/munmap."],
    },
    "refcount": {
        "figure": "RadixVM Figure 8 (reference counting methods)",
        "source": RADIXVM, "machine": MACHINE, "metric": "page-sharing throughput",
        "points": [],
        "claims": ["Refcache counters scale perfectly with the number of cores; the shared atomic counter "
                   "does not; SNZI (our stand-in: the kernel's percpu_ref) reaches a bottleneck by 10 cores."],
    },
    "pageshare": {
        "figure": "RadixVM Figure 8 (page sharing: each iteration mmaps a shared physical page and munmaps it)",
        "source": RADIXVM, "machine": MACHINE, "metric": "page-sharing throughput",
        "points": [],
        "claims": ["Refcache counters scale perfectly with the number of cores; the shared counter does "
                   "not scale; SNZI counters reach a bottleneck as early as 10 cores."],
    },
    "pagecache": {
        "figure": "Piggin Figures 2.4-2.5 (locked find_get_page), 6.7-6.8 (find_get_page by two CPUs on different "
                  "pages and on one page) and the conclusion",
        "source": PIGGIN, "machine": "the thesis's SMP systems (up to 64 CPUs)", "metric": "lookups",
        "points": [],
        "claims": ["find_get_page under the per-inode tree_lock (the `pagecache-locked` baseline): critical "
                   "section efficiency 0.36 with one thread, and 0.11 with two threads looking up different pages "
                   "of one file, contention on the lock's cache line (section 2.4.2.1, Figures 2.4-2.5).",
                   "Linux 2.4's single pagecache lock was a bottleneck at just 4 CPUs; 2.6.17's per-inode "
                   "lock does better only when accesses spread over many files.",
                   "The lockless pagecache improved some read-side operations on a single file by nearly "
                   "250 times on a 64-CPU system, and single-threaded performance did not suffer.",
                   "read() itself had scalability problems beyond the pagecache lookup."],
    },
    "reclaim": {
        "figure": "PARSEC Figures 4-5 (micro-benchmark: read sections and node free + allocate updates, "
                  "PARSEC vs U-RCU and epochs, 1-40 cores)",
        "source": PARSEC, "machine": PARSEC_MACHINE, "metric": "requests per second",
        # Its numbers are throughputs in requests per second, not cycles per operation: kept in
        # the claims, not plotted on our axis.
        "points": [],
        "claims": ["PARSEC's read throughput with 10% updates stays at the read-only level; with 50% and 90% "
                   "updates it falls from about 1,150 to 950 million requests per second (the largest core "
                   "count, 40), as readers write their TSC into lines updaters have read.","A PARSEC read section writes only its core's own cache line (the TSC at entry); a freed "
                   "node is reclaimed once every core has exited or entered after the node's TSC.",
                   "All read operations take under 100 cycles; with no updates both U-RCU and PARSEC scale "
                   "near-linearly.",
                   "With updates, U-RCU's and epoch's update throughput collapses as cores are added (each "
                   "update waits for quiescence through shared lines); PARSEC's update path stays efficient "
                   "and scalable even at 90% updates, and it is wait-free: its 99th-percentile latency stays "
                   "low where U-RCU's synchronize grows."],
    },
}

# Bonsai Figure 18 (fault while one core maps and unmaps): only the end points the text states.
FIG18 = {
    "figure": "Bonsai Figure 18 (page-fault cost with time spent in mmap/munmap, relative to none)",
    "source": BONSAI, "machine": MACHINE,
    "ends": [("read/write locking (rwlock)", 29), ("fault locking", 21)],
    "claims": ["Each design runs with enough faulting cores to reach its peak fault rate; one core "
               "maps and unmaps for a growing fraction of its time.",
               "Read/write locking and fault locking grow exponentially with the chance of a lock "
               "conflict, to 29x and 21x their base fault cost; hybrid locking/RCU more modestly (its "
               "conflict window is the tree lock's hold); pure RCU stays near-constant."],
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
    every variant reached, and each variant's growth from its smallest multi-core count.
    Curves of different ROI sizes are never divided by each other: each size whose curves
    cover two designs gets its own sentence, the size with the most points first."""
    from vmscale.rows import cost_metric, curve_labels, ops_per_thread
    key, metric = cost_metric(rows)
    by, size = {}, {}
    for r, label in zip(rows, curve_labels(rows, with_backend=False)):   # boards and ROI sizes apart
        by.setdefault(label, {}).setdefault(int(r["cores"]), []).append(float(r[key]))
        size[label] = ops_per_thread(r)     # a design made at one size only has no size in its label
    # a ROI size made at under half the counts of the same design's main size (a longer ROI checking
    # that curve at a few counts) is not a curve to compare
    design = {v: v.split(" [")[0] for v in by}      # the label without curve_labels' size suffix
    most = {}
    for v, pts in by.items():
        most[design[v]] = max(most.get(design[v], 0), len(pts))
    by = {v: {n: sum(x) / len(x) for n, x in pts.items()} for v, pts in by.items()
          if 2 * len(pts) >= most[design[v]] and len(pts) > 1}     # one point is not a curve
    sizes = {}
    for v in by:
        sizes.setdefault(size[v], []).append(v)
    groups = sorted(sizes.values(), key=lambda vs: (-len(vs), -sum(len(by[v]) for v in vs)))
    sentences = [s for s in (_ratio_sentence({v: by[v] for v in vs}, i > 0) for i, vs in enumerate(groups)) if s]
    if not sentences:
        return ""
    return f"Ours (cycles per operation, {metric}) " + " ".join(sentences)


def _ratio_sentence(by: dict, name_size: bool) -> str:
    """One ROI size's curves: ratios at their largest common count, and each one's growth."""
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
    return (("Curves of another ROI size, " if name_size else "") + f"at {n} cores: {'; '.join(parts)}. "
            f"Growth: {'; '.join(growth)}.")
