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
                   "mmap_sem in read mode; the non-scalability is contention on mmap_sem's cache line."],
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
