"""`vmscale demo`: the main job end to end.

Build everything and run a small sweep on the best available backend (local and fault
under stock, rwlock and rcu, a few core counts: one boot per core count) to show the
kernel designs working; plot it.  The model stage then works on cycle-level data shipped in
results/ (TimingSimpleCPU + Ruby): the reference board's curves (board=e7-8870), fitted on
one socket and judged on two and four, by every method (the USL, the counter-based model,
the fit carried by the board's distances), with the figure twins; then the RadixVM
Figure 5 curves of the earlier board, and the crossbar fit carried to a mesh.
QEMU's TCG timing is not a contention curve, so it is fitted only with --fit-qemu.
"""

import shutil
import subprocess
import sys
from pathlib import Path

from vmscale import collect, paths, plots, report, runner
from vmscale.errors import VmscaleError

# The cycle-level tables the model stage fits (committed; see results/README.md), each with
# the largest core count it is fitted on (the counts above it are held out): the reference
# board's (one socket of ten fitted, 20 and 40 held out), then Figure 5's on the earlier board.
GEM5_TABLES = {"gem5-e7-8870-to-80c": 10, "gem5-radixvm-fig5": 8}
# The crossbar-fitted model carried to a mesh: (table, workload, source board, target board).
INTERCONNECT = ("gem5-mesh-refcount", "refcount", "network=garnet", "network=garnet topology=mesh")

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
    for w in WORKLOADS:
        figs = plots.scaling_plot(table, str(out / f"scaling-{w}"), w)
        print(f"== plots: {', '.join(figs)}", flush=True)
    if getattr(a, "fit_qemu", False) and len(cores) >= 3:
        from vmscale_model import fit as fitlib, outputs
        note = f"{backend} backend: " + ("functional timing (TCG), not cycle-level" if backend == "qemu" else "this host")
        for w in WORKLOADS:
            for v in variants:
                try:
                    tf = fitlib.fit_table(table, w, v)
                except fitlib.FitError as e:
                    print(f"== model {w}/{v}: {e}", flush=True)
                    continue
                figs = outputs.write_fit(tf, out / f"model-{w}-{v}", f"{w} / {v}: contended-line model", note=note)
                print(f"== model {w}/{v}: {', '.join(figs)}", flush=True)
    model_stage(out)
    for f in failed:
        print(f"vmscale demo: {f}", file=sys.stderr)
    print(f"== done: {out}", flush=True)
    return 1 if failed else 0


def _traces() -> list:
    """The shipped hot-line traces of the reference board (hotlines.csv rows), for the hot-line methods."""
    from vmscale_model.cli import hotline_rows
    return [r for path in sorted((paths.REPO / "results").glob("gem5-e7-8870-*/0*c-*/hotlines.csv"))
            for r in hotline_rows(path)]


def model_stage(out: Path) -> None:
    """Fit and judge the shipped cycle-level curves; write the study and the figure twins."""
    from vmscale_gem5.board import with_sockets
    from vmscale_model import outputs, study
    for name, train_max in GEM5_TABLES.items():
        table = paths.REPO / "results" / name / "table.csv"
        if not table.is_file():
            print(f"== model: {table} is missing; nothing cycle-level to fit", flush=True)
            continue
        print(f"== model: {name} (gem5, cycle-level): fitted on <= {train_max} cores, judged on the rest", flush=True)
        result = study.study_table(table, train_max, boards=with_sockets, hotlines=_traces())
        outputs.write_study(result, out / "model" / name, str(table), 1, train_max,
                            f"gem5 v24 TimingSimpleCPU + Ruby MESI_Two_Level: results/{name}")
        print(study.verdict(result), end="", flush=True)
        print(f"== every method's parameters: {out / 'model' / name / 'study.md'}; the curves on one figure: "
              f"{out / 'model' / name / 'grid.png'}", flush=True)
        path = report.report(table, out / "model" / name / "report")
        print(f"== figure twins and report: {path}", flush=True)
    interconnect_stage(out)


def interconnect_stage(out: Path) -> None:
    """The crossbar fit carried to the mesh (`vmscale model interconnect`), judged on the mesh's curve."""
    name, workload, source, target = INTERCONNECT
    table = paths.REPO / "results" / name / "table.csv"
    if not table.is_file():
        print(f"== model: {table} is missing; no interconnect check", flush=True)
        return
    from vmscale_model import cli
    print(f"== model: {name}: fitted on [{source}], predicted on [{target}]", flush=True)
    cli.main(["interconnect", str(table), "--workload", workload, "--from", source, "--to", target,
              "--out", str(out / "model" / name)])
