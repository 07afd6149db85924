"""The `vmscale` command line."""

import argparse
import json
import subprocess
import sys
from pathlib import Path

from vmscale import paths
from vmscale.backends import BACKENDS
from vmscale.kernel import FLAVORS
from vmscale.errors import VmscaleError


def _csv(text):
    return [t for t in text.split(",") if t]


def cmd_build(a):
    try:
        import SCons  # noqa: F401  (run as `python -m SCons`, from this interpreter)
    except ImportError:
        raise VmscaleError("SCons is not installed for this Python", "bash scripts/setup.sh (or pip install scons)")
    targets = {"all": ["workloads", "image", "kernel"]}.get(a.what, [a.what])
    if "kernel" in targets:
        from vmscale import kernel
        kernel.resolve_source(a.kernel_source)  # a clear error before scons starts
    cmd = [sys.executable, "-m", "SCons", "-Q", "-f", str(paths.REPO / "SConstruct.local"), "-C", str(paths.REPO),
           f"flavor={a.flavor}"] + targets
    if a.kernel_source:
        cmd.append(f"kernel_source={Path(a.kernel_source).resolve()}")
    if a.jobs:
        cmd.append(f"jobs={a.jobs}")
    r = subprocess.run(cmd)
    if r.returncode:
        raise VmscaleError(f"build of {a.what} failed (scons exit {r.returncode})", "see the messages above")
    return 0


MAX_HOST_HELP = ("gem5: save a boot still running after this many host seconds and exit 75; the same "
                 "command continues it (default inside Slurm: the job's time left minus 15 min)")


def _gem5_opts(items) -> dict:
    from vmscale_gem5.options import USER_KEYS
    opts = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        key = key.replace("-", "_")
        if not sep or key not in USER_KEYS:
            raise VmscaleError(f"--gem5 {item!r}: expected KEY=VALUE with KEY one of {', '.join(sorted(USER_KEYS))}")
        opts[key] = value
    return opts


def _cases(items):
    """--case VARIANT/WORKLOAD (repeatable, comma-separated) -> set of pairs, or None for all."""
    pairs = [c for item in items for c in _csv(item)]
    if not pairs:
        return None
    bad = [c for c in pairs if c.count("/") != 1 or not all(c.split("/"))]
    if bad:
        raise VmscaleError(f"--case {bad[0]}: use VARIANT/WORKLOAD, e.g. rwlock/fault")
    return {tuple(c.split("/")) for c in pairs}


def cmd_run(a):
    from vmscale import runner
    final, rows, failures = runner.run(
        backend=a.backend, cores=a.cores, workload_names=_csv(a.workload),
        variant_names=_csv(a.kernel_variant), params=a.param, flavor=a.flavor, out=a.out,
        timeout=a.timeout, memory=a.memory, gem5_opts=_gem5_opts(a.gem5), kernel_args=a.kernel_arg,
        watchdog_scale=a.watchdog_scale, max_host_seconds=a.max_host_seconds, only=_cases(a.case))
    for r in rows:
        status = "ok" if r["ok"] else f"FAILED: {r['failure']}"
        cpo = r.get("cycles_per_op")
        print(f"  {r['kernel_variant']:8} {r['workload']:10} {r['cores']:4}c  "
              f"{cpo if cpo is not None else '-':>12} cycles/op  {status}")
    print(f"run directory: {final}")
    wd = json.loads((Path(final) / "manifest.json").read_text()).get("watchdogs")
    if wd:
        from vmscale import watchdogs
        print(f"kernel detectors: {watchdogs.summary(wd)}")
    for f in failures:
        print(f"vmscale: {f}", file=sys.stderr)
    return 1 if failures else 0


def cmd_collect(a):
    from vmscale import collect
    out = collect.collect(a.run_dirs, a.output)
    print(f"wrote {out}")
    return 0


