"""Figures: measured scaling with the fitted model, hold-out, extrapolation bands and the
1/S ceiling; and Piggin's Figure 3.1 (queueing model vs simulator vs Amdahl)."""

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "vmscale"     # the same figure, the same SVG (ids, no date)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from vmscale_model import des, network, solvers  # noqa: E402
from vmscale_model.network import LAWS  # noqa: E402

COLORS = {"crossbar": "tab:blue", "mesh": "tab:green", "ring": "tab:red", "tree": "tab:purple"}


def _save(fig, stem):
    paths = []
    for ext in ("png", "svg"):
        p = f"{stem}.{ext}"
        fig.savefig(p, dpi=130, bbox_inches="tight", metadata={"Date": None} if ext == "svg" else {})
        paths.append(p)
    plt.close(fig)
    return paths


def scaling(fit, stem, title, max_cores=4096, holdout=None, laws=LAWS, note=None):
    """Measured points, the fit, extrapolation per interconnect law with bands, ideal, ceiling."""
    d = fit.data
    fig, ax = plt.subplots(figsize=(7.5, 5))
    grid = np.unique(np.round(np.logspace(0, np.log10(max_cores), 60)).astype(int))
    per_core = fit.predict([1])[0]
    ax.plot(grid, per_core * grid, "k:", lw=1, label="ideal linear")
    for law in laws:
        lo, hi = fit.band(grid, law)
        mid = fit.predict(grid, law)
        ax.plot(grid, mid, color=COLORS[law], lw=1.6, label=f"model, {law}" + (" (fitted)" if law == fit.law else ""))
        if fit.determined():
            ax.fill_between(grid, lo, hi, color=COLORS[law], alpha=0.15)
    ceiling = 1.0 / float(fit.service(int(d.cores.max())))
    ax.axhline(ceiling, color="gray", ls="--", lw=1, label=f"1/S ceiling ({fit.law}, N={int(d.cores.max())})")
    ax.errorbar(d.cores, d.throughput, yerr=d.spread, fmt="o", color="k", ms=5, label="measured", zorder=5)
    if holdout:
        ax.plot(holdout["cores"], holdout["predicted"], "x", color="tab:orange", ms=9, mew=2,
                label=f"hold-out prediction (max error {100 * holdout['max_abs_relative_error']:.0f}%)", zorder=6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("cores")
    ax.set_ylabel(f"throughput ({d.unit})")
    ax.set_title(title)
    if note:
        ax.text(0.01, 0.01, note, transform=ax.transAxes, fontsize=7, color="gray", va="bottom")
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(True, which="both", alpha=0.2)
    return _save(fig, stem)


def piggin_figure(stem, v=100_000.0, s=500e-9, max_cores=64, ops=20_000, seed=1):
    """Piggin Figure 3.1: closed form (eq. 3.9), a deterministic simulator (the thesis's),
    Amdahl (eq. 3.14), plus the exponential DES and MVA, for v = 1e5/s and S = 500 ns."""
    n = np.arange(1, max_cores + 1)
    sim_n = np.unique(np.concatenate([np.arange(1, 9), np.arange(10, max_cores + 1, 4)]))
    det = network.single_line(1.0 / v, s, dist="det")
    exp = network.single_line(1.0 / v, s, dist="exp")
    det_x = [des.simulate(det, int(k), ops=ops, seed=seed).throughput for k in sim_n]
    exp_x = [des.simulate(exp, int(k), ops=ops, seed=seed).throughput for k in sim_n]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(n, solvers.piggin_throughput(n, v, s) / 1e6, label="queueing model (Piggin eq. 3.9)")
    ax.plot(sim_n, np.array(det_x) / 1e6, "s", ms=4, label="simulator, deterministic (SimPy)")
    ax.plot(sim_n, np.array(exp_x) / 1e6, "o", ms=4, mfc="none", label="simulator, exponential (SimPy)")
    ax.plot(n, [solvers.mva_throughput(exp, int(k)) / 1e6 for k in n], "--", lw=1, label="exact MVA (exponential)")
    ax.plot(n, solvers.amdahl_throughput(n, v, s) / 1e6, label="Amdahl (eq. 3.14)")
    ax.axhline(1 / s / 1e6, color="gray", ls=":", label="1/S")
    ax.set_xlabel("processors N")
    ax.set_ylabel("throughput (M operations/s)")
    ax.set_title("One contended cache line: v = 100,000/s, S = 500 ns (Piggin Fig. 3.1)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, stem)


# Each method's line in a study figure: colour, style, width.
STYLES = {"line": ("tab:blue", "-", 1.6), "usl": ("tab:red", "--", 1.2), "counters": ("tab:green", "-.", 1.2),
          "hotlines": ("tab:purple", (0, (5, 1, 1, 1)), 1.4), "sockets": ("tab:orange", "-", 1.4),
          "hotboard": ("tab:brown", "--", 1.4), "hotlocks": ("black", ":", 1.6), "phases": ("tab:cyan", "-", 2.0),
          "distances": ("tab:gray", (0, (1, 1)), 1.4)}


def study_curve(r: dict, stem, title, note=None, max_cores=256):
    """One judged curve (study.judge): points fitted and held out, and each method's line."""
    fig, ax = plt.subplots(figsize=(7, 4.6))
    _study_axes(ax, r, max_cores)
    ax.set_title(title, fontsize=10)
    if note:
        ax.text(0.01, 0.01, note, transform=ax.transAxes, fontsize=7, color="gray", va="bottom")
    # below the axes: with eight methods it covered the held-out points
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    return _save(fig, stem)


def study_grid(result: dict, stem, title, note=None, max_cores=256, cols=3) -> list:
    """Every judged curve of a study on one figure: its points (fitted filled, held out open,
    the fitted range shaded) and each method's prediction."""
    judged = [(k, r) for k, r in result.items() if "skipped" not in r]
    if not judged:
        return []
    rows = -(-len(judged) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, (key, r) in zip(axes.flat, judged):
        _study_axes(ax, r, max_cores, compact=True)
        ax.axvspan(min(r["train_cores"]), max(r["train_cores"]), color="gray", alpha=0.1, lw=0)
        ax.set_title(key, fontsize=8)
    for ax in list(axes.flat)[len(judged):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=7, bbox_to_anchor=(0.5, -0.02))
    fig.suptitle(title + (f"\n{note}" if note else ""), fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    return _save(fig, stem)


def _study_axes(ax, r: dict, max_cores, compact=False):
    cores = np.array(r["cores"])
    x = np.array(r["throughput"])
    train = np.isin(cores, r["train_cores"])
    grid = np.unique(np.round(np.logspace(0, np.log10(max_cores), 50)).astype(int))
    ax.plot(grid, x[0] / cores[0] * grid, "k:", lw=1, label="ideal linear (1-core rate)")
    for name, m in r.get("methods", {}).items():
        if "curve" not in m:
            continue
        color, ls, lw = STYLES.get(name, ("tab:gray", ":", 1.0))
        c = m["curve"]
        ax.plot(c["cores"], c["throughput"], color=color, ls=ls, lw=lw,
                label=m["label"] if compact else f"{m['label']} ({_worst(m)})")
        if "low" in c:
            ax.fill_between(c["cores"], c["low"], c["high"], color=color, alpha=0.15, lw=0,
                            label=f"{name} 5-95% band")
    ax.plot(cores[train], x[train], "o", color="k", ms=6, label="gem5, fitted", zorder=5)
    held = np.isin(cores, r["held_cores"])
    ax.plot(cores[held], x[held], "o", mfc="white", mec="k", mew=1.5, ms=7, label="gem5, held out", zorder=5)
    left = ~train & ~held
    if left.any():
        ax.plot(cores[left], x[left], "s", color="gray", ms=5, label="gem5, left out of the fit", zorder=5)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("cores")
    ax.set_ylabel("throughput (operations per cycle)")
    ax.grid(True, which="both", alpha=0.2)


def _worst(method: dict) -> str:
    errs = method.get("error") or []
    return f"hold-out error {max(errs, key=abs) * 100:+.0f}%" if errs else "no hold-out"


def interconnect_curve(r: dict, stem, title, source: str, target: str, note=None):
    """interconnect.check(): both boards' measurements and the three predictions for the target."""
    fig, ax = plt.subplots(figsize=(7, 4.6))
    sm = r["source_measured"]
    sc = np.array(sorted(int(n) for n in sm))
    fitted = max(r["source_fit"]["train_cores"])
    ax.plot(sc, [sm[n] for n in sc], "s", color="tab:blue", ms=5, label=f"gem5, {source} (fitted on <= {fitted} cores)",
            zorder=5)
    cores = np.array(r["cores"])
    law = f"by the {r['interconnect_law']} law (hop share {r['hop_fraction']:g})"
    for key, color, ls, what in (("hops", "tab:green", "-", "by the boards' hops per transfer"),
                                 ("law", "tab:purple", "--", law),
                                 ("unchanged", "tab:blue", ":", f"unchanged (the {source} fit)")):
        worst = max(r[key]["error"], key=abs) * 100
        ax.plot(cores, r[key]["predicted"], color=color, ls=ls, lw=1.5, label=f"prediction {what} (worst error {worst:+.0f}%)")
    a = r["anchored"]
    if a["cores"]:
        ax.plot(a["cores"], a["predicted"], "x", color="tab:green", ms=8, mew=2,
                label=f"prediction by hops, anchored on the {source} point (worst error "
                      f"{max(a['error'], key=abs) * 100:+.0f}%)", zorder=6)
    ax.plot(cores, r["measured"], "o", mfc="white", mec="k", mew=1.5, ms=7, label=f"gem5, {target} (predicted)",
            zorder=6)
    ax.set_yscale("log")
    return _finish_prediction(fig, ax, stem, title, "throughput (operations per cycle)", note)


def _finish_prediction(fig, ax, stem, title, ylabel, note):
    """Cores on a log2 axis, the legend below, the provenance note in the corner; saved."""
    ax.set_xscale("log", base=2)
    ax.set_xlabel("cores")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if note:
        ax.text(0.01, 0.01, note, transform=ax.transAxes, fontsize=7, color="gray", va="bottom")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    ax.grid(True, which="both", alpha=0.2)
    return _save(fig, stem)


def sockets_curve(r: dict, stem, title, note=None):
    """sockets.predict(): the measurements, fitted and held out, and the three predictions."""
    fig, ax = plt.subplots(figsize=(7, 4.6))
    cores = np.array(r["cores"])
    fitted = np.isin(cores, r["fit"]["train_cores"])
    measured = np.array(r["measured"])
    ax.plot(cores[fitted], measured[fitted], "s", color="tab:blue", ms=5, label="gem5, fitted", zorder=5)
    ax.plot(cores[~fitted], measured[~fitted], "o", mfc="white", mec="k", mew=1.5, ms=7,
            label="gem5, held out (predicted)", zorder=6)
    held = ~fitted
    for key, color, ls, what in (("board", "tab:green", "-", "by the board's distances (sockets in use)"),
                                 ("runs", "tab:purple", "-.", "... with ownership runs"),
                                 ("unchanged", "tab:blue", ":", "the fit unchanged"),
                                 ("usl", "tab:red", "--", "USL, fitted to the same points")):
        errs = [e for e, h in zip(r[key]["error"], held) if h and np.isfinite(e)]
        if not errs:
            continue
        worst = max(errs, key=abs) * 100
        ax.plot(cores, r[key]["predicted"], color=color, ls=ls, lw=1.5, label=f"{what} (held-out error up to {worst:+.0f}%)")
    return _finish_prediction(fig, ax, stem, title, "throughput (operations per cycle, window)", note)


TOPOLOGY_STYLE = {"sockets": ("black", "-"), "crossbar": ("tab:blue", "--"), "mesh": ("tab:green", "-."),
                  "any": ("tab:red", ":")}


def beyond_series(pred: list, train_max: int) -> list:
    """beyond.predict() rows of one curve as the lines to draw: [((interconnect, method), rows by cores)],
    the USL ('any') last, in a total order (the figure does not follow a set's hash order).

    The traced methods are drawn from the largest fitted count up: their work outside the queues is
    anchored there (hotcarried.anchor; the ring's likewise), a constant that stands for that count's cost and not a
    smaller one's (the shared atomic's, 597 cycles at 20 cores, is 7x its one-core cost); the USL,
    fitted to every point, is drawn over them all."""
    out = []
    for (topo, method) in sorted({(p["interconnect"], p["method"]) for p in pred}, key=lambda tm: (tm[0] == "any", tm)):
        out.append(((topo, method), sorted((p for p in pred if p["interconnect"] == topo and p["method"] == method
                                            and (topo == "any" or p["cores"] >= train_max)),
                                           key=lambda p: p["cores"])))
    return out


def beyond_curve(pred: list, measured: dict, train_max: int, stem, title, note=None):
    """beyond.predict() rows of one curve: each interconnect's prediction with its band, the USL,
    and the measured points (fitted ones filled, held-out ones open) on the reference board."""
    fig, ax = plt.subplots(figsize=(7, 4.8))
    for (topo, method), ps in beyond_series(pred, train_max):
        color, ls = TOPOLOGY_STYLE.get(topo, ("gray", "-"))
        n = [p["cores"] for p in ps]
        what = "USL, fitted to the same points" if topo == "any" else f"{method} on the {topo} interconnect"
        ax.plot(n, [p["throughput"] for p in ps], color=color, ls=ls, lw=1.5, label=what)
        lo, hi = [p["low"] for p in ps], [p["high"] for p in ps]
        if all(x == x for x in lo + hi):
            ax.fill_between(n, lo, hi, color=color, alpha=0.12, lw=0)
    cores = np.array(sorted(measured))
    y = np.array([measured[c] for c in cores])
    fit = cores <= train_max
    ax.plot(cores[fit], y[fit], "s", color="tab:blue", ms=5, label=f"gem5 reference board, fitted (<= {train_max})",
            zorder=5)
    ax.plot(cores[~fit], y[~fit], "o", mfc="white", mec="k", mew=1.5, ms=7, label="gem5 reference board, held out",
            zorder=6)
    ax.set_yscale("log")
    return _finish_prediction(fig, ax, stem, title, "throughput (operations per cycle of the machine, window)", note)
