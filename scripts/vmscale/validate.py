"""The simulator against the machine it stands for: rows of a native run and of the same cases
on the host's twin board, compared point by point (pure; the command runs the sweeps).

Both sides count cycles of their own machine (the host's TSC; the twin's simulated clock, set to
the host's), so throughput (the window's: operations all threads completed while all ran, per
cycle) compares directly.  Per point: the throughput ratio sim/native, and each side's scaling
ratio, its cost per operation at N cores over its cost at its smallest core count (1.0 is
perfect scaling); the scaling error is the twin's speedup against the machine's, as `vmscale
compare` gives it.  Where a
side ran a point several times (native runs are noisy; gem5's cycles are not), its median.
"""

import statistics
from collections import defaultdict

from vmscale.errors import VmscaleError


def throughput(row: dict):
    """Operations per cycle of the machine: the window's when the harness measured one."""
    if row.get("window_ops_per_cycle"):
        return float(row["window_ops_per_cycle"])
    if row.get("cycles_per_op") and row.get("threads"):
        return float(row["threads"]) / float(row["cycles_per_op"])
    return None


def _means(rows) -> dict:
    acc = defaultdict(list)
    for r in rows:
        t = throughput(r) if r.get("ok") in (True, "True") else None
        if t:
            acc[(r["workload"], r["kernel_variant"], int(r["cores"]))].append(t)
    return {k: statistics.median(v) for k, v in acc.items()}


def table(native_rows, sim_rows) -> list:
    """One row per (workload, variant, cores) both sides measured (compare.scaling's figures,
    the twin as a, the machine as b)."""
    from vmscale import compare
    nat, sim = _means(native_rows), _means(sim_rows)
    if not set(nat) & set(sim):
        raise VmscaleError("the native and simulated runs share no successful (workload, variant, cores) point")
    out = []
    for r in compare.scaling(sim, nat):
        k = (r["workload"], r["kernel_variant"], r["cores"])
        sa, sb = r.pop("a_speedup"), r.pop("b_speedup")
        r.update(native_ops_per_cycle=nat[k], sim_ops_per_cycle=sim[k],
                 throughput_ratio_sim_over_native=sim[k] / nat[k], native_speedup=sb, sim_speedup=sa,
                 # cost per op per thread at n over the same at the fewest cores: ideal / speedup
                 native_scaling_ratio=r["ideal_speedup"] / sb, sim_scaling_ratio=r["ideal_speedup"] / sa)
        out.append(r)
    return out


def plot(rows, stem, board_label: str) -> list:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from vmscale.plots import save_figure
    groups = defaultdict(list)
    for r in rows:
        groups[(r["workload"], r["kernel_variant"])].append(r)
    fig, axes = plt.subplots(2, len(groups), figsize=(4.2 * len(groups), 6.4), squeeze=False)
    for col, ((w, v), rs) in enumerate(sorted(groups.items())):
        rs.sort(key=lambda r: r["cores"])
        n = [r["cores"] for r in rs]
        top, bottom = axes[0][col], axes[1][col]
        top.plot(n, [r["native_scaling_ratio"] for r in rs], "s-", label="native (this machine)")
        top.plot(n, [r["sim_scaling_ratio"] for r in rs], "o--", label="gem5 twin")
        top.axhline(1.0, color="gray", ls=":", lw=1)
        top.set(title=f"{w} / {v}", ylabel="cost per op at N / at fewest cores")
        top.legend(fontsize=8)
        bottom.plot(n, [r["throughput_ratio_sim_over_native"] for r in rs], "o-", color="C2")
        bottom.axhline(1.0, color="gray", ls=":", lw=1)
        bottom.set(xlabel="cores", ylabel="throughput sim / native")
        for ax in (top, bottom):
            ax.set_xticks(n)
            ax.grid(alpha=0.3)
    fig.suptitle(f"twin board: {board_label or 'default'}", fontsize=8)
    return save_figure(fig, stem)
