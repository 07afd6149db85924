"""gem5 backend: the boot-once flow on the user's gem5 v24 binary (GEM5=/path/gem5.opt).

1. checkpoint: boot the vmscale kernel with an atomic CPU (Ruby bypassed) on the final
   board; /init takes `m5 checkpoint` (vmscale.checkpoint=1); saved once per
   (kernel, cores, board) under build/checkpoints/.
2. restore: the same board with Timing (or O3) CPUs and Ruby, and this run's script through
   m5 readfile; each case's workbegin/workend resets and dumps the stats (its ROI).
The configuration is sim-configs/vmscale_fs.py; its decisions are in vmscale_gem5.
"""

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from vmscale import console as consolelib
from vmscale import fileutil
from vmscale import kernel
from vmscale import paths
from vmscale.errors import VmscaleError
from vmscale_gem5 import board as boardlib
from vmscale_gem5 import buildinfo, limits, options, resume, stats

CORE_LIMIT = limits.MAX_X86_BOARD_CORES   # the X86 board with vmscale's gem5 patches; check() asks the build

SCRIPT = paths.REPO / "sim-configs" / "vmscale_fs.py"
CONSOLE = "board.pc.com_1.device"


def binary() -> str:
    gem5 = os.environ.get("GEM5")
    if not gem5:
        raise VmscaleError("GEM5 is not set", "export GEM5=/path/to/gem5/build/X86/gem5.opt (a gem5 v24 build)")
    if not (Path(gem5).is_file() and os.access(gem5, os.X_OK)):
        raise VmscaleError(f"GEM5={gem5} is not an executable file", "point GEM5 at build/X86/gem5.opt")
    return gem5


