"""`vmscale realscale TABLE...`: our scaling ratios beside published real-machine ones."""

from pathlib import Path


def register(sub):
    x = sub.add_parser("realscale", help="our scaling ratio (throughput at N / at 1) beside published real machines'")
    x.add_argument("tables", nargs="+", help="table.csv files of gem5 runs on one board; a point a later table "
                   "measures replaces an earlier table's")
    x.add_argument("--workload", default="fault", help="the workload (default fault: the published pft-threads runs)")
    x.add_argument("--out", required=True, help="directory for realscale.csv, realscale.md and the figure")
    x.set_defaults(func=main)


def main(args):
    from vmscale import realmachines
    from vmscale.commands.fidelity import board_points
    from vmscale.errors import VmscaleError
    from vmscale.fileutil import atomic_write_text
    from vmscale.rundir import rows_to_csv
    if not realmachines.published(args.workload):
        known = sorted({p["workload"] for p in realmachines.PUBLISHED})
        raise VmscaleError(f"--workload {args.workload}: no published real-machine scaling for it (have: {', '.join(known)})")
    board, pts = board_points(args.tables)
    mine = realmachines.ours(pts, args.workload)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "realscale.csv", rows_to_csv(realmachines.table(args.workload, mine)))
    md = realmachines.markdown(args.workload, mine, board)
    atomic_write_text(out / "realscale.md", md)
    figs = realmachines.plot(args.workload, mine, board, str(out / "realscale"))
    print(md, end="")
    print(f"wrote {out / 'realscale.csv'}, {out / 'realscale.md'}, {figs[0]}")
    return 0
