"""QEMU backend: boot the vmscale kernel and image with N vCPUs under TCG and run cases.

One boot runs every case of the run (variants are switched in the guest), the script
arrives through fw_cfg, and the console is watched for progress, the end marker and
kernel problems.
"""

import os
import shutil
import subprocess
import time
from pathlib import Path

from vmscale import console as consolelib
from vmscale import watchdogs
from vmscale.errors import VmscaleError

QEMU = "qemu-system-x86_64"
MAX_VCPUS = 255          # QEMU's pc machine (xAPIC, TCG)
CORE_LIMIT = MAX_VCPUS   # whatever the kernel; sweeps check specs against it
LPJ = 4000000            # skip delay-loop calibration on every vCPU (minutes under TCG)


def max_cores(kernel_nr_cpus: int) -> int:
    return min(MAX_VCPUS, kernel_nr_cpus)


def memory_mib(cores: int) -> int:
    """Enough for the default workload sizes at this many threads."""
    return 768 + 16 * cores


def default_timeout(cores: int, ncases: int) -> int:
    """TCG runs every vCPU on the host's few cores: allow for boot plus each case."""
    return 120 + 2 * cores + ncases * (30 + 3 * cores)


def kernel_cmdline(extra=()) -> str:
    args = ["console=ttyS0", "earlyprintk=ttyS0", "root=/dev/sda", "rw", "rootfstype=ext2",
            "init=/init", "panic=-1", f"lpj={LPJ}", "nokaslr", "tsc=reliable"]
    return " ".join(args + list(extra))


def host_cpus() -> int:
    """The host CPUs this process may use: what QEMU's vCPU threads share."""
    return len(os.sched_getaffinity(0))


def watchdog_plan(cores: int, kernel_config: Path, scale=None) -> dict:
    """Detector timeouts for a boot of this kernel at `cores` vCPUs on this host."""
    text = Path(kernel_config).read_text() if kernel_config and Path(kernel_config).is_file() else ""
    return watchdogs.plan(cores, host_cpus(), watchdogs.config_values(text), scale)


def qemu_version() -> str:
    exe = shutil.which(QEMU)
    if not exe:
        raise VmscaleError(f"{QEMU} not found", "apt-get install qemu-system-x86")
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "unknown"


def command(bzimage: Path, image: Path, script: Path, cores: int, mem: int, cmdline: str) -> list:
    return [QEMU, "-M", "pc", "-accel", "tcg,thread=multi", "-cpu", "max",
            "-smp", str(cores), "-m", f"{mem}M",
            "-kernel", str(bzimage), "-append", cmdline,
            "-drive", f"file={image},format=raw,if=ide,snapshot=on",
            "-fw_cfg", f"name=opt/vmscale/run,file={script}",
            "-display", "none", "-serial", "stdio", "-monitor", "none",
            "-no-reboot", "-nodefaults"]


def _die_with_parent():
    """Child side of Popen: QEMU must not outlive a killed vmscale (PR_SET_PDEATHSIG)."""
    import ctypes
    import signal
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def _progress(line: str, cores: int, t0: float, markers: bool = True):
    line = line.strip()
    for marker in ("VMSCALE-BOOTED", "VMSCALE-CASE-BEGIN", "VMSCALE-CASE-END", "VMSCALE-ERROR") if markers else ():
        if marker in line:
            print(f"  [{time.time() - t0:6.1f}s qemu {cores}c] {line[line.index(marker):]}", flush=True)
    for reason in consolelib.kernel_problems(line):
        print(f"  [{time.time() - t0:6.1f}s qemu {cores}c] {reason}: {line}", flush=True)


def boot(*, bzimage: Path, image: Path, script_text: str, cores: int, workdir: Path,
         timeout: int, mem: int = None, extra_cmdline=(), watchdog: dict = None) -> tuple:
    """Boot, run the script, return (console text, info dict).  Raises on no end marker.

    `watchdog` is a watchdogs.plan(): its command-line words come before `extra_cmdline`,
    so a user's --kernel-arg still has the last word.
    """
    qemu_version()
    for path, fix in ((bzimage, "run `vmscale build kernel`"), (image, "run `vmscale build image`")):
        if not Path(path).is_file():
            raise VmscaleError(f"{path} is missing", fix)
    script = workdir / "run.sh"
    script.write_text(script_text)
    mem = mem or memory_mib(cores)
    cmdline = kernel_cmdline(list((watchdog or {}).get("cmdline", [])) + list(extra_cmdline))
    if watchdog:
        print(f"  qemu: {watchdogs.summary(watchdog)}", flush=True)
    cmd = command(bzimage, image, script, cores, mem, cmdline)
    (workdir / "qemu.cmd").write_text(" ".join(cmd) + "\n")
    log_path = workdir / "console.log"
    t0 = time.time()
    with open(log_path, "w") as log, open(workdir / "qemu.stderr", "w") as err:
        proc = subprocess.Popen(cmd, stdout=log, stderr=err, stdin=subprocess.DEVNULL,
                                preexec_fn=_die_with_parent)
        timed_out = _watch(proc, log_path, cores, t0, timeout)
    seconds = time.time() - t0
    text = log_path.read_text(errors="replace")
    info = {"qemu_cmd": cmd, "host_seconds": round(seconds, 1), "memory_mib": mem,
            "cmdline": cmdline, "exit_code": proc.returncode, "watchdogs": watchdog}
    parsed = consolelib.parse(text)
    if not parsed.halted:
        raise _failure(text, parsed, timed_out, timeout, workdir, cores)
    return text, info


