"""`vmscale board describe`: the gem5 board that stands for this machine (its twin): sockets, cores,
caches and clock from sysfs, and, with --measure, link latencies from a line-transfer latency
measured here by the calibration workload (ccbench, run natively)."""

import json
import statistics
import subprocess
from pathlib import Path


def register(sub):
    b = sub.add_parser("board", help="the gem5 board that stands for this machine (`board describe`)")
    bs = b.add_subparsers(dest="board_cmd", required=True)
    d = bs.add_parser("describe", help="this machine's sockets, caches and clock as gem5 board options")
    d.add_argument("--measure", action="store_true",
                   help="also time line transfers between this machine's CPUs (ccbench, natively) for the "
                        "twin's link latencies")
    d.add_argument("--root", default="/", help="where sysfs and /proc are (default /; a copy for another machine)")
    d.add_argument("--json", metavar="FILE", help="write the description and the options here too")
    d.set_defaults(func=main)


def measure(desc: dict) -> dict:
    """Median same-socket load latency (TSC cycles) over every ordered pair of the first CPUs."""
    from vmscale import calibration, paths
    from vmscale.errors import VmscaleError
    binary = paths.workloads_dir() / "ccbench"
    if not binary.is_file():
        raise VmscaleError(f"{binary} is not built", "run `vmscale build workloads`")
    n = min(desc["cpus"], 8)
    if n < 2:
        raise VmscaleError("one CPU: no line can move between two", "describe without --measure")
    r = subprocess.run([str(binary), f"threads={n}", "pairs=all", f"limit={n}", "rounds=64",
                        f"socket_cores={desc['cores_per_socket']}", "homes=1"], capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise VmscaleError(f"ccbench failed ({r.returncode}): {r.stderr.strip()[-300:]}")
    pairs = [p for p in calibration.parse(r.stdout) if p["writer_socket"] == p["reader_socket"]]
    load = statistics.median(p["load"] for p in pairs)
    if load <= 0:
        # Seen on a 2-vCPU cloud machine: the transfer hid inside the timer's own cost.
        raise VmscaleError(f"a line moved between this machine's CPUs in no measurable time (median "
                           f"{load:g} TSC cycles over {len(pairs)} pairs, the timer's {statistics.median(p['overhead'] for p in pairs):g} "
                           "subtracted): its CPUs may be threads of one core, or its TSC virtualised",
                           "describe without --measure (default link latencies), or measure on the machine itself")
    return {"same_socket_load": load, "pairs": len(pairs), "unit": "TSC cycles, the timing's own cost subtracted"}


def main(args):
    from vmscale_gem5 import board, hostboard
    from vmscale.errors import VmscaleError
    try:
        desc = hostboard.read(args.root)
    except ValueError as e:
        raise VmscaleError(str(e), "give --root with a copy of a Linux machine's /sys and /proc") from e
    measured = measure(desc) if args.measure else None
    vals = board.twin(desc, measured and measured["same_socket_load"])
    l1, llc = desc["l1d"], desc["llc"]
    print(f"host: {desc['model'] or 'unknown CPU'}, {desc['cpus']} CPUs in {desc['sockets']} socket(s) of "
          f"{desc['cores_per_socket']}, clock {desc['clock_mhz'] or '?'} MHz")
    print(f"  L1D {l1['size_kib']:g} KiB {l1['ways']}-way; LLC (L{llc['level']}) {llc['size_kib']:g} KiB "
          f"{llc['ways']}-way shared by {llc['shared_cpus']} CPUs")
    if measured:
        print(f"  same-socket line transfer: {measured['same_socket_load']:g} {measured['unit']} "
              f"(median of {measured['pairs']} pairs)")
    print(f"twin board: --gem5 " + " --gem5 ".join(f"{k}={v}" for k, v in sorted(vals.items())))
    if not measured:
        print("  (link latencies: the defaults; --measure times this machine's line transfers for them)")
    if args.json:
        Path(args.json).write_text(json.dumps({"host": desc, "measured": measured, "options": vals,
                                               "label": board.Board.make(vals).label()}, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0
