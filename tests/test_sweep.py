"""Sweeps: spec expansion and validation, real runs, kill and resume, failures, plots, Slurm scripts."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO, vmscale
from vmscale import sweep
from vmscale.errors import VmscaleError

SPEC = """
name = "t"
backend = "native"
[axes]
cores = [1, 2]
kernel_variant = ["stock"]
workload = ["local", "pageshare"]
"param.iters" = [10, 20]
"""


def test_expansion_ids_and_jobs():
    spec = sweep.parse(__import__("tomllib").loads(SPEC), SPEC)
    points = sweep.expand(spec)
    assert len(points) == 2 * 2 * 2
    assert len({p.id for p in points}) == 8
    # IDs name the directories a killed sweep resumes from: stable across processes (no hash())
    code = ("import tomllib, sys; from vmscale import sweep; "
            "print(' '.join(p.id for p in sweep.expand(sweep.parse(tomllib.loads(sys.stdin.read())))))")
    for seed in ("1", "2"):
        other = subprocess.run([sys.executable, "-c", code], input=SPEC, capture_output=True, text=True, check=True,
                               env=dict(os.environ, PYTHONHASHSEED=seed), cwd=REPO).stdout.split()
        assert other == [p.id for p in points]
    jobs = sweep.jobs(spec)
    assert len(jobs) == 4  # cores x iters; workloads share a machine
    assert all(sorted(j.workloads) == ["local", "pageshare"] for j in jobs)


@pytest.mark.parametrize("path", sorted((REPO / "scripts" / "sweeps").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_spec_loads_and_expands(path):
    spec = sweep.load(path)
    points = sweep.expand(spec)
    jobs = sweep.jobs(spec)
    assert points and jobs and sum(len(j.points) for j in jobs) == len(points)
    assert len({p.id for p in points}) == len(points)


PAIRED = """
backend = "native"
[axes]
cores = [1, 2]
kernel_variant = ["stock", "rwlock", "refcache"]
workload = ["local", "refcount"]
[variants]
refcount = ["stock", "refcache"]
"""


def test_per_workload_variants_make_one_job_of_only_those_cases():
    spec = sweep.parse(__import__("tomllib").loads(PAIRED), PAIRED)
    points = sweep.expand(spec)
    assert len(points) == 2 * (3 + 2)   # local under all three, refcount under two
    jobs = sweep.jobs(spec)
    assert len(jobs) == 2
    assert jobs[0].cases == ["refcache/local", "refcache/refcount", "rwlock/local", "stock/local",
                             "stock/refcount"]
    cmd = __import__("vmscale.sweep_runner").sweep_runner.job_command(
        __import__("pathlib").Path("/s"), {"id": "x", "backend": "native", "cores": 1, "workloads": jobs[0].workloads,
                                          "variants": jobs[0].variants, "cases": jobs[0].cases,
                                          "params": [], "gem5": {}})
    assert cmd.count("--case") == 5 and "rwlock/local" in cmd
    # a full cross product needs no --case: older jobs.json files have none either
    assert sweep.jobs(sweep.parse(__import__("tomllib").loads(SPEC), SPEC))[0].cases == []


@pytest.mark.parametrize("text, message", [
    ('backend = "vax"\n[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]', "unknown backend"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["nope"]', "unknown workload 'nope'"),
    ('[axes]\ncores=[1]\nkernel_variant=["fast"]\nworkload=["local"]', "unknown kernel variant 'fast'"),
    ('[axes]\ncores=[300]\nkernel_variant=["stock"]\nworkload=["local"]', "above what qemu supports"),
    ('[axes]\ncores=[0]\nkernel_variant=["stock"]\nworkload=["local"]', "positive integer"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]', "no workload given"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\ncolour=["red"]', "unknown axis 'colour'"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\n"gem5.topology"=["mesh"]', "need backend"),
    ('[axes]\ncores=[]\nkernel_variant=["stock"]\nworkload=["local"]', "non-empty list"),
    ('speed = 3\n[axes]\ncores=[1]', "unknown key"),
    ('backend="gem5"\n[axes]\ncores=[8]\nkernel_variant=["stock"]\nworkload=["local"]\n[fixed]\n"gem5.topolgy"="mesh"',
     "unknown gem5 option 'gem5.topolgy'"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\n[variants]\nfault=["stock"]',
     "'fault' is not one of the sweep's workloads"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\n[variants]\nlocal=["rwlock"]',
     "must be a non-empty list drawn from kernel_variant"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\n[slurm]\nminutes=30', "unknown key 'minutes'"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\n[slurm]\nhours=0', "positive number"),
    ('[axes]\ncores=[1]\nkernel_variant=["stock"]\nworkload=["local"]\n[slurm]\nmem_gib="14G"', "positive number"),
])
def test_bad_specs_are_refused(text, message):
    with pytest.raises(VmscaleError, match=message):
        sweep.parse(__import__("tomllib").loads(text), text)


def test_gem5_sweep_without_gem5_is_refused(tmp_path):
    spec = tmp_path / "g.toml"
    spec.write_text('backend = "gem5"\n[axes]\ncores=[8]\nkernel_variant=["stock"]\nworkload=["local"]\n')
    r = vmscale("sweep", "run", spec, "--out", tmp_path / "out", env={"GEM5": ""})
    assert r.returncode == 2 and "GEM5 is not set" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_complete_gem5_sweep_is_collected_again_without_gem5(tmp_path):
    # a record's make.sh re-makes its tables and studies from runs it keeps: no simulator needed
    shipped = REPO / "results" / "gem5-e7-8870-pagecache-own-fd"
    shutil.copytree(shipped / "sweep", tmp_path / "sweep")
    r = vmscale("sweep", "run", REPO / "scripts" / "sweeps" / "gem5-e7-8870-pagecache-own-fd.toml",
                "--out", tmp_path / "sweep", env={"GEM5": ""})
    assert r.returncode == 0, r.stderr
    assert "6 complete, 0 to run" in r.stdout and (tmp_path / "sweep" / "table.csv").is_file()


def _spec(tmp_path, text, name="spec.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_killed_sweep_resumes_without_losing_or_rerunning_complete_points(workloads_built, tmp_path):
    cores = min(2, len(os.sched_getaffinity(0)))
    spec = _spec(tmp_path, f"""