def binary_sha256() -> str:
    """The gem5 binary's hash, remembered per (path, size, mtime): a record names the simulator
    it ran on, so a re-run on another build can say why its cycles differ."""
    path = Path(binary()).resolve()
    st = path.stat()
    if not paths.cache_enabled():
        return fileutil.sha256_file(path)
    memo = paths.cache_dir() / "gem5" / hashlib.sha256(f"{path}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:24]
    if memo.is_file():
        return memo.read_text().strip()
    sha = fileutil.sha256_file(path)
    try:
        fileutil.atomic_write_text(memo, sha + "\n")
    except OSError:
        pass
    return sha


def info() -> dict:
    try:
        return buildinfo.query(binary())
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        raise VmscaleError(f"cannot read the gem5 build options: {e}") from e


def board_of(opts) -> boardlib.Board:
    """The Board of a run's gem5 options (a dict or a label); bad options are a VmscaleError."""
    try:
        return boardlib.Board.make(opts)
    except limits.ConfigError as e:
        raise VmscaleError(str(e), "`vmscale run --help` lists the gem5 options") from e


def check_board(cores: int, opts) -> boardlib.Board:
    """What the board cannot be at this core count, before gem5 is even asked."""
    b = board_of(opts)
    try:
        b.check(cores)
    except limits.ConfigError as e:
        raise VmscaleError(str(e)) from e
    return b


def board_args(cores: int, opts) -> list:
    """vmscale_fs.py arguments that define the boot (what a checkpoint depends on)."""
    return board_of(opts).boot_argv(cores)


def check(cores: int, opts: dict, build: dict) -> dict:
    """Refuse what the binary cannot do, before gem5 starts."""
    if not build.get("version", "").startswith("24."):
        raise VmscaleError(f"GEM5 is gem5 {build.get('version', '?')}; vmscale's configs use the v24 stdlib",
                           "build gem5 v24.0.x")
    protocol = buildinfo.ruby_protocol(build)
    if protocol != "MESI_Two_Level":
        raise VmscaleError(f"this gem5 build's Ruby protocol is {protocol}; vmscale needs MESI_Two_Level",
                           "build gem5 with build_opts/X86")
    try:
        x2apic = buildinfo.x2apic(build)
        limits.check_cores(cores, ruby=True, bits_per_set=buildinfo.bits_per_set(build), x2apic_build=x2apic)
        # x2APIC past 254 cores needs the patched build; checkpoint() boots with the atomic CPU
        limits.x2apic_on(board_of(opts).x2apic, cores, "atomic", x2apic)
    except limits.ConfigError as e:
        raise VmscaleError(str(e)) from e
    return build


class ResumeNeeded(VmscaleError):
    """The boot was saved at the host-time limit: the same command continues it."""
    exit_code = resume.EXIT_RESUME


def slurm_time_left():
    """Seconds left in this Slurm job, or None outside Slurm (or when squeue cannot say)."""
    job = os.environ.get("SLURM_JOB_ID")
    if not job:
        return None
    try:
        r = subprocess.run(["squeue", "-h", "-j", job, "-o", "%L"], capture_output=True, text=True, timeout=30)
        return resume.slurm_seconds(r.stdout) if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


def _run_gem5(args: list, outdir: Path, timeout: int, label: str, ok_codes=(0,)) -> str:
    outdir.mkdir(parents=True, exist_ok=True)
    cmd = [binary(), "-d", str(outdir), str(SCRIPT)] + args
    (outdir / "gem5.cmd").write_text(" ".join(cmd) + "\n")
    t0 = time.time()
    with open(outdir / "gem5.log", "w") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            for line in proc.stdout:
                log.write(line)
                if line.startswith("vmscale_fs:"):
                    print(f"  [{time.time() - t0:7.0f}s gem5 {label}] {line[len('vmscale_fs: '):].rstrip()}",
                          flush=True)
                if time.time() - t0 > timeout:
                    proc.kill()
                    break
            rc = proc.wait()
        except BaseException:
            proc.kill()
            raise
    text = (outdir / "gem5.log").read_text(errors="replace")
    if time.time() - t0 > timeout:
        raise VmscaleError(f"gem5 {label} timed out after {timeout} s", "raise --timeout")
    if rc not in ok_codes:
        reason = next((l for l in text.splitlines() if any(k in l for k in ("fatal:", "panic:", "error:",
                                                                             "Possible Deadlock"))), f"exit {rc}")
        raise VmscaleError(f"gem5 {label} failed: {reason.strip()} (log: {outdir / 'gem5.log'})")
    return text, rc


def _other_gem5() -> int:
    """gem5 processes running on this host now (a boot's host time depends on them)."""
    n = 0
    for p in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = p.read_bytes().split(b"\0")
        except OSError:
            continue
        n += any(w.endswith(b"gem5.opt") or w.endswith(b"gem5.fast") for w in words[:1])
    return n


def checkpoint_inputs(cores: int, kernel_manifest: dict, opts) -> dict:
    """What a boot checkpoint depends on, each by content: the kernel, the image, the boot
    options of the board and the kernel command line that board's boot gets (its clock sets
    the APIC timer rate)."""
    image = json.loads(paths.image_path().with_suffix(".json").read_text())
    return {"vmlinux_sha256": kernel_manifest["vmlinux_sha256"], "image_sha256": image["sha256"],
            "boot_argv": board_args(cores, opts), "kernel_args": options.boot_args(board_of(opts).clock)}


def checkpoint_path(cores: int, kernel_manifest: dict, opts) -> Path:
    key = hashlib.sha256(json.dumps(checkpoint_inputs(cores, kernel_manifest, opts),
                                    sort_keys=True).encode()).hexdigest()[:16]
    return paths.build_dir() / "checkpoints" / f"{cores}c-{key}"


def checkpoint(cores: int, kernel_manifest: dict, opts, timeout: int = 6 * 3600,
               max_host_seconds: float = 0) -> Path:
    """The boot checkpoint for this (kernel, image, cores, boot board), made if missing.

    One maker at a time: the maker holds <checkpoint>.lock (fileutil.exclusive); another
    caller for the same key (a process here, a Slurm task on a shared filesystem) waits for it
    and then uses what it made.  With max_host_seconds (or inside a Slurm job, its time left),
    a boot still running at the limit is saved as a leg under <checkpoint>.partial/resume/ and
    ResumeNeeded is raised; the next call continues from the newest leg.  A .partial left by a
    maker that died without saving a leg is cleaned and the boot starts over.
    """
    kernel.check_vmlinux(kernel_manifest)
    inputs = checkpoint_inputs(cores, kernel_manifest, opts)
    cpt = checkpoint_path(cores, kernel_manifest, opts)
    if (cpt / "m5.cpt").is_file():
        return cpt
    with fileutil.exclusive(cpt.with_name(cpt.name + ".lock"), f"gem5: checkpoint {cpt.name}"):
        if (cpt / "m5.cpt").is_file():
            print(f"gem5: checkpoint {cpt.name} was made meanwhile by another process; using it", flush=True)
            return cpt
        return _make_checkpoint(cpt, cores, inputs, kernel_manifest, opts, timeout, max_host_seconds)


def _make_checkpoint(cpt: Path, cores, inputs, kernel_manifest, opts, timeout, max_host_seconds) -> Path:
    work = cpt.with_name(cpt.name + ".partial")
    resume_dir = work / "resume"
    start = resume.latest_leg(resume_dir)
    recorded = work / "inputs.json"
    if recorded.is_file() and json.loads(recorded.read_text()) != inputs:
        raise VmscaleError(f"{work} was started for other inputs than this boot's ({recorded})",
                           f"remove {work} (nothing else uses it) and run again")
    if work.exists() and not start:
        # A maker died before it saved a leg: nothing in it can be continued or trusted.
        print(f"gem5: removing {work.name}, left by a boot that stopped without saving", flush=True)
        shutil.rmtree(work)
    shutil.rmtree(work / "cpt", ignore_errors=True)   # a save cut short is never half-used
    work.mkdir(parents=True, exist_ok=True)
    fileutil.atomic_write_text(recorded, json.dumps(inputs, indent=1, sort_keys=True) + "\n")
    args = ["--kernel", kernel_manifest["vmlinux"], "--disk", str(paths.image_path()),
            "--mode", "checkpoint", "--cpu", "atomic", "--checkpoint-dir", str(work / "cpt")] + \
        board_args(cores, opts)
    if start:
        args += ["--resume-from", str(start)]
    limit = resume.host_limit(max_host_seconds, slurm_time_left())
    leg = resume.next_leg(resume_dir)
    if limit:
        args += ["--max-host-seconds", str(int(limit)), "--resume-dir", str(leg)]
    log_dir = work / "m5out" if not start and not limit else work / f"m5out-{leg.name}"
    print(f"gem5: booting {cores} cores to make checkpoint {cpt.name}"
          + (f", continuing from {start.name}" if start else "")
          + (f", saving at {int(limit)} host s" if limit else ""), flush=True)
    host = {"cpus": os.cpu_count(), "loadavg_start": os.getloadavg(), "other_gem5_start": _other_gem5()}
    _, rc = _run_gem5(args, log_dir, timeout, f"boot {cores}c", ok_codes=(0, resume.EXIT_RESUME))
    host.update(loadavg_end=os.getloadavg(), other_gem5_end=_other_gem5())
    fileutil.atomic_write_text(log_dir / "host.json", json.dumps(host) + "\n")   # bootcost: was the host shared?
    if rc == resume.EXIT_RESUME:
        raise ResumeNeeded(f"the {cores}-core boot reached its host-time limit ({int(limit)} s) and was saved "
                           f"as {leg}", "run the same command again (a requeued Slurm job does) to continue it")
    if not (work / "cpt" / "m5.cpt").is_file():
        raise VmscaleError(f"the {cores}-core boot ended without a checkpoint (log: {log_dir / 'gem5.log'})")
    recorded.rename(work / "cpt" / "inputs.json")
    log_dir.rename(work / "cpt" / "boot-m5out")  # the boot's log, console and stats stay with it
    for earlier in sorted(work.glob("m5out-leg-*")):   # the logs of earlier legs, in order
        earlier.rename(work / "cpt" / f"boot-{earlier.name}")
    (work / "cpt").rename(cpt)   # the checkpoint appears whole, or not at all
    shutil.rmtree(work, ignore_errors=True)
    return cpt


def run(*, cases, script_text, cores, workdir: Path, kernel_manifest, opts, timeout,
        max_host_seconds: float = 0) -> tuple:
    """Restore the boot checkpoint into Timing + Ruby, run the script; (console, info, dumps)."""
    build = check(cores, opts, info())
    cpt = checkpoint(cores, kernel_manifest, opts, max_host_seconds=max_host_seconds)
    script = workdir / "run.sh"
    script.write_text(script_text)
    args = ["--kernel", kernel_manifest["vmlinux"], "--disk", str(paths.image_path()),
            "--mode", "restore", "--checkpoint-dir", str(cpt), "--script", str(script)] + \
        board_of(opts).restore_argv(cores)
    out = workdir / "m5out"
    t0 = time.time()
    log, _ = _run_gem5(args, out, timeout, f"run {cores}c")
    if board_of(opts).hotlines:
        _wait_for_hotlines(out)
    text = (out / CONSOLE).read_text(errors="replace") if (out / CONSOLE).exists() else ""
    text = consolelib.inline_recap(text, out)
    (workdir / "console.log").write_text(text)
    dumps = stats.parse_file(out / "stats.txt") if (out / "stats.txt").exists() else []
    parsed = consolelib.parse(text)
    if not parsed.halted:
        raise VmscaleError(f"gem5 run at {cores} cores ended before the guest's end marker; "
                           f"last console lines: {' | '.join(text.splitlines()[-4:])}", f"see {out}")
    return text, {"gem5_version": build.get("version"), "gem5_build": build, "checkpoint": str(cpt),
                  "host_seconds": round(time.time() - t0, 1),
                  "gem5_cmd": (out / "gem5.cmd").read_text().split(), "gem5_banner": log.splitlines()[:1],
                  "gem5_binary_sha256": binary_sha256(), "board": board_of(opts).label() or "default",
                  # every value, resolved: a named board's preset may be recalibrated later
                  "board_values": dict(board_of(opts).values)}, dumps


def _wait_for_hotlines(out: Path, limit: float = 600):
    """The trace filter finishes after gem5 exits (it reads the FIFO to its end, then renames
    its output): wait for hotlines.events.gz, so the run directory is complete when we return."""
    t0 = time.time()
    while not (out / "hotlines.events.gz").is_file():
        if time.time() - t0 > limit:
            raise VmscaleError(f"the hotlines trace filter wrote no {out / 'hotlines.events.gz'} within {limit:.0f} s "
                               "of gem5's exit", "see gem5.log in the same directory for the filter's error")
        time.sleep(0.5)
    (out / "hotlines.fifo").unlink(missing_ok=True)


# --- the backend interface (vmscale.backends) ---------------------------------------------

OPTIONS = {"gem5_opts", "max_host_seconds"}


def prepare(req) -> dict:
    from vmscale import kernel
    if req.flavor != "normal":
        raise VmscaleError(f"--flavor {req.flavor} under gem5: debug kernels change lock layout and cost",
                           "use the normal kernel for gem5 timing runs")
    check_board(req.cores, req.gem5_opts)
    build = check(req.cores, req.gem5_opts, info())   # GEM5 and its limits before any build
    return {"kernel": kernel.load_manifest(req.flavor),
            "image": json.loads(paths.image_path().with_suffix(".json").read_text()),
            "gem5_version": build.get("version"), "gem5_options": dict(req.gem5_opts)}


def execute(req, prep, workdir: Path, script_text: str):
    from vmscale.backends import Outcome
    text, info_, dumps = run(cases=req.cases, script_text=script_text, cores=req.cores, workdir=workdir,
                             kernel_manifest=prep["kernel"], opts=req.gem5_opts, timeout=req.timeout or 24 * 3600,
                             max_host_seconds=req.max_host_seconds)
    return Outcome(text, info_, dumps)


def board_label(opts) -> str:
    """The row label of a run's gem5 options (board.Board.label): every row carries it, so a
    table never mixes boards unseen."""
    return board_of(opts).label()


def row_extras(req, outcome, parsed) -> dict:
    """Each case's ROI statistics: one dump per workbegin/workend pair, in case order (a case
    without a result made none), then gem5's own dump at exit; and the board they ran on."""
    done = [c for c in req.cases if parsed.cases.get(c.case_id) and parsed.cases[c.case_id].result]
    if len(outcome.dumps) not in (len(done), len(done) + 1):
        raise VmscaleError(f"gem5 wrote {len(outcome.dumps)} ROI stats dump(s) for {len(done)} case(s) with "
                           "results: cannot tell which is whose", "see m5out/stats.txt in the run directory")
    board = board_label(req.gem5_opts)
    out = {c.case_id: {"gem5.board": board} for c in req.cases}
    for case, dump in zip(done, outcome.dumps):
        out[case.case_id].update(_roi_figures(dump, parsed.cases[case.case_id].result))
    return out


def _roi_figures(dump: dict, result: dict) -> dict:
    return {f"gem5.{k}": v for k, v in stats.summary(dump, result.get("ops")).items() if not isinstance(v, list)}


def case_dumps(run_dir: Path) -> tuple:
    """A finished gem5 run directory's console (parsed) and [(case id, its ROI's stats dump)] for
    the cases with a result, in order: one dump per workbegin/workend pair, then gem5's own."""
    run_dir = Path(run_dir)
    kept = [run_dir / "m5out" / "stats.txt", run_dir / "m5out" / "stats.txt.gz"]
    path = next((p for p in kept if p.is_file()), None)
    if path is None or not (run_dir / "console.log").is_file():
        raise VmscaleError(f"{run_dir}: no m5out/stats.txt(.gz) or console.log to work the figures out from")
    text = gzip.open(path, "rt").read() if path.suffix == ".gz" else path.read_text()
    dumps = stats.parse(text)
    parsed = consolelib.parse((run_dir / "console.log").read_text(errors="replace"))
    done = [cid for cid in sorted(parsed.cases) if parsed.cases[cid].result]
    if len(dumps) not in (len(done), len(done) + 1):
        raise VmscaleError(f"{run_dir}: {len(dumps)} stats dump(s) for {len(done)} case(s) with results: "
                           "cannot tell which ROI is whose")
    return parsed, list(zip(done, dumps))


def restat(run_dir: Path, rows: list) -> list:
    """The rows of a finished gem5 run with their ROI figures worked out again, by today's
    stats parser, from the stats.txt and console the run directory kept (the run itself is
    left as it was).  For tables of runs made before a parser fix."""
    parsed, roi = case_dumps(run_dir)
    if len(rows) < len(parsed.cases):
        raise VmscaleError(f"{run_dir}: {len(rows)} row(s) for {len(parsed.cases)} case(s)")
    out = [dict(r) for r in rows]
    for cid, dump in roi:
        row, case = out[cid - 1], parsed.cases[cid]
        if (row["kernel_variant"], row["workload"]) != (case.variant, case.workload):
            raise VmscaleError(f"{run_dir}: row {cid} is {row['kernel_variant']}/{row['workload']}, "
                               f"its console case {case.variant}/{case.workload}")
        for k in [k for k in row if k.startswith("gem5.") and k != "gem5.board"]:
            del row[k]
        row.update(_roi_figures(dump, case.result))
    return out


def failures(req, prep, parsed) -> list:
    if parsed.booted_cpus != req.cores:
        return [f"the guest brought up {parsed.booted_cpus} CPUs, not {req.cores}"]
    return []
