"""gem5 itself: these run only with GEM5=/path/to/gem5.opt (a v24 X86 build with MESI_Two_Level)."""

import csv
import gzip
import json
import os
import re

import pytest

from conftest import vmscale

GEM5 = os.environ.get("GEM5")
pytestmark = [pytest.mark.gem5,
              pytest.mark.skipif(not GEM5, reason="GEM5 is not set: export GEM5=/path/to/build/X86/gem5.opt")]


@pytest.mark.slow
def test_checkpoint_then_restore_into_ruby_runs_a_workload_at_8_cores(kernel_built, tmp_path):
    """Boot with atomic CPUs (Ruby bypassed), checkpoint, restore into Timing + Ruby, run local."""
    r = vmscale("run", "--backend", "gem5", "--cores", 8, "--workload", "local", "--param", "iters=5",
                "--out", tmp_path / "g", timeout=6 * 3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    row = json.loads((tmp_path / "g" / "results.jsonl").read_text().splitlines()[0])
    assert row["ok"] and row["booted_cpus"] == 8 and row["m5"] == "inst"
    assert row["gem5.sim_ticks"] > 0 and row["gem5.ruby_miss_latency_samples"] > 0
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["gem5_version"].startswith("24.") and os.path.isfile(os.path.join(manifest["checkpoint"], "m5.cpt"))


def test_two_makers_of_one_checkpoint_boot_once_and_get_the_same(kernel_built):
    """Two `vmscale checkpoint` for one key at once (as two Slurm tasks on a shared filesystem
    would): one boots, the other waits on the lock and takes what the first made.  Runs first
    in this file, before the 2-core default checkpoint exists (the tests below use it)."""
    import subprocess
    import sys
    from conftest import REPO
    from vmscale import kernel
    from vmscale.backends import gem5
    cpt = gem5.checkpoint_path(2, kernel.load_manifest("normal"), {})
    if (cpt / "m5.cpt").is_file():
        pytest.skip(f"{cpt} exists already: remove it to watch two makers race")
    cmd = [sys.executable, "-m", "vmscale", "checkpoint", "--cores", "2"]
    procs = [subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=6 * 3600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert sum("gem5: booting 2 cores" in o for o in outs) == 1, outs
    assert sum("waiting for it" in o and "made meanwhile by another process" in o for o in outs) == 1, outs
    assert all(f"checkpoint: {cpt}" in o for o in outs), outs
    assert (cpt / "m5.cpt").is_file() and not cpt.with_name(cpt.name + ".partial").exists()
    assert json.loads((cpt / "inputs.json").read_text())["boot_argv"] == ["--cores", "2"]


RECORD = "gem5-rerun-2c"


@pytest.fixture(scope="module")
def remade(kernel_built, tmp_path_factory):
    """results/gem5-rerun-2c re-made here from its manifest (`vmscale verify --rerun`): one gem5
    run that the end-to-end checks read and the reproducibility check compares with the record."""
    from conftest import REPO
    record = REPO / "results" / RECORD
    runs = [p.parent for p in sorted(record.rglob("manifest.json")) if (p.parent / "results.jsonl").is_file()]
    assert runs, f"{record} holds no run directory: re-make it with its make.sh"
    out = tmp_path_factory.mktemp("remade")
    r = vmscale("verify", record, "--rerun", "--rerun-dir", out, timeout=3 * 3600)
    again = out / runs[0].name
    assert (again / "results.jsonl").is_file(), r.stdout[-3000:] + r.stderr[-2000:]
    return record, runs[0], again, r


def test_end_to_end_at_two_cores_each_case_gets_its_own_roi_and_the_designs_differ(remade):
    """Boot to a checkpoint (once per kernel and board), restore into Timing + Ruby, and run
    refcount under a shared atomic and under Refcache in one boot (the record's run, re-made).
    Each case's workbegin/workend must give its own stats dump, matched to it: the atomic
    counter moves its line between the two L1s about once per get+put pair, Refcache's per-CPU
    deltas almost never, and Refcache runs more instructions per pair.  Two dumps swapped
    would invert both.  The ROI is 4,000 pairs per thread so that its fixed cost (thread
    start-up skew, a timer tick: ~55k instructions) stays small beside the per-pair work."""
    _, _, run, _ = remade
    rows = {row["kernel_variant"]: row for row in map(json.loads, (run / "results.jsonl").read_text().splitlines())}
    assert set(rows) == {"stock", "refcache"}
    stock, refcache = rows["stock"], rows["refcache"]
    for row in rows.values():
        assert row["ok"] and row["ops"] == 2 * 4000 and row["booted_cpus"] == 2
        assert row["gem5.roi_cycles"] > 0 and row["gem5.cores_in_stats"] == 2
        # Both threads start together: the ROI's opening barrier spins under gem5 (a futex
        # wake-up once let one thread run half its pairs alone: 0.47 moves per pair, not ~1).
        assert row["start_skew_cycles"] < 0.01 * row["cycles"], row["start_skew_cycles"]
    assert stock["gem5.sim_ticks"] != refcache["gem5.sim_ticks"]       # two dumps, not one read twice
    assert stock["gem5.l1_fwd_getx_per_op"] > 0.5                         # the shared line moves
    assert refcache["gem5.l1_fwd_getx_per_op"] < 0.2 * stock["gem5.l1_fwd_getx_per_op"]
    assert refcache["gem5.roi_insts_per_op"] > 2 * stock["gem5.roi_insts_per_op"]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["gem5_version"].startswith("24.") and os.path.isfile(os.path.join(manifest["checkpoint"], "m5.cpt"))
    # The run script waits for the UART to drain before m5 exit, not for a fixed 0.3 s of
    # simulated time: the recap arrives whole, and the guest's tail after the last ROI (the
    # workload's exit, the recap, the drain) is well under the old sleep.
    console = (run / "console.log").read_text()
    assert "VMSCALE-RECAP-END" in console and "VMSCALE-SCRIPT-END" in console
    # each result line went to the recap only (m5 writefile), not through the UART, and was not
    # counted as lost by the console
    assert console.count("VMSCALE-RESULT-IN-RECAP ok=true") == 2 and manifest.get("console_recovered") == {}
    log = (run / "m5out" / "gem5.log").read_text()
    roi_end = float(re.findall(r"([\d.]+)s simulated\] ROI ends", log)[-1])
    exit_tick = int(re.search(r"exit cause=.* tick=(\d+)", log).group(1))
    assert exit_tick / 1e12 - roi_end < 0.2, (roi_end, exit_tick)
    # The same ROIs were traced (hotlines=1: the trace changes no simulated figure): every
    # forwarded GETX the stats count is in the trace, and stock's hot line is named from the
    # run's own vmlinux as the benchmark's shared atomic (lib/refcache_bench.c, kernel 0004).
    r = vmscale("hotlines", run, "--top", 5)
    assert r.returncode == 0, r.stderr
    hot = list(csv.DictReader(open(run / "hotlines.csv")))
    top = {row["kernel_variant"]: row for row in hot if row["rank"] == "1"}
    assert top["stock"]["name"].split("+")[0] == "bench_atomic" and float(top["stock"]["getx_per_op"]) > 0.5
    assert not top["refcache"]["name"].startswith("bench_atomic")
    for line in r.stdout.splitlines():
        if "forwarded GETX traced" in line:
            traced, counted = re.search(r"traced (\d+), in the stats ([\d.]+)", line).groups()
            assert int(traced) == float(counted) > 0, line


def _changed_since(commit: str, paths: list) -> list:
    """The paths whose tracked contents differ between `commit` and the checkout's HEAD ([] when
    the commit is not in this clone's history: nothing can be said)."""
    import subprocess
    from conftest import REPO
    commit = commit.split("-")[0]
    git = ["git", "-C", str(REPO)]
    if subprocess.run(git + ["cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True).returncode:
        return []
    r = subprocess.run(git + ["diff", "--name-only", commit, "HEAD", "--", *paths], capture_output=True, text=True)
    return sorted({line.split("/")[0] for line in r.stdout.splitlines() if line})


def test_a_shipped_point_re_made_here_gives_the_recorded_cycles(remade):
    """results/gem5-rerun-2c was recorded with reproducible builds: this machine's kernel and
    image are the same bytes when its source and compiler are, and then gem5 gives the same
    simulated ticks for every case (issue 48)."""
    _, recorded, again, r = remade
    m = json.loads((recorded / "manifest.json").read_text())
    here = json.loads((again / "manifest.json").read_text())
    here_k, here_i = here["kernel"]["vmlinux_sha256"], here["image"]["sha256"]
    if (here_k, here_i) != (m["kernel"]["vmlinux_sha256"], m["image"]["sha256"]):
        # our own sources changed since the record was made: the record is stale, not this machine
        stale = _changed_since(m["vmscale_commit"], ["guest-workloads", "kernel-patches/*.patch", "kernel-patches/config",
                                                      "SConstruct.local"])
        assert not stale, (f"{RECORD} was made at {m['vmscale_commit']}; {', '.join(stale)} changed since: "
                           f"re-make it with results/{RECORD}/make.sh")
        pytest.skip(f"this machine built another kernel or image ({here_k[:12]}, {here_i[:12]}) than the record's "
                    f"({m['kernel']['vmlinux_sha256'][:12]}, {m['image']['sha256'][:12]}): another Debian source, "
                    "compiler or package version")
    # The run script is an input too: its text (m5 readfile puts it in guest memory before the
    # ROIs, wherever it changed) moves the guest's page allocation, and so a ROI's ticks.
    if (recorded / "run.sh").read_text() != (again / "run.sh").read_text():
        pytest.skip("this vmscale writes another run script than the record's (guest_script changed): "
                    "re-make the record with results/gem5-rerun-2c/make.sh")
    assert r.returncode == 0 and "re-made equals recorded" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


@pytest.mark.slow
def test_one_boot_serves_a_crossbar_and_a_garnet_mesh(kernel_built, tmp_path):
    """The interconnect is a restore option: a 2-core run on a Garnet mesh restores the same boot
    checkpoint as the default crossbar, and gem5 really built the mesh (its config names a
    GarnetNetwork of 2 routers, and its stats count hops)."""
    runs = {}
    for name, board in (("xbar", []), ("mesh", ["--gem5", "topology=mesh", "--gem5", "network=garnet"])):
        r = vmscale("run", "--backend", "gem5", "--cores", 2, *board, "--workload", "refcount",
                    "--kernel-variant", "stock", "--param", "refcount.iters=200", "--param", "refcount.chunk=100",
                    "--out", tmp_path / name, timeout=3 * 3600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr
        runs[name] = json.loads((tmp_path / name / "manifest.json").read_text())
    assert runs["xbar"]["checkpoint"] == runs["mesh"]["checkpoint"]
    text = (tmp_path / "mesh" / "m5out" / "config.ini").read_text()
    assert "type=GarnetNetwork" in text
    assert re.search(r"routers=board\.cache_hierarchy\.ruby_system\.network\.routers0 "
                     r"board\.cache_hierarchy\.ruby_system\.network\.routers1\n", text)
    row = json.loads((tmp_path / "mesh" / "results.jsonl").read_text().splitlines()[0])
    assert row["ok"] and row["gem5.board"] == "network=garnet topology=mesh"


@pytest.mark.slow
def test_an_o3_run_with_a_timing_tail_switches_at_each_roi_and_reads_the_o3_cores(kernel_built, tmp_path):
    """tail_cpu=timing: restored into the O3 cores (the checkpoint's paths), Timing until the ROI,
    O3 through it, Timing after; the statistics are the O3 cores' (one per core, not both sets)."""
    r = vmscale("run", "--backend", "gem5", "--cores", 2, "--gem5", "cpu=o3", "--gem5", "tail_cpu=timing",
                "--workload", "refcount", "--kernel-variant", "stock", "--param", "refcount.iters=200",
                "--param", "refcount.chunk=100", "--out", tmp_path / "o3", timeout=3 * 3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    log = (tmp_path / "o3" / "m5out" / "gem5.log").read_text()
    events = re.findall(r"(switched to \w+|ROI begins|ROI ends)", log)
    assert events[:5] == ["switched to timing", "switched to o3", "ROI begins", "ROI ends", "switched to timing"], events
    text = (tmp_path / "o3" / "m5out" / "config.ini").read_text()
    assert "[board.processor.cores0.core]\ntype=BaseO3CPU" in text
    assert "[board.processor.tail0.core]\ntype=BaseTimingSimpleCPU" in text
    row = json.loads((tmp_path / "o3" / "results.jsonl").read_text().splitlines()[0])
    assert row["ok"] and row["gem5.board"] == "cpu=o3 tail_cpu=timing" and row["gem5.cores_in_stats"] == 2


def test_core_count_the_build_cannot_do_is_refused_before_gem5_starts(kernel_built, tmp_path):
    """A stock build stops at 254 cores and the refusal names the patches that lift it; a build
    with them stops at 256 and names what would lift that."""
    from vmscale_gem5 import buildinfo
    patched = buildinfo.x2apic(buildinfo.query(GEM5))
    cores, words = (257, "tops out at 256") if patched else (255, "tops out at 254")
    r = vmscale("run", "--backend", "gem5", "--cores", cores, "--workload", "local", "--out", tmp_path / "x")
    assert r.returncode == 2 and words in r.stderr, r.stderr
    assert ("x86InterruptAddress" if patched else "vmscale build gem5") in r.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_a_boot_cut_at_its_host_limit_is_saved_and_resumed(kernel_built, tmp_path):
    """A boot given a host-time limit saves itself and exits 75; the same command continues
    it from the saved leg to the boot checkpoint, which then serves a Timing + Ruby run."""
    from vmscale import paths
    board = ["--gem5", "memory=1536"]   # a board of this test's own: its checkpoint key is new
    r = vmscale("checkpoint", "--cores", 1, *board, "--max-host-seconds", 30, timeout=3600)
    if r.returncode == 0 and "checkpoint:" in r.stdout and "saving at" not in r.stdout:
        pytest.skip("this board's checkpoint already exists: remove build/checkpoints/1c-* to rerun")
    assert r.returncode == 75, r.stdout[-2000:] + r.stderr
    assert "vmscale: resume:" in r.stderr and "host-time limit" in r.stderr
    partial = [p for p in paths.build_dir().glob("checkpoints/1c-*.partial") if (p / "resume").is_dir()]
    assert len(partial) == 1 and (partial[0] / "resume" / "leg-0001" / "m5.cpt").is_file()
    r = vmscale("checkpoint", "--cores", 1, *board, timeout=6 * 3600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    assert "continuing from leg-0001" in r.stdout
    cpt = partial[0].with_name(partial[0].name[:-len(".partial")])
    assert (cpt / "m5.cpt").is_file() and not partial[0].exists()
    assert (cpt / "boot-m5out-leg-0001" / "gem5.log").is_file()   # the first leg's log is kept
    # the second leg started where the first stopped, not at tick 0
    def simulated(log):
        return [float(x) for x in re.findall(r"s host, ([0-9.]+)s simulated\]", log.read_text())]
    first, second = simulated(cpt / "boot-m5out-leg-0001" / "gem5.log"), simulated(cpt / "boot-m5out" / "gem5.log")
    assert first and second and second[0] > first[-1] > 0, (first[-3:], second[:3])
    r = vmscale("run", "--backend", "gem5", "--cores", 1, *board, "--workload", "local", "--param", "iters=5",
                "--out", tmp_path / "g", timeout=3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr


@pytest.mark.slow      # two restores of their own (about 3 minutes of a 2-core CI's 45; test_threads reads shipped profiles)
def test_a_profiled_roi_is_sampled_by_symbol_and_its_figures_are_the_untraced_runs(kernel_built, tmp_path):
    """`--gem5 roi_profile=N` traces N ns of every CPU's instructions every 100 us inside each ROI
    only, and changes no simulated figure: the same two cases run plain and profiled give the same
    ticks (the same run script: hotlines=1 adds a harness parameter, which moves the guest's pages);
    `vmscale threads` names the sampled kernel code per case.  1,000 pairs a thread (25-105 us
    of simulated ROI): each ROI's first window opens at its workbegin, so both are sampled, or
    roi_profile_start us later."""
    def run(out, *extra):
        r = vmscale("run", "--backend", "gem5", "--cores", 2, "--workload", "refcount", "--kernel-variant",
                    "stock,refcache", "--param", "refcount.iters=1000", "--param", "refcount.chunk=500",
                    *extra, "--out", out, timeout=3600)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        return {row["kernel_variant"]: row["gem5.sim_ticks"]
                for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    out = tmp_path / "profiled"
    plain = run(tmp_path / "plain")
    assert run(out, "--gem5", "roi_profile=500") == plain
    rois = [tuple(int(line.split()[1]) for line in pair)
            for pair in zip(*[iter((out / "m5out" / "profile-rois.txt").read_text().splitlines())] * 2)]
    assert len(rois) == 2
    with gzip.open(out / "m5out" / "trace.out.gz", "rt") as f:
        traced = [int(line.split(":")[0]) for line in f if ": board.processor.cores" in line]
    assert traced and all(any(b <= t <= e for b, e in rois) for t in traced)
    r = vmscale("threads", out)
    assert r.returncode == 0, r.stderr
    samples = list(csv.DictReader(open(out / "symbols.csv")))
    assert {s["variant"] for s in samples} == {"stock", "refcache"}
    assert any(not s["symbol"].startswith(("user", "kernel:")) for s in samples)   # kernel code, named
    # roi_profile_start: the profiled span (and its first window) begins that many us into each ROI
    late = tmp_path / "late"
    assert run(late, "--gem5", "roi_profile=500", "--gem5", "roi_profile_start=20") == plain
    spans = [tuple(int(line.split()[1]) for line in pair)
             for pair in zip(*[iter((late / "m5out" / "profile-rois.txt").read_text().splitlines())] * 2)]
    assert [b - b0 for (b, _), (b0, _) in zip(spans, rois)] == [20_000_000] * 2     # 20 us in ps
    assert [e for _, e in spans] == [e for _, e in rois]
    with gzip.open(late / "m5out" / "trace.out.gz", "rt") as f:
        first = min(int(line.split(":")[0]) for line in f if ": board.processor.cores" in line)
    assert first >= spans[0][0]
