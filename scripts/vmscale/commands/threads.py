"""`vmscale threads RUN_DIR`: each thread of a gem5 run's ROIs beside what its core did, by socket."""

from pathlib import Path


def register(sub):
    x = sub.add_parser("threads", help="a gem5 run's threads: cycles beside instructions and misses, by socket")
    x.add_argument("run_dir", help="a finished gem5 run directory (vmscale run --backend gem5)")
    x.add_argument("--out", help="where threads.csv, symbols.csv and holds.csv (a run with --gem5 roi_profile=N) and the figure go (default: the run directory)")
    x.set_defaults(func=main)


def main(args):
    from vmscale import threads
    from vmscale.fileutil import atomic_write_text
    cases = threads.load(Path(args.run_dir))
    out = Path(args.out or args.run_dir)
    out.mkdir(parents=True, exist_ok=True)
    print(threads.render(cases))
    atomic_write_text(out / "threads.csv", threads.to_csv(cases))
    if any(c["symbols"] is not None for c in cases):
        atomic_write_text(out / "symbols.csv", threads.symbols_csv(cases))
        atomic_write_text(out / "holds.csv", threads.holds_csv(cases))
    figs = threads.plot(cases, str(out / "threads"))
    print(f"wrote {out / 'threads.csv'}, {figs[0]}")
    return 0
