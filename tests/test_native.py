"""Every workload natively on this host, through the CLI, with content verification."""

import csv
import json
import os

import pytest

from conftest import vmscale
from vmscale import workloads

CORES = min(2, len(os.sched_getaffinity(0)))
SMALL = ["iters=20", "global.iters=3", "fault.iters=2", "fault.pages=16", "stress.iters=500"]
# The kernel selftests test the kernel they run on: they run in the guest (test_qemu_stress.py).
NATIVE = [w for w in workloads.NAMES if w not in workloads.CHECKS and
          os.path.exists(workloads.KERNEL_INTERFACES.get(w, "/"))]


def test_describe_is_the_parameter_source(workloads_built):
    for name in workloads.NAMES:
        d = workloads.describe(name)
        assert d["name"] == name and "threads" in d["params"]
        # a fixed amount of work: iters (ccbench: rounds per pair of cores)
        fixed_work = ("iters" in d["params"] or "rounds" in d["params"] or name in workloads.CHECKS
                      or name in workloads.APPLICATIONS)
        assert fixed_work and d["summary"] and d["ops_unit"]


def test_every_workload_native(workloads_built, runs):
    args = ["run", "--backend", "native", "--cores", CORES, "--workload", ",".join(NATIVE),
            "--out", runs / "all"]
    for p in SMALL:
        args += ["--param", p]
    r = vmscale(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [json.loads(l) for l in (runs / "all" / "results.jsonl").read_text().splitlines()]
    assert [row["workload"] for row in rows] == NATIVE
    for row in rows:
        assert row["ok"] and row["errors"] == 0 and row["threads"] == CORES
        assert row["ops"] > 0 and row["cycles_per_op"] > 0, row
    by = {row["workload"]: row for row in rows}
    assert by["local"]["ops"] == 20 * CORES
    assert by["fault"]["ops"] == 2 * 16 * CORES
    assert by["local"]["minflt"] >= 20 * CORES  # every round faults its fresh page
    with open(runs / "all" / "results.csv") as f:
        assert len(list(csv.DictReader(f))) == len(NATIVE)


def test_injected_corruption_is_caught_natively(workloads_built, runs):
    r = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", "local,pageshare",
                "--param", "inject=1", "--param", "iters=5", "--out", runs / "inj")
    assert r.returncode == 1
    assert "content verification failed" in r.stderr
    rows = [json.loads(l) for l in (runs / "inj" / "results.jsonl").read_text().splitlines()]
    assert all(not row["ok"] and row["errors"] >= 1 for row in rows)


def test_stale_contents_are_caught_natively(workloads_built, runs):
    # tlbstale's check: the mapper plants a word of the previous generation (what a stale
    # TLB entry would show) in the one page, and keeps it mapped; the toucher must report it
    r = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", "tlbstale", "--param", "inject=1",
                "--param", "slots=1", "--param", "slot_pages=1", "--param", "iters=200", "--param", "procs=0",
                "--out", runs / "stale")
    assert r.returncode == 1
    assert "tlbstale: content verification failed" in r.stderr
    row = json.loads((runs / "stale" / "results.jsonl").read_text())
    assert not row["ok"] and row["errors"] >= 1 and row["remaps"] >= 1


@pytest.mark.parametrize("args, message", [
    (["--workload", "nosuch"], "unknown workload 'nosuch'"),
    (["--workload", "local", "--param", "bogus=1"], "unknown parameter 'bogus'"),
    (["--workload", "local", "--param", "global.iters=1"], "global is not among"),
    (["--workload", "local", "--param", "threads=3"], "threads=3: give 1 to 1"),
    (["--workload", "local", "--param", "iters"], "not NAME=VALUE"),
    (["--workload", "local", "--kernel-variant", "turbo"], "unknown kernel variant 'turbo'"),
    (["--workload", "local", "--cores", "0"], "must be at least 1"),
    (["--workload", "local", "--cores", "100000"], "usable CPUs"),
])
def test_bad_input_is_one_line_before_anything_runs(workloads_built, runs, args, message):
    full = ["run", "--backend", "native", "--cores", "1"] + args
    r = vmscale(*full)
    assert r.returncode == 2
    err = r.stderr.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert not runs.exists() or not any(runs.iterdir())


def test_workload_rejects_bad_values_itself(workloads_built):
    import subprocess
    r = subprocess.run([str(workloads_built / "local"), "iters=lots"], capture_output=True, text=True)
    assert r.returncode == 2 and "iters=lots is not a number" in r.stderr


@pytest.mark.skipif(os.path.exists("/proc/refcache_bench"), reason="this host runs a vmscale kernel")
def test_kernel_only_workload_is_refused_on_a_host_kernel(workloads_built, runs):
    r = vmscale("run", "--backend", "native", "--cores", 1, "--workload", "refcount", "--out", runs / "rc")
    assert r.returncode == 2 and "needs /proc/refcache_bench" in r.stderr
    assert not (runs / "rc").exists()


def test_fork_copies_are_checked_natively(workloads_built, runs):
    # forkcopy on the host's kernel: every child's copy is one instant of its threaded parent
    r = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", "forkcopy",
                "--param", "iters=5", "--param", "pages=4", "--out", runs / "fork")
    assert r.returncode == 0, r.stderr
    row = json.loads((runs / "fork" / "results.jsonl").read_text())
    assert row["ok"] and row["errors"] == 0 and row["ops"] == int(CORES) * 5, row
    # a page corrupted behind the parent's back before a fork: the child reports its copy
    r = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", "forkcopy",
                "--param", "iters=5", "--param", "pages=4", "--param", "inject=1", "--out", runs / "forkinj")
    assert r.returncode == 1
    assert "forkcopy: thread" in r.stderr and "CORRUPT child of gen 1: bad words" in r.stderr
    row = json.loads((runs / "forkinj" / "results.jsonl").read_text())
    assert not row["ok"] and row["errors"] >= 1


def test_fewer_threads_than_cores_on_request(workloads_built, runs):
    # one process, one thread, on a 2-core machine: the row says so (the fork-cost measurement)
    r = vmscale("run", "--backend", "native", "--cores", 2, "--workload", "forkcopy", "--param", "forkcopy.threads=1",
                "--param", "iters=2", "--param", "pages=2", "--out", runs / "one")
    assert r.returncode == 0, r.stderr
    row = json.loads((runs / "one" / "results.jsonl").read_text())
    assert row["cores"] == 2 and row["threads"] == 1 and row["ops"] == 2, row
