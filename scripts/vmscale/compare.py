"""`vmscale compare A B`: two result tables side by side (e.g. gem5 vs a real machine).

Matches rows on (workload, kernel_variant, cores), averages repetitions, and reports per
point the ratio of cycles per operation and each side's speedup over its own smallest core
count; the error of the simulated scaling is the relative difference of the speedups.
"""

import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from vmscale.errors import VmscaleError  # noqa: E402
from vmscale.plots import save_figure  # noqa: E402


def _means(path) -> dict:
    try:
        rows = list(csv.DictReader(open(path, newline="")))
    except FileNotFoundError:
        raise VmscaleError(f"{path}: no such table")
    if rows and "cycles_per_op" not in rows[0]:
        raise VmscaleError(f"{path}: no cycles_per_op column (is it a vmscale table?)")
    acc = defaultdict(list)
    for r in rows:
        if r.get("ok") == "True" and r.get("cycles_per_op"):
            acc[(r["workload"], r["kernel_variant"], int(r["cores"]))].append(float(r["cycles_per_op"]))
    return {k: sum(v) / len(v) for k, v in acc.items()}


def scaling(a: dict, b: dict) -> list:
    """Per point both sides hold: each side's speedup of throughput over its own fewest cores
    on that curve, the ideal speedup, and the error of a's scaling against b's.
    a, b: (workload, variant, cores) -> throughput (operations per cycle of the machine)."""
    common = sorted(set(a) & set(b))
    if not common:
        raise VmscaleError("the tables share no (workload, variant, cores) point")
    base = {}
    for w, v, n in common:
        base[(w, v)] = min(base.get((w, v), n), n)
    out = []
    for w, v, n in common:
        n0 = base[(w, v)]
        sa, sb = a[(w, v, n)] / a[(w, v, n0)], b[(w, v, n)] / b[(w, v, n0)]
        out.append({"workload": w, "kernel_variant": v, "cores": n, "a_speedup": sa, "b_speedup": sb,
                    "ideal_speedup": n / n0, "scaling_error": (sa - sb) / sb})
    return out


def compare(a_path, b_path) -> list:
    a, b = _means(a_path), _means(b_path)
    # throughput from the mean cycles per op: n / cpo
    out = scaling({k: k[2] / c for k, c in a.items()}, {k: k[2] / c for k, c in b.items()})
    for r in out:
        k = (r["workload"], r["kernel_variant"], r["cores"])
        r.update(a_cycles_per_op=a[k], b_cycles_per_op=b[k], cycles_ratio_a_over_b=a[k] / b[k])
    return out


def plot(rows, stem, label_a, label_b) -> list:
    groups = defaultdict(list)
    for r in rows:
        groups[(r["workload"], r["kernel_variant"])].append(r)
    fig, axes = plt.subplots(1, len(groups), figsize=(4.5 * len(groups), 3.8), squeeze=False)
    for ax, ((w, v), rs) in zip(axes[0], sorted(groups.items())):
        rs.sort(key=lambda r: r["cores"])
        n = [r["cores"] for r in rs]
        ax.plot(n, [r["a_speedup"] for r in rs], "o-", label=label_a)
        ax.plot(n, [r["b_speedup"] for r in rs], "s--", label=label_b)
        ax.plot(n, [r["ideal_speedup"] for r in rs], ":", color="gray", label="linear")
        ax.set(title=f"{w} / {v}", xlabel="cores", ylabel="speedup")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    return save_figure(fig, stem)