name = "resume"
backend = "native"
[axes]
cores = [1, {cores}]
kernel_variant = ["stock"]
workload = ["local"]
"param.iters" = [100000, 100001]
""")
    out = tmp_path / "sw"
    # one job at a time: with two at once the other may finish in the instant between the
    # first job's completion and the kill
    proc = subprocess.Popen([sys.executable, "-m", "vmscale", "sweep", "run", str(spec), "--out", str(out),
                             "--parallel", "1"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    # Kill as soon as the second job has started: 10^5 mmap/munmap rounds (about a second on a
    # 2020s host, and the syscalls cannot get much faster) cannot finish within one 50 ms poll,
    # so exactly the first job is complete, whatever the host's speed.
    deadline = time.time() + 300
    while time.time() < deadline and not (any((out / "jobs").glob("*/manifest.json"))
                                          and any((out / "jobs").glob("*.partial"))):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the runner, its vmscale run and the workload
    proc.wait()
    complete = {d.name: (d / "manifest.json").stat().st_mtime_ns for d in (out / "jobs").glob("*")
                if (d / "manifest.json").is_file()}
    assert complete, "no job finished before the kill"
    left = [d for d in (out / "jobs").glob("*.partial")]
    st = json.loads(json.dumps(__import__("vmscale.sweep_runner", fromlist=["x"]).status(out)))
    assert st["jobs"]["complete"] == len(complete) == 1
    assert all(not (d / "manifest.json").exists() for d in left)  # nothing half-written looks complete
    # Resume with small work so the test is quick: a changed spec is refused ...
    r = vmscale("sweep", "run", _spec(tmp_path, spec.read_text().replace("100001", "40"), "other.toml"),
                "--out", out)
    assert r.returncode == 2 and "different sweep spec" in r.stderr
    # ... the same spec resumes: the complete jobs are kept as they were.
    r = vmscale("sweep", "run", spec, "--out", out, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for name, mtime in complete.items():
        assert (out / "jobs" / name / "manifest.json").stat().st_mtime_ns == mtime
    assert f"{len(complete)} complete, {4 - len(complete)} to run" in r.stdout
    rows = (out / "table.csv").read_text().splitlines()
    assert len(rows) == 1 + 4


def test_failures_are_recorded_with_reason_and_log_tail(workloads_built, tmp_path):
    spec = _spec(tmp_path, """
