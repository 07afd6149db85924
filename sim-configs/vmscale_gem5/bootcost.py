"""What a boot-once checkpoint costs on the host, per core count, and how that grows.

Reads the boot logs a checkpoint keeps (boot-m5out/, and boot-m5out-leg-NNNN/ for a boot
that was saved at a wall-clock limit and resumed), fits host seconds = a * cores^b on
the core counts >= 2 (one core has no bring-up of other CPUs), and predicts larger machines.

    python -m vmscale_gem5.bootcost build/checkpoints/*c-* [--out DIR]
"""

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

from vmscale_gem5 import stats as statslib

EXIT = re.compile(r"exit cause='([^']*)' tick=(\d+) host_seconds=([\d.]+)")
PREDICT_AT = (64, 128, 254)


def read(cpt: Path) -> dict:
    """One checkpoint's boot: cores, host and simulated seconds, instructions, legs."""
    cpt = Path(cpt)
    m = re.match(r"(\d+)c-", cpt.name)
    if not m or not (cpt / "m5.cpt").is_file():
        raise ValueError(f"{cpt}: not a finished vmscale checkpoint (<N>c-<key>/m5.cpt)")
    legs = sorted(cpt.glob("boot-m5out-leg-*")) + [cpt / "boot-m5out"]
    host, ticks, insts, causes = 0.0, 0, 0, []
    for leg in legs:
        log = (leg / "gem5.log").read_text(errors="replace") if (leg / "gem5.log").is_file() else ""
        ends = EXIT.findall(log)
        if not ends:
            raise ValueError(f"{leg}: gem5.log has no exit line (a boot still running or killed?)")
        cause, tick, secs = ends[-1]
        host += float(secs)
        ticks = int(tick)      # ticks continue across legs: the last one is the boot's
        causes.append(cause)
        dumps = statslib.parse_file(leg / "stats.txt") if (leg / "stats.txt").is_file() else []
        if dumps:
            insts = int(dumps[-1].get("simInsts", 0))   # cumulative across a restore, too
    if causes[-1] != "checkpoint":
        raise ValueError(f"{cpt}: the boot ended with {causes[-1]!r}, not a checkpoint")
    return {"cores": int(m.group(1)), "host_seconds": round(host, 1), "sim_seconds": ticks / 1e12,
            "instructions": insts, "legs": len(legs), "checkpoint": cpt.name,
            "shared_host": shared_host([leg / "host.json" for leg in legs])}


def shared_host(files: list):
    """Whether another gem5 ran on the host during any leg of the boot (host.json, written by
    vmscale beside each leg's log since it records it); None where no leg recorded it."""
    seen = [json.loads(f.read_text()) for f in files if f.is_file()]
    if not seen:
        return None
    return any(h.get("other_gem5_start") or h.get("other_gem5_end") for h in seen)


