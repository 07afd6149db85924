"""`vmscale sweep run|status|run-job`: execute a sweep's jobs locally, resumably.

Layout of a sweep directory:
    sweep.toml            the spec (a different spec in the same directory is refused)
    jobs.json             job id -> its points (IDs and values)
    jobs/<job-id>/        a complete vmscale run directory, or <job-id>.partial / .failed
    logs/<job-id>.log     the job's output
    failures.jsonl        one line per failed job: reason and log tail
    table.csv             every complete row (vmscale collect)
A killed sweep leaves .partial directories, which never count as complete and are rerun.
A job whose run completed with failed cases (say, a content-verification failure) stays
complete, its failed points counted as failed; remove its directory to run it again.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vmscale import collect, sweep
from vmscale.errors import VmscaleError
from vmscale.fileutil import atomic_write_text
from vmscale.rundir import is_complete, load_rows
from vmscale_gem5 import board as boardlib
from vmscale_gem5.resume import EXIT_RESUME


def prepare(spec_path, out) -> tuple:
    spec = sweep.load(spec_path)
    sweep_dir = Path(out).resolve()
    job_list = sweep.jobs(spec)
    if spec.backend == "gem5" and any(job_state(sweep_dir, j.id) != "complete" for j in job_list):
        from vmscale.backends import gem5
        gem5.binary()  # a job to run: GEM5 must point at a gem5 build before anything is written
    sweep_dir.mkdir(parents=True, exist_ok=True)
    saved = sweep_dir / "sweep.toml"
    if saved.exists() and saved.read_text() != spec.source:
        raise VmscaleError(f"{sweep_dir} holds a different sweep spec",
                           "use another --out, or remove the directory to start over")
    atomic_write_text(saved, spec.source)
    atomic_write_text(sweep_dir / "jobs.json", json.dumps(
        [{"id": j.id, "backend": j.backend, "cores": j.cores, "params": j.params, "gem5": j.gem5, "rep": j.rep,
          "workloads": j.workloads, "variants": j.variants, "cases": j.cases,
          "points": [{"id": p.id, **p.values, "rep": p.rep} for p in j.points]} for j in job_list], indent=1))
    return spec, sweep_dir, job_list


def load_jobs(sweep_dir) -> list:
    path = Path(sweep_dir) / "jobs.json"
    if not path.is_file():
        raise VmscaleError(f"{sweep_dir} is not a sweep directory (no jobs.json)")
    return json.loads(path.read_text())


def job_state(sweep_dir: Path, job_id: str) -> str:
    d = sweep_dir / "jobs" / job_id
    if is_complete(d):
        return "complete"
    if d.with_name(job_id + ".failed").exists():
        return "failed"
    if d.with_name(job_id + ".partial").exists():
        return "partial"
    return "pending"


def job_command(sweep_dir: Path, job: dict) -> list:
    cmd = [sys.executable, "-m", "vmscale", "run", "--backend", job["backend"], "--cores", str(job["cores"]),
           "--workload", ",".join(job["workloads"]), "--kernel-variant", ",".join(job["variants"]),
           "--out", str(sweep_dir / "jobs" / job["id"])]
    for c in job.get("cases", []):
        cmd += ["--case", c]
    for p in job["params"]:
        cmd += ["--param", p]
    for k, v in sorted(job["gem5"].items()):
        cmd += ["--gem5", f"{k}={v}"]
    return cmd


def run_job(sweep_dir: Path, job: dict) -> tuple:
    """Run one job to completion; returns (ok, reason)."""
    jobs_dir = sweep_dir / "jobs"
    jobs_dir.mkdir(exist_ok=True)
    for stale in (job["id"] + ".failed", job["id"] + ".partial"):
        shutil.rmtree(jobs_dir / stale, ignore_errors=True)
    log = sweep_dir / "logs" / f"{job['id']}.log"
    log.parent.mkdir(exist_ok=True)
    with open(log, "w") as f:
        rc = subprocess.run(job_command(sweep_dir, job), stdout=f, stderr=subprocess.STDOUT).returncode
    if rc == 0:
        return True, ""
    if rc in (130, -2, -9, -15):  # interrupted or killed: left .partial, rerun on resume
        return False, "interrupted"
    if rc == EXIT_RESUME:   # a gem5 boot saved at its host-time limit: rerun continues it
        return False, "interrupted"
    lines = log.read_text(errors="replace").splitlines()
    reason = next((l.split("error:", 1)[1].strip() for l in reversed(lines) if "vmscale: error:" in l), None)
    reason = reason or next((l[len("vmscale: "):] for l in lines if l.startswith("vmscale: ")), f"exit {rc}")
    with open(sweep_dir / "failures.jsonl", "a") as f:
        f.write(json.dumps({"job": job["id"], "cores": job["cores"], "reason": reason, "exit": rc,
                            "log_tail": lines[-15:], "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n")
    return False, reason


def _fmt(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"


def run(spec_path, out, parallel=None) -> int:
    spec, sweep_dir, job_list = prepare(spec_path, out)
    jobs = load_jobs(sweep_dir)
    todo = [j for j in jobs if job_state(sweep_dir, j["id"]) != "complete"]
    done_before = len(jobs) - len(todo)
    parallel = parallel or (1 if spec.backend == "qemu" else os.cpu_count() or 1)
    print(f"sweep {spec.name}: {sum(len(j['points']) for j in jobs)} points in {len(jobs)} jobs; "
          f"{done_before} complete, {len(todo)} to run, {parallel} at a time -> {sweep_dir}", flush=True)
    if spec.backend == "gem5" and todo:
        _make_checkpoints(todo)
    lock = threading.Lock()
    state = {"done": 0, "failed": 0, "running": set(), "t0": time.time()}

    def one(job):
        with lock:
            state["running"].add(job["id"])
        t = time.time()
        ok, reason = run_job(sweep_dir, job)
        with lock:
            state["running"].discard(job["id"])
            state["done"] += 1
            state["failed"] += not ok
            elapsed = time.time() - state["t0"]
            eta = elapsed / state["done"] * (len(todo) - state["done"])
            status = "ok" if ok else ("interrupted" if reason == "interrupted" else f"FAILED: {reason}")
            print(f"[{state['done']}/{len(todo)} {_bar(state['done'], len(todo))} ETA {_fmt(eta)}] "
                  f"{job['id']} ({job['cores']} cores, {len(job['points'])} points, {_fmt(time.time() - t)}): {status}",
                  flush=True)

    stop = threading.Event()

    def heartbeat():
        while not stop.wait(60):
            with lock:
                print(f"  ... {_fmt(time.time() - state['t0'])} elapsed, running {', '.join(sorted(state['running']))}",
                      flush=True)

    threading.Thread(target=heartbeat, daemon=True).start()
    try:
        with ThreadPoolExecutor(max_workers=parallel) as pool:
            list(pool.map(one, todo))
    finally:
        stop.set()
    return summarize(sweep_dir)


def _bar(k, n, width=20) -> str:
    fill = int(width * k / max(n, 1))
    return "#" * fill + "." * (width - fill)


def _make_checkpoints(jobs):
    """gem5: make each missing boot checkpoint once, before the jobs that restore it."""
    # One boot per core count and boot board: the restore options (caches, interconnect, CPU) share it.
    for cores, items in boardlib.checkpoint_groups((j["cores"], j["gem5"]) for j in jobs):
        cmd = [sys.executable, "-m", "vmscale", "checkpoint", "--cores", str(cores)]
        for k, v in items:
            cmd += ["--gem5", f"{k}={v}"]
        if subprocess.run(cmd).returncode:
            raise VmscaleError(f"gem5 boot checkpoint at {cores} cores failed", "see the messages above")


def status(sweep_dir) -> dict:
    sweep_dir = Path(sweep_dir)
    jobs = load_jobs(sweep_dir)
    counts = {"complete": 0, "failed": 0, "partial": 0, "pending": 0}
    points = dict(counts)
    for j in jobs:
        s = job_state(sweep_dir, j["id"])
        counts[s] += 1
        if s == "complete":  # a complete run can still hold failed cases
            rows = load_rows(sweep_dir / "jobs" / j["id"])
            bad = sum(not r["ok"] for r in rows)
            points["failed"] += bad
            points["complete"] += len(rows) - bad
        else:
            points[s] += len(j["points"])
    return {"jobs": counts, "points": points, "total_jobs": len(jobs)}


def write_table(sweep_dir: Path):
    """table.csv from every complete job (what a Slurm sweep has finished so far)."""
    complete = [sweep_dir / "jobs" / j["id"] for j in load_jobs(sweep_dir)
                if job_state(sweep_dir, j["id"]) == "complete"]
    return collect.collect(complete, sweep_dir / "table.csv") if complete else None


def summarize(sweep_dir: Path) -> int:
    st = status(sweep_dir)
    table = write_table(sweep_dir)
    if table:
        print(f"table: {table}")
    p = st["points"]
    print(f"sweep: {p['complete']} points complete, {p['failed']} failed, {p['partial'] + p['pending']} not run"
          + (f" (failures: {sweep_dir / 'failures.jsonl'})" if p["failed"] else ""), flush=True)
    return 0 if p["failed"] == 0 and p["partial"] + p["pending"] == 0 else 1


def run_one(sweep_dir, index: int) -> int:
    """One job by its index in jobs.json (a Slurm array task)."""
    sweep_dir = Path(sweep_dir).resolve()
    jobs = load_jobs(sweep_dir)
    if not 0 <= index < len(jobs):
        raise VmscaleError(f"job index {index} is outside 0..{len(jobs) - 1}")
    job = jobs[index]
    if job_state(sweep_dir, job["id"]) == "complete":
        print(f"{job['id']} is already complete")
        return 0
    ok, reason = run_job(sweep_dir, job)
    print(f"{job['id']}: {'ok' if ok else 'FAILED: ' + reason}")
    return 0 if ok else 1