backend = "native"
[axes]
cores = [1]
kernel_variant = ["stock"]
workload = ["local"]
"param.inject" = [0, 1]
[fixed]
"param.iters" = 3
""")
    r = vmscale("sweep", "run", spec, "--out", tmp_path / "sw")
    assert r.returncode == 1
    failures = [json.loads(l) for l in (tmp_path / "sw" / "failures.jsonl").read_text().splitlines()]
    assert len(failures) == 1 and "content verification failed" in failures[0]["reason"]
    assert any("CORRUPT" in l or "verification" in l for l in failures[0]["log_tail"])
    st = vmscale("sweep", "status", tmp_path / "sw")
    assert "points: 1 complete, 1 failed" in st.stdout and "content verification failed" in st.stdout


@pytest.mark.qemu
def test_qemu_sweep_collect_plot_report_and_compare(qemu_ready, tmp_path):
    spec = _spec(tmp_path, """
name = "tiny"
backend = "qemu"
[axes]
cores = [1, 2]
kernel_variant = ["stock", "rwlock"]
workload = ["local", "fault"]
[fixed]
"param.iters" = 10
"param.fault.iters" = 1
"param.fault.pages" = 8
""")
    out = tmp_path / "sw"
    r = vmscale("sweep", "run", spec, "--out", out)
    assert r.returncode == 0, r.stdout + r.stderr
    table = out / "table.csv"
    assert len(table.read_text().splitlines()) == 1 + 8
    r = vmscale("report", table, "--out", tmp_path / "rep")
    assert r.returncode == 0, r.stderr
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "RadixVM Figure 5 (local)" in report and "(scaling-local.png)" in report
    assert (tmp_path / "rep" / "scaling-fault.png").stat().st_size > 10_000
    # The same points natively, compared with the QEMU ones.
    native = _spec(tmp_path, spec.read_text().replace('"qemu"', '"native"').replace(', "rwlock"', ''), "native.toml")
    r = vmscale("sweep", "run", native, "--out", tmp_path / "nat")
    assert r.returncode == 0, r.stdout + r.stderr
    r = vmscale("compare", table, tmp_path / "nat" / "table.csv", "--out", tmp_path / "cmp",
                "--label-a", "qemu", "--label-b", "native")
    assert r.returncode == 0, r.stderr
    assert "4 common points" in r.stdout
    assert (tmp_path / "cmp" / "speedup.png").exists()
    pq = pytest.importorskip("pyarrow.parquet")  # optional: Parquet beside the CSV
    assert pq.read_table(out / "table.parquet").num_rows == 8


def test_one_point_per_job_gives_every_point_its_own_job_and_leaves_shared_jobs_as_they_were():
    import tomllib
    shared = sweep.parse(tomllib.loads(SPEC), SPEC)
    alone = sweep.parse(tomllib.loads("one_point_per_job = true\n" + SPEC), SPEC)
    assert [len(j.points) for j in sweep.jobs(shared)] == [2, 2, 2, 2]
    jobs = sweep.jobs(alone)
    assert len(jobs) == 8 and all(len(j.points) == 1 for j in jobs) and len({j.id for j in jobs}) == 8
    assert {p.id for j in jobs for p in j.points} == {p.id for p in sweep.expand(shared)}
    # a job alone is not the shared job of the same values (the shipped sweeps' IDs, made without the key, are
    # test_ids_of_sweeps_already_run_are_what_this_code_computes)
    assert {j.id for j in sweep.jobs(shared)}.isdisjoint({j.id for j in jobs})
    with pytest.raises(VmscaleError, match="true or false"):
        sweep.parse(tomllib.loads('one_point_per_job = "yes"\n' + SPEC), SPEC)


def test_a_specs_slurm_table_sets_the_arrays_request(tmp_path):
    from vmscale import slurm
    plain = _spec(tmp_path, SPEC, "plain.toml")
    sb = (slurm.write(plain, tmp_path / "plain") / "points.sbatch").read_text()
    est = slurm.resources({"backend": "native", "cores": 2, "points": [0, 1]})
    assert f"#SBATCH --mem={est['mem']}M" in sb and f"--time={est['time'] // 60}:{est['time'] % 60:02d}:00" in sb
    measured = _spec(tmp_path, SPEC + "[slurm]\nhours = 40.5\nmem_gib = 14\n", "measured.toml")
    sb = (slurm.write(measured, tmp_path / "measured") / "points.sbatch").read_text()
    assert "#SBATCH --time=40:30:00" in sb and "#SBATCH --mem=14336M" in sb


def test_slurm_scripts_describe_the_sweep(workloads_built, tmp_path):
    spec = _spec(tmp_path, SPEC)
    r = vmscale("sweep", "slurm", spec, "--out", tmp_path / "sw", "--throttle", "3", "--partition", "short")
    assert r.returncode == 0, r.stderr
    sb = (tmp_path / "sw" / "slurm" / "points.sbatch").read_text()
    assert "#SBATCH --array=0-3%3" in sb and "#SBATCH --partition=short" in sb
    assert "sweep run-job" in sb and "$SLURM_ARRAY_TASK_ID" in sb
    r = subprocess.run(["bash", "-n", str(tmp_path / "sw" / "slurm" / "submit.sh")])
    assert r.returncode == 0
    # run-job is what an array task runs: job 0, for real.
    r = vmscale("sweep", "run-job", tmp_path / "sw", 0)
    assert r.returncode == 0 and "ok" in r.stdout
    r = vmscale("sweep", "run-job", tmp_path / "sw", 9)
    assert r.returncode == 2 and "outside 0..3" in r.stderr


def test_real_slurm_runs_the_sweep_array(workloads_built, slurm, tmp_path):
    spec = _spec(tmp_path, SPEC)
    out = tmp_path / "sw"
    assert vmscale("sweep", "slurm", spec, "--out", out, env=slurm).returncode == 0
    r = subprocess.run(["bash", str(out / "slurm" / "submit.sh")], capture_output=True, text=True, env=slurm)
    assert r.returncode == 0, r.stderr
    job_id = r.stdout.strip().splitlines()[-1]
    deadline = time.time() + 300
    while time.time() < deadline:
        q = subprocess.run(["squeue", "-h", "-j", job_id], capture_output=True, text=True, env=slurm)
        if not q.stdout.strip():
            break
        time.sleep(1)
    st = vmscale("sweep", "status", out)
    assert "jobs: 4 complete" in st.stdout and "points: 8 complete, 0 failed" in st.stdout, st.stdout
    assert len((out / "table.csv").read_text().splitlines()) == 1 + 8
    assert len(list((out / "slurm" / "logs").glob("*.out"))) == 4


def _shipped_sweeps():
    """(spec, jobs.json) pairs that real sweeps wrote into results/ (sweep-X.toml beside jobs-X.json)."""
    out = []
    for spec in sorted((REPO / "results").glob("*/sweep*.toml")):
        stored = spec.with_name("jobs" + spec.stem[len("sweep"):] + ".json")
        if stored.is_file():
            out.append((spec, stored))
    return out


@pytest.mark.parametrize("spec_path,stored", _shipped_sweeps(),
                         ids=lambda p: f"{p.parent.name}/{p.name}" if hasattr(p, "parent") else str(p))
def test_ids_of_sweeps_already_run_are_what_this_code_computes(spec_path, stored):
    """A sweep directory names its jobs and points by these IDs, and resuming it finds them again:
    the IDs that earlier runs wrote (results/*/jobs*.json) must be the ones computed now, whatever
    the spec's key order, with each job's cores, parameters and gem5 options as stored."""
    spec = sweep.load(spec_path)
    want = json.loads(stored.read_text())
    got = {j.id: j for j in sweep.jobs(spec)}
    assert set(got) == {j["id"] for j in want}
    for j in want:
        job = got[j["id"]]
        assert (job.cores, sorted(job.params), job.gem5, job.rep) == (j["cores"], sorted(j["params"]), j["gem5"], j["rep"])
        assert {p.id for p in job.points} == {p["id"] for p in j["points"]}


def test_spec_name_repetitions_and_gem5_options_are_read():
    text = """
name = "mine"
backend = "gem5"
repetitions = 3
[axes]
cores = [1, 2]
kernel_variant = ["stock"]
workload = ["refcount"]
[fixed]
"gem5.cpu" = "timing"
"gem5.l2-assoc" = 64
"""
    spec = sweep.parse(__import__("tomllib").loads(text), text)
    assert spec.name == "mine" and spec.repetitions == 3
    points = sweep.expand(spec)
    assert sorted(p.rep for p in points) == [0, 0, 1, 1, 2, 2]
    jobs = sweep.jobs(spec)
    assert len(jobs) == 6 and all(j.gem5 == {"cpu": "timing", "l2-assoc": "64"} for j in jobs)
    # each repetition its own job, named by its cores and rep
    assert sorted(j.id[:8] for j in jobs) == ["001c-r0-", "001c-r1-", "001c-r2-", "002c-r0-", "002c-r1-", "002c-r2-"]


def test_the_backends_core_limit_is_inclusive():
    from vmscale.backends import get_backend
    limit = get_backend("gem5").CORE_LIMIT
    at = f'backend = "gem5"\n[axes]\ncores = [{limit}]\nkernel_variant = ["stock"]\nworkload = ["refcount"]\n'
    assert sweep.jobs(sweep.parse(__import__("tomllib").loads(at), at))[0].cores == limit
    over = at.replace(f"[{limit}]", f"[{limit + 1}]")
    with pytest.raises(VmscaleError, match=f"{limit + 1} cores is above what gem5 supports"):
        sweep.parse(__import__("tomllib").loads(over), over)


@pytest.mark.parametrize("value", ["5", '"stock"', "[]", '["rcu"]'])
def test_per_workload_variants_must_be_a_list_of_the_sweeps_variants(value):
    text = (f'backend = "native"\n[axes]\ncores = [1]\nkernel_variant = ["stock", "rwlock"]\n'
            f'workload = ["local"]\n[variants]\nlocal = {value}\n')
    with pytest.raises(VmscaleError, match=r"\[variants\]: local = .* must be a non-empty list drawn from"):
        sweep.parse(__import__("tomllib").loads(text), text)


@pytest.mark.parametrize("spec_path", sorted((REPO / "scripts" / "sweeps").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_spec_parses_and_expands(spec_path):
    spec = sweep.load(spec_path)
    jobs = sweep.jobs(spec)
    assert jobs and all(j.points for j in jobs)
    if spec.one_point_per_job:
        assert all(len(j.points) == 1 for j in jobs)


def test_the_top_specs_ask_slurm_for_what_their_longest_points_took():
    """The 160- and 256-core specs (issue 44's top points) run each point alone and ask for the measured
    worst case: hours of ROI for fault/rcu, Linux's 40-round local and the locked page cache, 12 GB at 160 cores."""
    top = sweep.load(REPO / "scripts" / "sweeps" / "gem5-e7-8870-160.toml")
    cases = {(j.points[0].values["workload"], j.points[0].values["kernel_variant"]) for j in sweep.jobs(top)}
    assert ("local", "stock") in cases and ("fault", "rcu") in cases and ("fault", "stock") not in cases
    # refcount's three counters are at 160 in -window-edges (Refcache's since session 65)
    assert not any(w == "refcount" for w, _ in cases) and len(cases) == 8
    # Linux's local at 160 as the steady-state curve it extends (40 rounds; its 10-round point is in -warm)
    assert {j.points[0].values["param.local.iters"] for j in sweep.jobs(top)} == {40}
    assert top.slurm["hours"] >= 24 and top.slurm["mem_gib"] > 12
    big = sweep.load(REPO / "scripts" / "sweeps" / "gem5-e7-8870-256.toml")
    assert {j.cores for j in sweep.jobs(big)} == {256} and len(sweep.jobs(big)) == 6
    # Figure 18 at 80 and 160 continues the 10-40-core record: its ROI, both ends of mmap_pct, each design
    fig18 = sweep.load(REPO / "scripts" / "sweeps" / "gem5-e7-8870-fig18-top.toml")
    record = sweep.load(REPO / "scripts" / "sweeps" / "gem5-e7-8870-fig18-40.toml")
    points = [j.points[0].values for j in sweep.jobs(fig18)]
    assert {j.cores for j in sweep.jobs(fig18)} == {80, 160} and len(points) == 12
    assert {(p["kernel_variant"], p["param.fault.mmap_pct"]) for p in points} == {
        (v, m) for v in ("stock", "rwlock", "rcu") for m in (0, 50)}
    for key in ("param.fault.iters", "param.fault.pages", "gem5.board"):
        assert {p[key] for p in points} == {sweep.jobs(record)[0].points[0].values[key]}
    assert fig18.slurm["mem_gib"] > 12       # a 160-core restore peaked at 12 GB resident (session 65)
