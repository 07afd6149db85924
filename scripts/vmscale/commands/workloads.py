"""`vmscale workloads`: every workload and its parameters, as the built binaries describe them."""


def register(sub):
    w = sub.add_parser("workloads", help="list workloads and their parameters")
    w.set_defaults(func=main)


def main(args):
    from vmscale import workloads
    for name in workloads.NAMES:
        d = workloads.describe(name)
        print(f"{name}: {d['summary']} (op = {d['ops_unit']})")
        for p, spec in d["params"].items():
            print(f"    {p}={spec['default']:<8} {spec['help']}")
    return 0
