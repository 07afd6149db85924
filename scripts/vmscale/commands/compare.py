"""`vmscale compare`: speedups of two tables at their common points (e.g. gem5 vs a real machine)."""

from pathlib import Path


def register(sub):
    x = sub.add_parser("compare", help="compare two tables (e.g. gem5 vs native)")
    x.add_argument("a", help="first table (e.g. gem5)")
    x.add_argument("b", help="second table (e.g. a real machine)")
    x.add_argument("--out", required=True, help="output directory for compare.csv and the figure")
    x.add_argument("--label-a", default="A", help="legend name of the first table")
    x.add_argument("--label-b", default="B", help="legend name of the second table")
    x.set_defaults(func=main)


def main(args):
    from vmscale import compare
    from vmscale.fileutil import atomic_write_text
    from vmscale.rundir import rows_to_csv
    rows = compare.compare(args.a, args.b)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "compare.csv", rows_to_csv(rows))
    figs = compare.plot(rows, str(out / "speedup"), args.label_a, args.label_b)
    worst = max(rows, key=lambda r: abs(r["scaling_error"]))
    print(f"{len(rows)} common points; worst scaling error {100 * worst['scaling_error']:+.1f}% "
          f"({worst['workload']}/{worst['kernel_variant']} at {worst['cores']} cores); "
          f"wrote {out / 'compare.csv'}, {figs[0]}")
    return 0
