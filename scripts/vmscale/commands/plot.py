"""`vmscale plot` and `vmscale report`: figures, and a Markdown report with them, from a table."""


def register(sub):
    for name, func, help_ in (("plot", plot, "figures from a table"),
                              ("report", report, "a Markdown report with figures from a table")):
        x = sub.add_parser(name, help=help_)
        x.add_argument("table", help="a table from `vmscale collect` or a sweep")
        x.add_argument("--out", required=True, help="output directory")
        x.add_argument("--model", action="store_true", help="fit and overlay the queueing model")
        x.set_defaults(func=func)


def plot(args):
    from vmscale import report as report_
    for w, fs in report_.plot_all(args.table, args.out, args.model).items():
        print(f"{w}: {', '.join(fs)}")
    return 0


def report(args):
    from vmscale import report as report_
    print(f"wrote {report_.report(args.table, args.out, args.model)}")
    return 0
