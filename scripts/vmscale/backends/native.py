"""Native backend: the same static workloads on this host, one thread per CPU.

For validation on real many-core machines.  Variants other than stock need a host
running the vmscale kernel (the sysctls must exist and be writable).
"""

import os
import subprocess
import time
from pathlib import Path

from vmscale import paths, variants
from vmscale.errors import VmscaleError

CORE_LIMIT = None   # the host's CPUs, known only where it runs


def max_cores() -> int:
    return len(os.sched_getaffinity(0))


def _usable(path: str, value: str) -> bool:
    """False when the host lacks a switch whose value an unpatched kernel does not give."""
    if not variants.upstream(path, value) and not (Path("/proc/sys") / path).exists():
        raise VmscaleError(f"this host's kernel has no /proc/sys/{path}",
                           "boot the vmscale kernel on this host, or use --kernel-variant stock")
    return (Path("/proc/sys") / path).exists()


def check_sysctls(sysctls: dict):
    """Fail before the run when this host cannot select the variant."""
    for path, value in sysctls.items():
        _usable(path, value)


def _set_sysctls(sysctls: dict) -> dict:
    """Apply the variant's switches; return the old values to restore."""
    old = {}
    for path, value in sysctls.items():
        f = Path("/proc/sys") / path
        if not _usable(path, value):
            continue
        old[path] = f.read_text().strip()
        try:
            f.write_text(value)
        except OSError as e:
            raise VmscaleError(f"cannot set /proc/sys/{path}={value}: {e}", "run as root") from e
    return old


def run_cases(cases: list, workdir: Path, timeout: int) -> tuple:
    """Run each case as a host process; return (a console-like log, info)."""
    log = []
    t0 = time.time()
    for case in cases:
        log.append(f"VMSCALE-CASE-BEGIN {case.case_id} {case.variant} {case.workload}")
        old = _set_sysctls(case.sysctls)
        argv = [str(paths.workloads_dir() / case.workload)] + case.argv()[1:]
        try:
            for path in case.sysctls:
                f = Path("/proc/sys") / path
                if f.exists():
                    log.append(f"VMSCALE-SYSCTL {path}={f.read_text().strip()}")
            print(f"  [{time.time() - t0:6.1f}s native] {case.variant} {case.workload}", flush=True)
            env = dict(os.environ, VMSCALE_SELFTESTS=str(paths.build_dir() / "selftests"))
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
            log += r.stdout.splitlines() + r.stderr.splitlines()
            rc = r.returncode
        except subprocess.TimeoutExpired:
            log.append(f"VMSCALE-ERROR {case.workload} timed out after {timeout} s")
            rc = 124
        finally:
            _set_sysctls(old) if old else None
        log.append(f"VMSCALE-CASE-END {case.case_id} rc={rc}")
    text = "\n".join(["VMSCALE-SCRIPT-BEGIN"] + log + ["VMSCALE-SCRIPT-END", "VMSCALE-HALT"]) + "\n"
    (workdir / "console.log").write_text(text)
    return text, {"host_seconds": round(time.time() - t0, 1), "kernel_release": os.uname().release}


# --- the backend interface (vmscale.backends) ---------------------------------------------

OPTIONS = set()


def prepare(req) -> dict:
    from vmscale import workloads
    if req.cores > max_cores():
        raise VmscaleError(f"--cores {req.cores}: this host has {max_cores()} usable CPUs",
                           "native runs pin one thread per CPU")
    for case in req.cases:
        check_sysctls(case.sysctls)
    for w in sorted({c.workload for c in req.cases}):
        need = workloads.KERNEL_INTERFACES.get(w)
        if need and not os.path.exists(need):
            raise VmscaleError(f"workload {w} needs {need}, which this host's kernel lacks",
                               "run it in the guest (qemu, gem5) or boot the vmscale kernel here")
    # the kernel is the one running here: vmscale built none of it, so its release names it
    u = os.uname()
    return {"kernel": {"running": True, "release": u.release, "version": u.version, "machine": u.machine}}


def execute(req, prep, workdir: Path, script_text: str):
    from vmscale.backends import Outcome
    text, info = run_cases(list(req.cases), workdir, req.timeout or 3600)
    return Outcome(text, info)


def row_extras(req, outcome, parsed) -> dict:
    return {}


def failures(req, prep, parsed) -> list:
    return []
