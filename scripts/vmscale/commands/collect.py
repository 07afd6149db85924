"""`vmscale collect`: complete run directories -> one tidy table."""


def register(sub):
    c = sub.add_parser("collect", help="merge run directories into one tidy CSV table")
    c.add_argument("run_dirs", nargs="+", help="run directories, or directories holding them (only complete ones are read)")
    c.add_argument("-o", "--output", required=True, help="the CSV table to write (and .parquet beside it with pyarrow)")
    c.add_argument("--restat", action="store_true",
                   help="gem5 runs: work the ROI figures out again from each run's kept stats.txt with "
                        "today's parser (the run directories are not changed)")
    c.add_argument("--replace", action="store_true",
                   help="a case (workload, variant, cores, backend, board) measured by a later argument drops the "
                        "earlier arguments' rows of it: a re-made record listed after the one it supersedes")
    c.set_defaults(func=main)


def main(args):
    from vmscale import collect
    print(f"wrote {collect.collect(args.run_dirs, args.output, args.restat, args.replace)}")
    return 0
