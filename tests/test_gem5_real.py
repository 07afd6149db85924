"""gem5 itself: these run only with GEM5=/path/to/gem5.opt (a v24 X86 build with MESI_Two_Level)."""

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


def test_core_count_the_build_cannot_do_is_refused_before_gem5_starts(kernel_built, tmp_path):
    r = vmscale("run", "--backend", "gem5", "--cores", 255, "--workload", "local", "--out", tmp_path / "x")
    assert r.returncode == 2 and "tops out at 254" in r.stderr
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
