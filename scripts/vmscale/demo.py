"""`vmscale demo`: the main job end to end on the best available backend.

Build everything, run a small sweep (local and fault, stock and rwlock, a few core
counts: one boot per core count), collect one table, fit the queueing model with a
hold-out point, and write plots.
"""

import shutil
import subprocess
import sys
from pathlib import Path

from vmscale import collect, plots, runner
from vmscale.errors import VmscaleError

WORKLOADS = ["local", "fault"]
VARIANTS = ["stock", "rwlock", "rcu"]
# Sized so that 8 vCPUs on a 2-core host finish in about a minute per boot.
PARAMS = ["iters=100", "fault.iters=2", "fault.pages=32"]


def best_backend() -> str:
    if shutil.which("qemu-system-x86_64"):
        return "qemu"
    return "native"


def main(a) -> int:
    out = Path(a.out)
    cores = [int(c) for c in a.cores.split(",")]
    backend = a.backend or best_backend()
    print(f"== vmscale demo: {backend} backend, cores {cores}, output {out}", flush=True)
    targets = ["all"] if backend == "qemu" else ["workloads"]
    for t in targets:
        r = subprocess.run([sys.executable, "-m", "vmscale", "build", t])
        if r.returncode:
            raise VmscaleError("build failed", "see the messages above")
    out.mkdir(parents=True, exist_ok=True)
    run_dirs, failed = [], []
    variants = VARIANTS if backend == "qemu" else ["stock"]
    for n in cores:
        run_dir = out / "runs" / f"{backend}-{n}c"
        if (run_dir / "manifest.json").is_file():
            print(f"== {run_dir} is complete; reusing it", flush=True)
        else:
            run_dir, rows, failures = runner.run(backend=backend, cores=n, workload_names=WORKLOADS,
                                                 variant_names=variants, params=PARAMS, out=run_dir)
            failed += failures
        run_dirs.append(run_dir)
    table = collect.collect(run_dirs, out / "table.csv")
    print(f"== table: {table}", flush=True)
    from vmscale_model import cli as model_cli
    for w in WORKLOADS:
        figs = plots.scaling_plot(table, str(out / f"scaling-{w}"), w)
        print(f"== plots: {', '.join(figs)}", flush=True)
        for v in variants:
            if len(cores) >= 3:
                model_cli.main(["fit", str(table), "--workload", w, "--variant", v, "--holdout", "1",
                                "--out", str(out / f"model-{w}-{v}"),
                                "--note", f"{backend} backend: "
                                + ("functional timing (TCG), not cycle-level" if backend == "qemu" else "this host")])
    for f in failed:
        print(f"vmscale demo: {f}", file=sys.stderr)
    print(f"== done: {out}", flush=True)
    return 1 if failed else 0
