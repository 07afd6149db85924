"""`vmscale run`: validate a run, execute its cases on one backend, write a run directory."""

import platform
import shutil
import subprocess
import time

from vmscale import console as consolelib
from vmscale import guest_script, ktap, paths, variants, workloads
from vmscale.backends import Request, check_options, get_backend
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
    # one per core unless the user asked for fewer; checked once per workload, before any case
    threads = {w: workloads.thread_count(per[w]["threads"], cores) if "threads" in per[w] else cores
               for w in workload_names}
    for variant in variant_names:
        sysctls = variants.run_sysctls(variant, variant_names)
        for w in workload_names:
            if only is not None and (variant, w) not in only:
                continue
            args = {"threads": threads[w], **{k: v for k, v in per[w].items() if k != "threads"}}
            have = workloads.describe(w)["params"]
            for name, value in variants.implied_params(variant).items():
                if name in have:   # the variant decides unless the user fixed it
                    args.setdefault(name, value)
            cases.append(guest_script.Case(len(cases) + 1, w, variant, args, sysctls))
    return cases


def gem5_board(opts):
    from vmscale.backends.gem5 import board_of
    return board_of(opts or {})


def run(*, backend="qemu", cores, workload_names, variant_names=("stock",), params=(),
        flavor="normal", out=None, timeout=None, memory=None, gem5_opts=None, kernel_args=(),
        watchdog_scale=None, max_host_seconds=0, only=None) -> tuple:
    """Returns (run directory, rows, failures).  Each step is the backend's (vmscale.backends)."""
    be = get_backend(backend)
    from vmscale_gem5 import board
    if backend == "gem5" and board.is_twin(str((gem5_opts or {}).get("board", ""))):
        # board=host or board=FILE become the twin's explicit values here, so the manifest,
        # the checkpoint key and every row name the board itself, not where it came from
        gem5_opts = gem5_board(gem5_opts).options()
    cases = plan(workload_names, variant_names, cores, params, only)
    if backend == "gem5" and gem5_board(gem5_opts).hotlines:
        for c in cases:     # a traced ROI's lines are named by what the frames held at its end
            c.args.setdefault("physmap", 1)
    req = Request(cores=cores, cases=tuple(cases), flavor=flavor, timeout=timeout, memory=memory,
                  gem5_opts=dict(gem5_opts or {}), kernel_args=tuple(kernel_args), watchdog_scale=watchdog_scale,
                  max_host_seconds=max_host_seconds)
    check_options(backend, be, req)
    manifest = {
        "backend": backend, "cores": cores, "workloads": list(workload_names),
        "kernel_variants": list(variant_names), "params": list(params),
        "kernel_args": list(kernel_args), "vmscale_commit": vmscale_commit(), "host": platform.node(),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cases": [{"id": c.case_id, "workload": c.workload, "variant": c.variant,
                   "argv": c.argv(), "sysctls": c.sysctls} for c in cases],
    }
    prep = be.prepare(req)
    manifest.update(prep)
    rd = RunDir(out, default_name(backend, cores, list(workload_names)))
    print(f"run {rd.run_id}: {len(cases)} case(s) on {backend} at {cores} cores -> {rd.final}", flush=True)
    try:
        outcome = be.execute(req, prep, rd.path, guest_script.render(cases, left=backend != "gem5"))
        parsed = consolelib.parse(outcome.console)
        extras = be.row_extras(req, outcome, parsed)   # may refuse (gem5: dumps that match no case)
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
    manifest.update(outcome.info)
    rows, failures = _rows(cases, parsed, outcome, extras, rd.run_id, backend, cores)
    failures += _kernel_checks(manifest, parsed, outcome.console, kernel_args, failures)
    manifest["watchdogs_seen"] = parsed.watchdogs
    failures += be.failures(req, prep, parsed)
    final = rd.complete(manifest, rows)
    return final, rows, failures


def _rows(cases, parsed, outcome, extras, run_id, backend, cores) -> tuple:
    """One row per planned case (a case the guest never reached is a failed row), and the failures."""
    rows, failures = [], []
    for case in cases:
        out_case = parsed.cases.get(case.case_id) or consolelib.CaseOutput(case.case_id, case.variant, case.workload)
        failure = consolelib.case_failure(out_case)
        if failure:
            failures.append(f"{case.variant}/{case.workload}: {failure}")
        rows.append(make_row(run_id=run_id, backend=backend, variant=case.variant, workload=case.workload,
                             cores=cores, result=out_case.result, failure=failure,
                             extra={"sysctls": out_case.sysctls, "segfaults": out_case.segfaults,
                                    "kernel_release": parsed.kernel_release or outcome.info.get("kernel_release"),
                                    "kernel_flavor": None, "booted_cpus": parsed.booted_cpus,
                                    **extras.get(case.case_id, {})}))
    return rows, failures


def _kernel_checks(manifest: dict, parsed, console: str, kernel_args, case_failures: list) -> list:
    """What the kernel said during the whole boot (oopses, KUnit), into the manifest; its failures."""
    failures = []
    manifest["kernel_problems"] = [{"reason": r, "line": l} for r, l in parsed.problems]
    # Which CPUs took timer ticks and IPIs over the boot (guest_script.IRQ_ROWS)
    manifest["interrupts"] = {k: {"cpus": c, "total": t} for k, (c, t) in parsed.interrupts.items()}
    manifest["kernel_known_upstream"] = [{"what": w, "line": l} for w, l in parsed.known]
    for what, line in parsed.known:
        print(f"  note: a known upstream kernel report, not failed on ({what}): {line}", flush=True)
    # Kernel messages that landed inside our marker lines: what the guest's recap supplied.
    manifest["console_recovered"] = {str(c.case_id): c.recovered for c in parsed.cases.values() if c.recovered}
    if parsed.problems and not case_failures:
        failures.append(f"kernel: {parsed.problems[0][0]}: {parsed.problems[0][1]}")
    kunit = ktap.parse(console)
    if kunit:
        manifest["kunit"] = {s.name: {"ok": s.ok, "cases": s.cases, "messages": s.messages}
                             for s in kunit.values()}
        failures += ktap.failures(kunit)
    elif any(a.startswith("kunit.enable=1") for a in kernel_args):
        failures.append("kunit.enable=1 was given but the console has no KUnit results")
    return failures
