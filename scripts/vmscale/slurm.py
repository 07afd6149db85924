"""`vmscale sweep slurm`: sbatch scripts for a sweep — boot checkpoints first (gem5), then a
job array of the sweep's jobs depending on them (afterok), throttled, with resources
derived from each job."""

import math
import os
import shlex
import sys
from pathlib import Path

from vmscale import sweep_runner
from vmscale.fileutil import atomic_write_text
from vmscale_gem5 import board as boardlib
from vmscale_gem5.resume import EXIT_RESUME


def resources(job: dict) -> dict:
    """Memory (MiB), time (minutes) and CPUs one job needs."""
    cores, cases = job["cores"], len(job["points"])
    if job["backend"] == "gem5":
        # One host thread; Ruby state grows with cores; Timing+Ruby runs ~0.1-0.5 MIPS.
        return {"mem": 4096 + 48 * cores, "time": 120 + cases * (30 + 6 * cores), "cpus": 1}
    if job["backend"] == "qemu":
        return {"mem": 1024 + 32 * cores, "time": 10 + cases * (2 + cores // 8), "cpus": min(cores, 16)}
    return {"mem": 2048, "time": 10 + cases * 5, "cpus": cores}


def _header(name, array, res, log_dir, partition, account, extra=()):
    lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --array={array}",
             f"#SBATCH --mem={res['mem']}M", f"#SBATCH --time={res['time'] // 60}:{res['time'] % 60:02d}:00",
             f"#SBATCH --cpus-per-task={res['cpus']}", f"#SBATCH --output={log_dir}/%x-%A_%a.out"]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if account:
        lines.append(f"#SBATCH --account={account}")
    return lines + list(extra)


def write(spec_path, out, partition=None, account=None, throttle=8) -> Path:
    spec, sweep_dir, _ = sweep_runner.prepare(spec_path, out)
    jobs = sweep_runner.load_jobs(sweep_dir)
    sdir = sweep_dir / "slurm"
    log_dir = sdir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    py = shlex.quote(sys.executable)
    env = [f"cd {shlex.quote(str(Path(__file__).resolve().parents[2]))}"]
    if os.environ.get("GEM5"):
        env.append(f"export GEM5={shlex.quote(os.environ['GEM5'])}")
    # The largest job sets the array's request: Slurm arrays share one resource request; the spec's
    # [slurm] hours and mem_gib, where measured runs set them, replace the estimate.
    res = {k: max(resources(j)[k] for j in jobs) for k in ("mem", "time", "cpus")}
    if "hours" in spec.slurm:
        res["time"] = math.ceil(60 * spec.slurm["hours"])
    if "mem_gib" in spec.slurm:
        res["mem"] = math.ceil(1024 * spec.slurm["mem_gib"])
    points = _header(f"vmscale-{spec.name}", f"0-{len(jobs) - 1}%{throttle}", res, log_dir, partition, account)
    points += ["set -euo pipefail"] + env + [
        f"exec {py} -m vmscale sweep run-job {shlex.quote(str(sweep_dir))} \"$SLURM_ARRAY_TASK_ID\""]
    atomic_write_text(sdir / "points.sbatch", "\n".join(points) + "\n")
    submit = ["#!/bin/bash", "# Submit the sweep: checkpoints (gem5) first, then the points.", "set -euo pipefail",
              f"cd {shlex.quote(str(sdir))}"]
    if spec.backend == "gem5":
        # One boot per core count and boot board: restore options (caches, interconnect, CPU) share it.
        keys = boardlib.checkpoint_groups((j["cores"], j["gem5"]) for j in jobs)
        cmds = []
        for cores, opts in keys:
            args = " ".join(f"--gem5 {shlex.quote(f'{k}={v}')}" for k, v in opts)
            cmds.append(f"{py} -m vmscale checkpoint --cores {cores} {args}".strip())
        cres = {"mem": max(4096 + 48 * c for c, _ in keys), "time": max(60 + 4 * c for c, _ in keys), "cpus": 1}
        ck = _header(f"vmscale-{spec.name}-cpt", f"0-{len(keys) - 1}", cres, log_dir, partition, account,
                     extra=["#SBATCH --requeue", "#SBATCH --open-mode=append"])
        # A boot cut by the job's time limit exits 75 after saving itself: requeue the task,
        # which continues the boot (a 254-core boot can span several jobs).
        ck += ["set -uo pipefail"] + env + ["cmds=("] + [f"  {shlex.quote(c)}" for c in cmds] + [")",
               'eval "${cmds[$SLURM_ARRAY_TASK_ID]}"; rc=$?',
               f'if [ $rc = {EXIT_RESUME} ]; then scontrol requeue "${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}"; exit 0; fi',
               "exit $rc"]
        atomic_write_text(sdir / "checkpoints.sbatch", "\n".join(ck) + "\n")
        submit += ["cpt=$(sbatch --parsable checkpoints.sbatch)",
                   "sbatch --parsable --dependency=afterok:${cpt%%;*} points.sbatch"]
    else:
        submit += ["sbatch --parsable points.sbatch"]
    atomic_write_text(sdir / "submit.sh", "\n".join(submit) + "\n")
    (sdir / "submit.sh").chmod(0o755)
    return sdir