def _watch(proc, log_path: Path, cores: int, t0: float, timeout: int) -> bool:
    """Print the guest's progress until QEMU exits; kill it past `timeout`.  True if killed."""
    seen = 0
    last_news, current = t0, "boot"
    try:
        while proc.poll() is None:
            time.sleep(0.5)
            text = log_path.read_text(errors="replace")
            for line in text[seen:].splitlines(True):
                if line.endswith("\n"):
                    if "VMSCALE-RECAP-BEGIN" in line:
                        current = "recap"   # the markers again (console.parse): not news
                    _progress(line, cores, t0, markers=current != "recap")
                    if "VMSCALE-CASE-BEGIN" in line and current != "recap":
                        current, last_news = line.split("VMSCALE-CASE-BEGIN", 1)[1].strip(), time.time()
                    seen += len(line)
            if time.time() - last_news > 30:  # a heartbeat for long cases
                last_news = time.time()
                print(f"  [{last_news - t0:6.1f}s qemu {cores}c] still running: {current} "
                      f"(timeout at {timeout} s)", flush=True)
            if time.time() - t0 > timeout:
                proc.kill()
                proc.wait()
                return True
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return False


def _failure(text: str, parsed, timed_out: bool, timeout: int, workdir: Path, cores: int) -> VmscaleError:
    """Why a boot ended without the guest's end marker, with the console's last lines."""
    tail = " | ".join(l.strip() for l in text.splitlines()[-6:] if l.strip())
    stderr = (workdir / "qemu.stderr").read_text().strip()
    if timed_out:
        why = f"timed out after {timeout} s"
        fix = "raise --timeout, or lower --param iters"
    elif parsed.problems:
        why = f"{parsed.problems[0][0]}: {parsed.problems[0][1]}"
        fix = "see console.log in the run directory"
    elif parsed.booted_cpus is None:
        why = "the kernel did not boot to /init"
        fix = "check the kernel build (vmscale build kernel) and console.log"
    else:
        why = "the guest never printed its end marker"
        fix = "see console.log"
    return VmscaleError(f"QEMU run at {cores} vCPUs failed: {why}; last console lines: {tail}"
                        + (f"; qemu: {stderr[-300:]}" if stderr else ""), fix)


# --- the backend interface (vmscale.backends) ---------------------------------------------

OPTIONS = {"kernel_args", "memory", "watchdog_scale"}


def prepare(req) -> dict:
    import json
    from vmscale import kernel, paths
    if req.watchdog_scale is not None and not req.watchdog_scale >= 1:
        raise VmscaleError(f"--watchdog-scale {req.watchdog_scale}: must be at least 1",
                           "1 keeps the kernel's default timeouts; omit it to scale with oversubscription")
    for arg in req.kernel_args:
        if not arg or any(c.isspace() for c in arg):
            raise VmscaleError(f"--kernel-arg {arg!r}: one KEY=VALUE word per option")
    kman = kernel.load_manifest(req.flavor)
    limit = max_cores(kernel.kernel_nr_cpus(req.flavor))
    if req.cores > limit:
        raise VmscaleError(f"--cores {req.cores} is above what QEMU and this kernel support ({limit})",
                           "QEMU's pc machine stops at 255 vCPUs; NR_CPUS is in the kernel config")
    image_manifest = paths.image_path().with_suffix(".json")
    if not image_manifest.is_file():
        raise VmscaleError(f"guest image {paths.image_path()} is not built", "run `vmscale build image`")
    return {"kernel": kman, "image": json.loads(image_manifest.read_text()), "qemu_version": qemu_version(),
            "watchdogs": watchdog_plan(req.cores, paths.kernel_dir(req.flavor) / ".config", req.watchdog_scale)}


def execute(req, prep, workdir: Path, script_text: str):
    from vmscale import paths
    from vmscale.backends import Outcome
    text, info = boot(bzimage=prep["kernel"]["bzImage"], image=paths.image_path(), script_text=script_text,
                      cores=req.cores, workdir=workdir,
                      timeout=req.timeout or default_timeout(req.cores, len(req.cases)), mem=req.memory,
                      extra_cmdline=req.kernel_args, watchdog=prep["watchdogs"])
    return Outcome(text, dict(info, kernel_flavor=req.flavor))


def row_extras(req, outcome, parsed) -> dict:
    return {c.case_id: {"kernel_flavor": req.flavor} for c in req.cases}


def failures(req, prep, parsed) -> list:
    out = []
    # The timeouts are only what the guest took: a dropped parameter must not pass unseen.
    if not watchdogs.overridden(req.kernel_args):
        bad = watchdogs.mismatches(prep["watchdogs"], parsed.watchdogs)
        if bad:
            out.append(f"the kernel did not take the detector timeouts: {', '.join(bad)}")
    if parsed.booted_cpus != req.cores:
        out.append(f"the guest brought up {parsed.booted_cpus} CPUs, not {req.cores}")
    return out