def cmd_sweep(a):
    from vmscale import slurm, sweep_runner
    if a.sweep_cmd == "run":
        out = a.out or str(paths.REPO / "results" / Path(a.spec).stem)
        return sweep_runner.run(a.spec, out, a.parallel)
    if a.sweep_cmd == "status":
        st = sweep_runner.status(a.sweep_dir)
        sweep_runner.write_table(Path(a.sweep_dir))
        j, p = st["jobs"], st["points"]
        print(f"jobs: {j['complete']} complete, {j['failed']} failed, {j['partial']} interrupted, {j['pending']} pending "
              f"(of {st['total_jobs']}); points: {p['complete']} complete, {p['failed']} failed")
        failures = Path(a.sweep_dir) / "failures.jsonl"
        if failures.exists():
            for line in failures.read_text().splitlines()[-10:]:
                f = json.loads(line)
                print(f"  failed {f['job']} ({f['cores']} cores): {f['reason']}")
        return 0
    if a.sweep_cmd == "run-job":
        return sweep_runner.run_one(a.sweep_dir, a.index)
    if a.sweep_cmd == "slurm":
        out = a.out or str(paths.REPO / "results" / Path(a.spec).stem)
        sdir = slurm.write(a.spec, out, a.partition, a.account, a.throttle)
        print(f"wrote {sdir}/points.sbatch and {sdir}/submit.sh; submit with: bash {sdir}/submit.sh")
        return 0


def cmd_checkpoint(a):
    from vmscale import kernel
    from vmscale.backends import gem5
    opts = _gem5_opts(a.gem5)
    gem5.check(a.cores, opts, gem5.info())
    cpt = gem5.checkpoint(a.cores, kernel.load_manifest("normal"), opts, max_host_seconds=a.max_host_seconds)
    print(f"checkpoint: {cpt}")
    return 0


def cmd_plot(a):
    from vmscale import report
    figs = report.plot_all(a.table, a.out, a.model)
    for w, fs in figs.items():
        print(f"{w}: {', '.join(fs)}")
    return 0


def cmd_report(a):
    from vmscale import report
    print(f"wrote {report.report(a.table, a.out, a.model)}")
    return 0


def cmd_compare(a):
    from vmscale import compare
    from vmscale.fileutil import atomic_write_text
    from vmscale.rundir import rows_to_csv
    rows = compare.compare(a.a, a.b)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "compare.csv", rows_to_csv(rows))
    figs = compare.plot(rows, str(out / "speedup"), a.label_a, a.label_b)
    worst = max(rows, key=lambda r: abs(r["scaling_error"]))
    print(f"{len(rows)} common points; worst scaling error {100 * worst['scaling_error']:+.1f}% "
          f"({worst['workload']}/{worst['kernel_variant']} at {worst['cores']} cores); wrote {out / 'compare.csv'}, {figs[0]}")
    return 0


def cmd_workloads(a):
    from vmscale import workloads
    for name in workloads.NAMES:
        d = workloads.describe(name)
        print(f"{name}: {d['summary']} (op = {d['ops_unit']})")
        for p, spec in d["params"].items():
            print(f"    {p}={spec['default']:<8} {spec['help']}")
    return 0


def cmd_demo(a):
    from vmscale import demo
    return demo.main(a)


def cmd_model(a):
    from vmscale_model import cli as model_cli
    return model_cli.main(a.model_args)


