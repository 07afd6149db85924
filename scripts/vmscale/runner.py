"""`vmscale run`: validate a run, execute its cases on one backend, write a run directory."""

import json
import os
import platform
import shutil
import subprocess
import time

from vmscale import console as consolelib
from vmscale import guest_script, kernel, ktap, paths, variants, watchdogs, workloads
from vmscale.backends import get_backend
from vmscale.errors import VmscaleError
from vmscale.rows import make_row
from vmscale.rundir import RunDir, default_name
from vmscale_gem5.resume import EXIT_RESUME


def vmscale_commit() -> str:
    r = subprocess.run(["git", "-C", str(paths.REPO), "describe", "--always", "--dirty"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def plan(workload_names, variant_names, cores, params, only=None) -> list:
    """Validate everything and return the cases, before anything expensive starts.

    `only`, a set of (variant, workload), keeps just those of the cross product (a sweep
    whose workloads each compare their own variants)."""
    if cores < 1:
        raise VmscaleError(f"--cores {cores}: must be at least 1")
    if not workload_names:
        raise VmscaleError("no workload given", f"use --workload with {', '.join(workloads.NAMES)}")
    for w in workload_names:
        workloads.describe(w)  # unknown or unbuilt workloads fail here
    per = workloads.resolve_params(workload_names, workloads.parse_params(params))
    if only is not None:
        stray = sorted(f"{v}/{w}" for v, w in only if v not in variant_names or w not in workload_names)
        if stray:
            raise VmscaleError(f"--case {', '.join(stray)}: not among the --kernel-variant and --workload given")
    cases = []
    for variant in variant_names:
        sysctls = variants.sysctls(variant)
        for w in workload_names:
            if only is not None and (variant, w) not in only:
                continue
            args = {"threads": cores, **per[w]}
            have = workloads.describe(w)["params"]
            for name, value in variants.implied_params(variant).items():
                if name in have:   # the variant decides unless the user fixed it
                    args.setdefault(name, value)
            cases.append(guest_script.Case(len(cases) + 1, w, variant, args, sysctls))
    return cases


def run(*, backend="qemu", cores, workload_names, variant_names=("stock",), params=(),
        flavor="normal", out=None, timeout=None, memory=None, gem5_opts=None, kernel_args=(),
        watchdog_scale=None, max_host_seconds=0, only=None) -> tuple:
    """Returns (run directory, rows, failures)."""
    be = get_backend(backend)
    cases = plan(workload_names, variant_names, cores, params, only)
    if kernel_args and backend != "qemu":
        raise VmscaleError(f"--kernel-arg applies to QEMU boots only, not {backend}",
                           "gem5 boots once per checkpoint; native runs the host's kernel")
    if max_host_seconds and backend != "gem5":
        raise VmscaleError(f"--max-host-seconds applies to gem5 boots only, not {backend}")
    if watchdog_scale is not None and backend != "qemu":
        raise VmscaleError(f"--watchdog-scale applies to QEMU boots only, not {backend}")
    if watchdog_scale is not None and not watchdog_scale >= 1:
        raise VmscaleError(f"--watchdog-scale {watchdog_scale}: must be at least 1",
                           "1 keeps the kernel's default timeouts; omit it to scale with oversubscription")
    for arg in kernel_args:
        if not arg or any(c.isspace() for c in arg):
            raise VmscaleError(f"--kernel-arg {arg!r}: one KEY=VALUE word per option")
    manifest = {
        "backend": backend, "cores": cores, "workloads": list(workload_names),
        "kernel_variants": list(variant_names), "params": list(params),
        "kernel_args": list(kernel_args), "vmscale_commit": vmscale_commit(), "host": platform.node(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cases": [{"id": c.case_id, "workload": c.workload, "variant": c.variant,
                   "argv": c.argv(), "sysctls": c.sysctls} for c in cases],
    }
    if backend == "qemu":
        kman = kernel.load_manifest(flavor)
        limit = be.max_cores(kernel.kernel_nr_cpus(flavor))
        if cores > limit:
            raise VmscaleError(f"--cores {cores} is above what QEMU and this kernel support ({limit})",
                               "QEMU's pc machine stops at 255 vCPUs; NR_CPUS is in the kernel config")
        image_manifest = paths.image_path().with_suffix(".json")
        if not image_manifest.is_file():
            raise VmscaleError(f"guest image {paths.image_path()} is not built", "run `vmscale build image`")
        manifest.update(kernel=kman, image=json.loads(image_manifest.read_text()),
                        qemu_version=be.qemu_version())
        watchdog = be.watchdog_plan(cores, paths.kernel_dir(flavor) / ".config", watchdog_scale)
    elif backend == "gem5":
        if flavor != "normal":
            raise VmscaleError(f"--flavor {flavor} under gem5: debug kernels change lock layout and cost",
                               "use the normal kernel for gem5 timing runs")
        build = be.check(cores, gem5_opts or {}, be.info())   # GEM5 and its limits before any build
        kman = kernel.load_manifest(flavor)
        manifest.update(kernel=kman, image=json.loads(paths.image_path().with_suffix(".json").read_text()),
                        gem5_version=build.get("version"), gem5_options=gem5_opts or {})
    elif backend == "native":
        if cores > be.max_cores():
            raise VmscaleError(f"--cores {cores}: this host has {be.max_cores()} usable CPUs",
                               "native runs pin one thread per CPU")
        for case in cases:
            be.check_sysctls(case.sysctls)
        for w in workload_names:
            need = workloads.KERNEL_INTERFACES.get(w)
            if need and not os.path.exists(need):
                raise VmscaleError(f"workload {w} needs {need}, which this host's kernel lacks",
                                   "run it in the guest (qemu, gem5) or boot the vmscale kernel here")
    rd = RunDir(out, default_name(backend, cores, list(workload_names)))
    print(f"run {rd.run_id}: {len(cases)} case(s) on {backend} at {cores} cores -> {rd.final}", flush=True)
    try:
        if backend == "qemu":
            text, info = be.boot(bzimage=kman["bzImage"], image=paths.image_path(),
                                 script_text=guest_script.render(cases), cores=cores, workdir=rd.path,
                                 timeout=timeout or be.default_timeout(cores, len(cases)), mem=memory,
                                 extra_cmdline=kernel_args, watchdog=watchdog)
        elif backend == "gem5":
            text, info, dumps = be.run(cases=cases, script_text=guest_script.render(cases), cores=cores,
                                       workdir=rd.path, kernel_manifest=kman, opts=gem5_opts or {},
                                       timeout=timeout or 24 * 3600, max_host_seconds=max_host_seconds)
        else:
            text, info = be.run_cases(cases, rd.path, timeout or 3600)
    except KeyboardInterrupt:
        raise  # interrupted, not failed: the .partial directory is rerun next time
    except BaseException as e:
        if getattr(e, "exit_code", None) == EXIT_RESUME:
            shutil.rmtree(rd.path, ignore_errors=True)   # nothing ran yet: the boot continues next time
            raise
        where = rd.fail(manifest, str(e))
        if isinstance(e, VmscaleError):
            e.problem += f" [run directory: {where}]"
        raise
    manifest.update(info)
    parsed = consolelib.parse(text)
    roi_stats = {}
    if backend == "gem5":
        from vmscale_gem5 import stats as gem5stats
        # One dump per workbegin/workend pair, in case order (cases without a result made none).
        done = [c for c in cases if parsed.cases.get(c.case_id) and parsed.cases[c.case_id].result]
        for case, dump in zip(done, dumps):
            ops = parsed.cases[case.case_id].result.get("ops")
            roi_stats[case.case_id] = {f"gem5.{k}": v for k, v in gem5stats.summary(dump, ops).items()
                                       if not isinstance(v, list)}
    rows, failures = [], []
    for case in cases:
        out_case = parsed.cases.get(case.case_id) or consolelib.CaseOutput(case.case_id, case.variant, case.workload)
        failure = consolelib.case_failure(out_case)
        if failure:
            failures.append(f"{case.variant}/{case.workload}: {failure}")
        rows.append(make_row(run_id=rd.run_id, backend=backend, variant=case.variant, workload=case.workload,
                             cores=cores, result=out_case.result, failure=failure,
                             extra={"sysctls": out_case.sysctls,
                                    "kernel_release": parsed.kernel_release or info.get("kernel_release"),
                                    "kernel_flavor": flavor if backend == "qemu" else None,
                                    "booted_cpus": parsed.booted_cpus,
                                    **roi_stats.get(case.case_id, {})}))
    manifest["kernel_problems"] = [{"reason": r, "line": l} for r, l in parsed.problems]
    # Kernel messages that landed inside our marker lines: what the guest's recap supplied.
    manifest["console_recovered"] = {str(c.case_id): c.recovered for c in parsed.cases.values() if c.recovered}
    if parsed.problems and not failures:
        failures.append(f"kernel: {parsed.problems[0][0]}: {parsed.problems[0][1]}")
    kunit = ktap.parse(text)
    if kunit:
        manifest["kunit"] = {s.name: {"ok": s.ok, "cases": s.cases, "messages": s.messages}
                             for s in kunit.values()}
        failures += ktap.failures(kunit)
    elif any(a.startswith("kunit.enable=1") for a in kernel_args):
        failures.append("kunit.enable=1 was given but the console has no KUnit results")
    if backend == "qemu":
        # The timeouts are only what the guest took: a dropped parameter must not pass unseen.
        manifest["watchdogs_seen"] = parsed.watchdogs
        if not watchdogs.overridden(kernel_args):
            bad = watchdogs.mismatches(watchdog, parsed.watchdogs)
            if bad:
                failures.append(f"the kernel did not take the detector timeouts: {', '.join(bad)}")
    if backend in ("qemu", "gem5") and parsed.booted_cpus != cores:
        failures.append(f"the guest brought up {parsed.booted_cpus} CPUs, not {cores}")
    final = rd.complete(manifest, rows)
    return final, rows, failures
