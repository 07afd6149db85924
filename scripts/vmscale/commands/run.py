"""`vmscale run`: workloads x kernel variants on one backend at one core count, one boot."""

import json
import sys
from pathlib import Path

from vmscale.backends import BACKENDS
from vmscale.commands import gem5opts
from vmscale.errors import VmscaleError
from vmscale.kernel import FLAVORS


def register(sub):
    r = sub.add_parser("run", help="run workloads on a backend at one core count")
    r.add_argument("--backend", default="qemu", choices=BACKENDS, help="where the cases run (gem5: GEM5=/path/gem5.opt)")
    r.add_argument("--cores", type=int, required=True, help="CPUs of the machine, and worker threads per case")
    r.add_argument("--workload", required=True, help="comma-separated workloads (`vmscale workloads` lists them)")
    r.add_argument("--kernel-variant", default="stock", help="comma-separated variants, all in one boot")
    r.add_argument("--case", action="append", default=[],
                   help="VARIANT/WORKLOAD: run only these of the variants x workloads (repeatable)")
    r.add_argument("--param", action="append", default=[], help="NAME=VALUE or WORKLOAD.NAME=VALUE (repeatable)")
    r.add_argument("--flavor", default="normal", choices=sorted(FLAVORS), help="kernel flavour to boot (qemu)")
    r.add_argument("--out", help="run directory (default: runs/<date>-<backend>-<cores>c-<workloads>)")
    r.add_argument("--timeout", type=int, help="seconds before the run is declared hung")
    r.add_argument("--memory", type=int, help="guest memory in MiB (qemu)")
    r.add_argument("--kernel-arg", action="append", default=[],
                   help="extra kernel command-line option (qemu), e.g. kunit.enable=1 (repeatable)")
    r.add_argument("--watchdog-scale", type=float,
                   help="multiply the kernel's stall/lockup/hung-task timeouts by this (qemu; default: "
                        "2 x vCPUs per host CPU when oversubscribed, else 1)")
    gem5opts.add(r, "gem5 board option KEY=VALUE: cpu=timing|o3, topology=crossbar|mesh|ring|pt2pt, "
                    "network=simple|garnet, l2_banks, mem_channels, link_latency, ... (repeatable)")
    r.set_defaults(func=main)


def cases(items):
    """--case VARIANT/WORKLOAD (repeatable, comma-separated) -> set of pairs, or None for all."""
    from vmscale.commands import csv_list
    pairs = [c for item in items for c in csv_list(item)]
    if not pairs:
        return None
    bad = [c for c in pairs if c.count("/") != 1 or not all(c.split("/"))]
    if bad:
        raise VmscaleError(f"--case {bad[0]}: use VARIANT/WORKLOAD, e.g. rwlock/fault")
    return {tuple(c.split("/")) for c in pairs}


def main(args):
    from vmscale import runner
    from vmscale.commands import csv_list
    final, rows, failures = runner.run(
        backend=args.backend, cores=args.cores, workload_names=csv_list(args.workload),
        variant_names=csv_list(args.kernel_variant), params=args.param, flavor=args.flavor, out=args.out,
        timeout=args.timeout, memory=args.memory, gem5_opts=args.gem5, kernel_args=args.kernel_arg,
        watchdog_scale=args.watchdog_scale, max_host_seconds=args.max_host_seconds, only=cases(args.case))
    for r in rows:
        status = "ok" if r["ok"] else f"FAILED: {r['failure']}"
        cpo = r.get("cycles_per_op")
        print(f"  {r['kernel_variant']:8} {r['workload']:10} {r['cores']:4}c  "
              f"{cpo if cpo is not None else '-':>12} cycles/op  {status}")
        if r.get("segfaults"):
            print(f"    {len(r['segfaults'])} process(es) died of SIGSEGV in this case: "
                  f"{', '.join(r['segfaults'][:3])}{' ...' if len(r['segfaults']) > 3 else ''}")
    print(f"run directory: {final}")
    wd = json.loads((Path(final) / "manifest.json").read_text()).get("watchdogs")
    if wd:
        from vmscale import watchdogs
        print(f"kernel detectors: {watchdogs.summary(wd)}")
    for f in failures:
        print(f"vmscale: {f}", file=sys.stderr)
    return 1 if failures else 0