def parser():
    p = argparse.ArgumentParser(prog="vmscale", description="scalable-VM experiments: build, run, collect, model")
    sub = p.add_subparsers(dest="cmd", required=True)

    b = sub.add_parser("build", help="build workloads, the guest image and kernels (SConstruct.local)")
    b.add_argument("what", nargs="?", default="all", choices=["all", "workloads", "image", "kernel"],
                   help="what to build (default: all)")
    b.add_argument("--flavor", default="normal", choices=sorted(FLAVORS), help="kernel config flavour")
    b.add_argument("--kernel-source", help="a Linux 6.12.y tarball (default: Debian's linux-source-6.12)")
    b.add_argument("--jobs", type=int, help="parallel make jobs (default: host CPUs)")
    b.set_defaults(func=cmd_build)

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
    r.add_argument("--max-host-seconds", type=float, default=0, help=MAX_HOST_HELP)
    r.add_argument("--gem5", action="append", default=[],
                   help="gem5 board option KEY=VALUE: cpu=timing|o3, topology=crossbar|mesh|ring|pt2pt, "
                        "network=simple|garnet, l2_banks, mem_channels, link_latency, ... (repeatable)")
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("collect", help="merge run directories into one tidy CSV table")
    c.add_argument("run_dirs", nargs="+", help="run directories, or directories holding them (only complete ones are read)")
    c.add_argument("-o", "--output", required=True, help="the CSV table to write (and .parquet beside it with pyarrow)")
    c.set_defaults(func=cmd_collect)

    sw = sub.add_parser("sweep", help="run sweeps locally or on Slurm")
    ssub = sw.add_subparsers(dest="sweep_cmd", required=True)
    x = ssub.add_parser("run", help="run a sweep spec here, resuming what is complete")
    x.add_argument("spec", help="a sweep spec (TOML; see scripts/sweeps/)")
    x.add_argument("--out", help="sweep directory (default: results/<spec name>)")
    x.add_argument("--parallel", type=int, help="jobs at once (default: 1 for qemu, host CPUs otherwise)")
    x = ssub.add_parser("status", help="what a sweep directory holds")
    x.add_argument("sweep_dir", help="a sweep's output directory")
    x = ssub.add_parser("run-job", help="run one job of a prepared sweep (Slurm array task)")
    x.add_argument("sweep_dir", help="a sweep directory prepared by `sweep slurm`")
    x.add_argument("index", type=int, help="the job's index (SLURM_ARRAY_TASK_ID)")
    x = ssub.add_parser("slurm", help="write sbatch scripts for a sweep")
    x.add_argument("spec", help="a sweep spec (TOML; see scripts/sweeps/)")
    x.add_argument("--out", help="sweep directory (default: results/<spec name>)")
    x.add_argument("--partition", help="Slurm partition (sbatch -p)")
    x.add_argument("--account", help="Slurm account (sbatch -A)")
    x.add_argument("--throttle", type=int, default=8, help="array tasks running at once")
    sw.set_defaults(func=cmd_sweep)

    ck = sub.add_parser("checkpoint", help="gem5: make the boot checkpoint for a core count and board")
    ck.add_argument("--cores", type=int, required=True, help="CPUs of the board to boot")
    ck.add_argument("--gem5", action="append", default=[], help="gem5 board option KEY=VALUE, as for `run` (repeatable)")
    ck.add_argument("--max-host-seconds", type=float, default=0, help=MAX_HOST_HELP)
    ck.set_defaults(func=cmd_checkpoint)

    for name, func, help_ in (("plot", cmd_plot, "figures from a table"),
                              ("report", cmd_report, "a Markdown report with figures from a table")):
        x = sub.add_parser(name, help=help_)
        x.add_argument("table", help="a table from `vmscale collect` or a sweep")
        x.add_argument("--out", required=True, help="output directory")
        x.add_argument("--model", action="store_true", help="fit and overlay the queueing model")
        x.set_defaults(func=func)

    x = sub.add_parser("compare", help="compare two tables (e.g. gem5 vs native)")
    x.add_argument("a", help="first table (e.g. gem5)")
    x.add_argument("b", help="second table (e.g. a real machine)")
    x.add_argument("--out", required=True, help="output directory for compare.csv and the figure")
    x.add_argument("--label-a", default="A", help="legend name of the first table")
    x.add_argument("--label-b", default="B", help="legend name of the second table")
    x.set_defaults(func=cmd_compare)

    w = sub.add_parser("workloads", help="list workloads and their parameters")
    w.set_defaults(func=cmd_workloads)

    d = sub.add_parser("demo", help="the main job: build, run a small sweep, fit the model, plot")
    d.add_argument("--out", default=str(paths.runs_dir() / "demo"), help="output directory (default: %(default)s)")
    d.add_argument("--cores", default="1,2,4,8", help="core counts to run (one boot each)")
    d.add_argument("--backend", choices=BACKENDS, help="force a backend (default: the best available)")
    d.add_argument("--fit-qemu", action="store_true",
                   help="also fit the model to this run's QEMU timing (functional, not cycle-level: "
                        "expect poor fits)")
    d.set_defaults(func=cmd_demo)

    m = sub.add_parser("model", help="the queueing model (see `vmscale model --help`)", add_help=False)
    m.add_argument("model_args", nargs=argparse.REMAINDER, help="fit, study, simulate, mva or piggin, and their options")
    m.set_defaults(func=cmd_model)
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    p = parser()
    if argv[:1] == ["model"]:
        # The model's own parser owns everything after `model`, --help included (argparse's
        # REMAINDER would take `--help` as an option of `vmscale` itself).
        a = argparse.Namespace(func=cmd_model, model_args=argv[1:])
    else:
        a = p.parse_args(argv)
    try:
        return a.func(a)
    except VmscaleError as e:
        code = getattr(e, "exit_code", 2)
        print(f"vmscale: {'resume' if code != 2 else 'error'}: {e}", file=sys.stderr)
        return code
    except KeyboardInterrupt:
        print("vmscale: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
