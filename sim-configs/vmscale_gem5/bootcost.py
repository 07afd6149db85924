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
            "instructions": insts, "legs": len(legs), "checkpoint": cpt.name}


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


def table(points: list, law: dict = None) -> str:
    lines = ["| cores | host seconds | simulated seconds | instructions (M) | host s per simulated s | legs |",
             "|---|---|---|---|---|---|"]
    for p in sorted(points, key=lambda p: p["cores"]):
        lines.append(f"| {p['cores']} | {p['host_seconds']:,.0f} | {p['sim_seconds']:.2f} | "
                     f"{p['instructions'] / 1e6:,.0f} | {p['host_seconds'] / p['sim_seconds']:,.0f} | {p['legs']} |")
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
