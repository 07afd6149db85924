"""gem5 itself: these run only with GEM5=/path/to/gem5.opt (a v24 X86 build with MESI_Two_Level)."""

import json
import os

import pytest

from conftest import vmscale

GEM5 = os.environ.get("GEM5")
pytestmark = [pytest.mark.gem5,
              pytest.mark.skipif(not GEM5, reason="GEM5 is not set: export GEM5=/path/to/build/X86/gem5.opt")]


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