def fit(points: list, predict_at=PREDICT_AT, fit_from: int = 2) -> dict:
    """Least squares of log host seconds on log cores over the multi-core points (those with at
    least fit_from cores: the large boots' growth is what an extrapolation needs)."""
    pts = [(p["cores"], p["host_seconds"]) for p in points if p["cores"] >= max(2, fit_from)]
    if len({n for n, _ in pts}) < 3:
        raise ValueError(f"{len(pts)} multi-core boots cannot fit a growth law with any check: need 3")
    xs = [math.log(n) for n, _ in pts]
    ys = [math.log(h) for _, h in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    a = math.exp(my - b * mx)
    rms = math.sqrt(sum((y - (math.log(a) + b * x)) ** 2 for x, y in zip(xs, ys)) / len(xs))
    out = {"law": "host_seconds = a * cores^b", "a": a, "b": b, "log_rms": rms,
           "fitted_on": sorted(n for n, _ in pts),
           "predicted": {str(n): a * n ** b for n in predict_at}}
    hm = host_model(points, fit_from)
    if hm:
        out["host_model"] = hm
    # Simulated instructions do not depend on what else the host runs: a second, steadier law.
    ins = [(p["cores"], p["instructions"]) for p in points
           if p["cores"] >= max(2, fit_from) and p.get("instructions")]
    if len(ins) >= 3:
        mn = sum(n for n, _ in ins) / len(ins)
        mi = sum(i for _, i in ins) / len(ins)
        per_core = sum((n - mn) * (i - mi) for n, i in ins) / sum((n - mn) ** 2 for n, _ in ins)
        out["instructions"] = {"law": "instructions = base + per_core * cores", "base": mi - per_core * mn,
                               "per_core": per_core,
                               "predicted": {str(n): mi + per_core * (n - mn) for n in predict_at}}
    return out


def host_model(points: list, fit_from: int = 2):
    """host seconds = instructions x (c0 + c1 x cores): each simulated instruction costs the host
    a constant plus a share that grows with the CPUs simulated (gem5 visits every CPU's events).
    Host time follows the simulated boot's length, not the core count alone (the 2-core boot can
    cost more than the 4-core one): instructions carry that.  Fitted on the boots that had the host
    to themselves when that is known (shared_host False), else on all, and says which."""
    pts = [p for p in points if p["cores"] >= max(1, fit_from - 1) and p.get("instructions")]
    alone = [p for p in pts if p.get("shared_host") is False]
    use = alone if len(alone) >= 3 else pts
    if len(use) < 3:
        return None
    rows = [(p["instructions"], p["instructions"] * p["cores"], p["host_seconds"]) for p in use]
    # least squares without an intercept, by the normal equations of two unknowns
    saa = sum(a * a for a, _, _ in rows)
    sab = sum(a * b for a, b, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    say = sum(a * y for a, _, y in rows)
    sby = sum(b * y for _, b, y in rows)
    det = saa * sbb - sab * sab
    if det <= 0:
        return None
    c0, c1 = (say * sbb - sby * sab) / det, (sby * saa - say * sab) / det
    pred = [c0 * a + c1 * b for a, b, _ in rows]
    ys = [y for _, _, y in rows]
    mean = sum(ys) / len(ys)
    ss_tot = sum((y - mean) ** 2 for y in ys)
    r2 = 1 - sum((y - f) ** 2 for y, f in zip(ys, pred)) / ss_tot if ss_tot else float("nan")
    return {"law": "host_seconds = instructions x (c0 + c1 x cores)", "c0_ns_per_inst": c0 * 1e9,
            "c1_ns_per_inst_per_core": c1 * 1e9, "r2": r2,
            "fitted_on": sorted(p["cores"] for p in use),
            "fitted_on_boots_alone": use is alone,
            "residuals_s": {str(p["cores"]): round(y - f, 1) for p, y, f in zip(use, ys, pred)}}


def table(points: list, law: dict = None) -> str:
    lines = ["| cores | host seconds | simulated seconds | instructions (M) | host s per simulated s | legs | "
             "host shared with another gem5 |", "|---|---|---|---|---|---|---|"]
    for p in sorted(points, key=lambda p: p["cores"]):
        shared = {True: "yes", False: "no", None: "not recorded"}[p.get("shared_host")]
        lines.append(f"| {p['cores']} | {p['host_seconds']:,.0f} | {p['sim_seconds']:.2f} | "
                     f"{p['instructions'] / 1e6:,.0f} | {p['host_seconds'] / p['sim_seconds']:,.0f} | {p['legs']} | "
                     f"{shared} |")
    if law:
        for n, h in law["predicted"].items():
            if int(n) > max(p["cores"] for p in points):
                lines.append(f"| {n} (predicted) | {h:,.0f} | | | | |")
    return "\n".join(lines) + "\n"


def plot(points: list, law: dict, stem: str) -> list:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    pts = sorted(points, key=lambda p: p["cores"])
    ax.plot([p["cores"] for p in pts], [p["host_seconds"] for p in pts], "o", color="k", label="measured boots")
    if law:
        grid = sorted({2 ** k for k in range(0, 9)} | {int(n) for n in law["predicted"]})
        ax.plot(grid, [law["a"] * n ** law["b"] for n in grid], "-", color="tab:blue",
                label=f"fit: {law['a']:.3g} x cores^{law['b']:.2f} (on {law['fitted_on'][0]}..{law['fitted_on'][-1]})")
        for n, h in law["predicted"].items():
            ax.annotate(f"{int(n)}c: {h / 3600:.1f} h", (int(n), h), textcoords="offset points", xytext=(-50, 6),
                        fontsize=7)
    ax.axhline(600, color="gray", ls=":", lw=1)
    ax.axhline(3600, color="gray", ls="--", lw=1)
    ax.text(1, 600, " 10 min", fontsize=7, va="bottom", color="gray")
    ax.text(1, 3600, " 1 h", fontsize=7, va="bottom", color="gray")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("cores")
    ax.set_ylabel("host seconds to the boot checkpoint")
    ax.set_title("gem5 v24 Atomic boot of Linux 6.12 to /init, one host core", fontsize=9)
    ax.grid(True, which="both", alpha=0.2)
    ax.legend(fontsize=7)
    paths = []
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}", dpi=120, bbox_inches="tight")
        paths.append(f"{stem}.{ext}")
    plt.close(fig)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vmscale_gem5.bootcost", description=__doc__.splitlines()[0])
    ap.add_argument("checkpoints", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, help="write boot-cost.{csv,json,png,svg} here")
    ap.add_argument("--predict", default=",".join(map(str, PREDICT_AT)),
                    help="core counts to predict, comma-separated (default %(default)s)")
    ap.add_argument("--fit-from", type=int, default=2, help="fit on the boots with at least this many cores")
    a = ap.parse_args(argv)
    try:
        predict_at = tuple(int(n) for n in a.predict.split(","))
    except ValueError:
        print(f"bootcost: error: --predict {a.predict}: give core counts such as 512,1024", file=sys.stderr)
        return 2
    try:
        points = [read(c) for c in a.checkpoints]
    except (ValueError, OSError) as e:
        print(f"bootcost: error: {e}", file=sys.stderr)
        return 2
    try:
        law = fit(points, predict_at, a.fit_from)
    except ValueError as e:
        law = None
        print(f"bootcost: no growth law: {e}", file=sys.stderr)
    print(table(points, law), end="")
    if law:
        print(f"{law['law']}: a={law['a']:.4g}, b={law['b']:.3f} (log RMS {law['log_rms']:.3f})")
        if "host_model" in law:
            h = law["host_model"]
            print(f"{h['law']}: c0 {h['c0_ns_per_inst']:.1f} ns, c1 {h['c1_ns_per_inst_per_core']:.3f} ns per core, "
                  f"R^2 {h['r2']:.3f} on {h['fitted_on']} ({'boots alone on the host' if h['fitted_on_boots_alone'] else 'all boots: sharing not recorded'})")
        if "instructions" in law:
            i = law["instructions"]
            print(f"{i['law']}: base {i['base'] / 1e6:.0f} M, {i['per_core'] / 1e6:.2f} M per core; predicted "
                  + ", ".join(f"{n} cores {v / 1e6:,.0f} M" for n, v in i["predicted"].items()))
    if a.out:
        a.out.mkdir(parents=True, exist_ok=True)
        with open(a.out / "boot-cost.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(points[0]))
            w.writeheader()
            w.writerows(sorted(points, key=lambda p: p["cores"]))
        (a.out / "boot-cost.json").write_text(json.dumps({"boots": points, "law": law}, indent=2) + "\n")
        plot(points, law, str(a.out / "boot-cost"))
        print(f"wrote {a.out}/boot-cost.{{csv,json,png,svg}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
