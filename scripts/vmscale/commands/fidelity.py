"""`vmscale fidelity TABLE...`: the CPU-model fidelity card from gem5 tables of one board."""

from pathlib import Path


def register(sub):
    x = sub.add_parser("fidelity", help="Timing vs O3: cost and scaling ratio at two core counts, beside the papers'")
    x.add_argument("tables", nargs="+", help="table.csv files of gem5 runs on one board (Timing and O3 rows); a "
                   "point a later table measures replaces an earlier table's")
    x.add_argument("--cores", default="1,10", help="the low and the high core count (default 1,10)")
    x.add_argument("--out", required=True, help="directory for fidelity.csv, fidelity.md and the figure")
    x.set_defaults(func=main)


def board_points(paths) -> tuple:
    """vmscale.fidelity.points of table files, a later table's point replacing an earlier's."""
    import csv

    from vmscale import fidelity
    from vmscale.collect import replaced
    from vmscale.errors import VmscaleError
    tables = []
    for t in paths:
        try:
            with open(t, newline="") as f:
                tables.append(list(csv.DictReader(f)))
        except FileNotFoundError:
            raise VmscaleError(f"{t}: no such table") from None
    return fidelity.points(replaced(tables))


def main(args):
    from vmscale import fidelity
    from vmscale.errors import VmscaleError
    from vmscale.fileutil import atomic_write_text
    from vmscale.rundir import rows_to_csv
    try:
        lo, hi = (int(x) for x in args.cores.split(","))
    except ValueError:
        raise VmscaleError(f"--cores {args.cores}: give two core counts, low and high, e.g. 1,10") from None
    if not 0 < lo < hi:
        raise VmscaleError(f"--cores {args.cores}: the low count must be positive and below the high one")
    board, pts = board_points(args.tables)
    card = fidelity.card(pts, lo, hi)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "fidelity.csv", rows_to_csv(card))
    md = fidelity.markdown(card, board, lo, hi)
    atomic_write_text(out / "fidelity.md", md)
    figs = fidelity.plot(card, board, lo, hi, str(out / "fidelity"))
    print(md, end="")
    print(f"wrote {out / 'fidelity.csv'}, {out / 'fidelity.md'}, {figs[0]}")
    return 0
