"""`vmscale ring RUN_DIR`: a traced pipeline's threads, busy and waiting, per item (vmscale.ring)."""

from pathlib import Path


def register(sub):
    x = sub.add_parser("ring", help="each thread's busy and waiting time in a traced `pipeline` run (hotlines=1)")
    x.add_argument("run_dir", help="a gem5 run directory of `pipeline` made with --gem5 hotlines=1")
    x.add_argument("--out", help="where ring.csv and ring-iterations.csv go (default: the run directory)")
    x.set_defaults(func=main)


def main(args):
    from vmscale import ring
    from vmscale.fileutil import atomic_write_text
    rows = ring.analyse(Path(args.run_dir))
    out = Path(args.out or args.run_dir)
    out.mkdir(parents=True, exist_ok=True)
    print(ring.render(rows))
    atomic_write_text(out / "ring.csv", ring.to_csv(rows))
    atomic_write_text(out / "ring-iterations.csv", ring.to_csv(ring.iteration_rows(rows), ring.ITERATION_COLUMNS))
    print(f"wrote {out / 'ring.csv'} and ring-iterations.csv")
    return 0
