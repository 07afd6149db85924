"""`vmscale validate`: the same cases natively on this machine and on its twin board in gem5,
compared point by point (validate.csv, validate.json, validate.png).  Each run is a directory
of its own under --out; one already complete is kept, so a validation that died goes on
where it stopped."""

import json
import sys
from pathlib import Path

from vmscale.commands import gem5opts

SIDES = {"native": "native", "sim": "gem5"}


def register(sub):
    v = sub.add_parser("validate", help="this machine natively vs its twin board in gem5, point by point")
    v.add_argument("--workload", required=True, help="comma-separated workloads")
    v.add_argument("--cores", default="1,2", help="comma-separated core counts (default 1,2)")
    v.add_argument("--kernel-variant", default="stock",
                   help="comma-separated variants (natively: what the running kernel provides)")
    v.add_argument("--param", action="append", default=[], help="NAME=VALUE or WORKLOAD.NAME=VALUE (repeatable)")
    v.add_argument("--board", default="host",
                   help="the twin: host (this machine's sysfs, default latencies) or a file "
                        "`vmscale board describe --measure --json FILE` wrote")
    gem5opts.add(v, "a gem5 option on top of the twin's, e.g. cpu=o3 (repeatable)")
    v.add_argument("--side", choices=("both", *SIDES), default="both",
                   help="run one side only (e.g. the native one on the machine, gem5 on a cluster)")
    v.add_argument("--repeat", type=int, default=5,
                   help="native runs per core count, their median compared (gem5's cycles are deterministic: one)")
    v.add_argument("--out", required=True, help="directory for the runs and the comparison")
    v.add_argument("--timeout", type=int, help="seconds before a run is declared hung")
    v.set_defaults(func=main)


def _same_cases(rd: Path, args, gem5_options):
    """A kept run must be of the cases asked for: another board or other parameters would
    compare two different things (no --param: whatever the kept runs used)."""
    from vmscale.errors import VmscaleError
    m = json.loads((rd / "manifest.json").read_text())
    differ = []
    if gem5_options is not None and m.get("gem5_options") != gem5_options:
        differ.append(f"board {m.get('gem5_options')} (asked: {gem5_options})")
    if args.param and sorted(m.get("params") or []) != sorted(args.param):
        differ.append(f"params {m.get('params')} (asked: {args.param})")
    if differ:
        raise VmscaleError(f"{rd} holds a run of other cases: {'; '.join(differ)}",
                           "give another --out, or remove that run to make it again")


def main(args):
    from vmscale import runner, validate
    from vmscale.commands import csv_list
    from vmscale.errors import VmscaleError
    from vmscale.fileutil import atomic_write_text
    from vmscale.rundir import is_complete, load_rows, rows_to_csv
    from vmscale_gem5 import board, limits
    try:
        twin = board.Board.make(dict(args.gem5, board=args.board))
    except limits.ConfigError as e:
        raise VmscaleError(str(e), "use --board host or a file from `vmscale board describe --json FILE`")
    try:
        cores = sorted({int(c) for c in csv_list(args.cores)})
    except ValueError:
        raise VmscaleError(f"--cores {args.cores}: expected comma-separated integers, e.g. 1,2")
    if args.repeat < 1:
        raise VmscaleError(f"--repeat {args.repeat}: at least 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sides = list(SIDES) if args.side == "both" else [args.side]
    rows, failures = {s: [] for s in SIDES}, []
    for side in SIDES:
        for n, k in [(n, k) for n in cores for k in range(1, (args.repeat if side == "native" else 1) + 1)]:
            rd = out / (f"{side}-{n}c" + (f"-r{k}" if k > 1 else ""))
            if side in sides and not is_complete(rd):
                print(f"validate: {side} at {n} cores" + (f", repeat {k}" if k > 1 else ""), flush=True)
                _, _, fails = runner.run(
                    backend=SIDES[side], cores=n, workload_names=csv_list(args.workload),
                    variant_names=csv_list(args.kernel_variant), params=args.param, out=rd, timeout=args.timeout,
                    gem5_opts=twin.options() if side == "sim" else None,
                    max_host_seconds=args.max_host_seconds if side == "sim" else 0)
                failures += [f"{side} {n}c: {f}" for f in fails]
            if is_complete(rd):
                _same_cases(rd, args, twin.options() if side == "sim" else None)
                rows[side] += load_rows(rd)
    for f in failures:
        print(f"vmscale: {f}", file=sys.stderr)
    if not rows["native"] or not rows["sim"]:
        have = [s for s in SIDES if rows[s]]
        print(f"validate: runs of {', '.join(have) or 'neither side'} in {out}; the comparison needs both "
              "(run the other side with --side, into the same --out)")
        return 1 if failures else 0
    table = validate.table(rows["native"], rows["sim"])
    atomic_write_text(out / "validate.csv", rows_to_csv(table))
    atomic_write_text(out / "validate.json", json.dumps({"board": twin.label(), "gem5_options": twin.options(),
                                                         "points": table}, indent=2) + "\n")
    figs = validate.plot(table, str(out / "validate"), twin.label())
    print(f"{'workload':10} {'variant':10} {'cores':>5} {'sim/native':>10} {'native N/1':>10} {'sim N/1':>8} {'error':>7}")
    for r in table:
        print(f"{r['workload']:10} {r['kernel_variant']:10} {r['cores']:5} {r['throughput_ratio_sim_over_native']:10.3f} "
              f"{r['native_scaling_ratio']:10.3f} {r['sim_scaling_ratio']:8.3f} {100 * r['scaling_error']:+6.1f}%")
    print(f"wrote {out / 'validate.csv'}, {figs[0]}")
    return 1 if failures else 0
