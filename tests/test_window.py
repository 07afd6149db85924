"""The window throughput (harness.c): the ops all threads completed while all of them ran, per
cycle.  Measured for real: threads made to finish unevenly by a busy loop on one CPU."""

import json
import os
import subprocess

import pytest

from vmscale import rows


def _result(binary, *args, env=None):
    r = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("VMSCALE-RESULT "))
    return json.loads(line[len("VMSCALE-RESULT "):])


def test_one_thread_the_window_is_the_whole_run(workloads_built):
    res = _result(workloads_built / "local", "threads=1", "iters=300")
    assert res["window_ops"] == res["ops"] == 300
    assert 0 < res["window_cycles"] <= res["cycles"]
    assert res["window_ops_per_cycle"] == pytest.approx(res["window_ops"] / res["window_cycles"], rel=1e-5)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two host CPUs")
def test_threads_that_finish_unevenly_count_only_while_all_ran(workloads_built):
    # a busy loop shares CPU 1 with thread 1: thread 0 finishes first, thread 1 still has work
    hog = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
    try:
        res = _result(workloads_built / "local", "threads=2", "pin=1", "iters=3000")
    finally:
        hog.kill()
    cycles = res["thread_cycles"]
    assert res["ops"] == 6000 and max(cycles) > 1.2 * min(cycles), cycles     # uneven, as arranged
    # the window closed when the first thread finished: the slower one had not done all its ops
    assert 0 < res["window_ops"] < res["ops"] and res["window_cycles"] <= max(cycles)
    row = rows.make_row(run_id="t", backend="native", variant="stock", workload="local", cores=2,
                        result=res, failure=None)
    # the per-thread mean stays, under its clear name, beside the window's cost per op per thread
    assert row["thread_mean_cycles_per_op"] == res["cycles_per_op"]
    assert row["window_cycles_per_op"] == pytest.approx(2 / res["window_ops_per_cycle"], rel=1e-3)
    assert row["window_cycles_per_op"] != pytest.approx(row["thread_mean_cycles_per_op"], rel=0.01)
