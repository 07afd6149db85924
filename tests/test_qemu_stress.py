"""Correctness first: the fault-path variants under stress on the normal and the debug kernel
(DEBUG_VM, lockdep, atomic-sleep and RCU checks) at 8 and 32 vCPUs, and the kernel selftests.
The runner fails a case on any oops, BUG, WARNING, lockdep or KASAN report in the console."""

import json

import pytest

from conformance import check_selftests, rows_of
from conftest import vmscale

pytestmark = pytest.mark.qemu
VARIANTS = "stock,rwlock,rcu"
ALL_VARIANTS = "stock,rwlock,rcu,radixvm,radixvm-percore,pagecache-locked,radixvm-parsec"


def _check(run_dir, cores, n_cases):
    rows = [json.loads(l) for l in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == n_cases
    for row in rows:
        assert row["ok"], row["failure"]
        assert row["booted_cpus"] == cores and row["errors"] == 0
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["kernel_problems"] == []
    return rows


def test_stress_on_the_debug_kernel_at_8_vcpus(debug_kernel, tmp_path):
    config = (debug_kernel / ".config").read_text().splitlines()
    for opt in ("CONFIG_DEBUG_VM=y", "CONFIG_PROVE_LOCKING=y", "CONFIG_DEBUG_ATOMIC_SLEEP=y"):
        assert opt in config
    r = vmscale("run", "--backend", "qemu", "--flavor", "debug", "--cores", 8, "--workload", "stress,fault,local",
                "--kernel-variant", VARIANTS, "--param", "stress.iters=1500", "--param", "fault.iters=2",
                "--param", "fault.pages=16", "--param", "local.iters=20", "--out", tmp_path / "dbg")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    rows = _check(tmp_path / "dbg", 8, 9)
    rcu = next(r for r in rows if r["kernel_variant"] == "rcu" and r["workload"] == "stress")
    assert rcu["vmstat"]["vmscale_rcu_fault"] > 0
    assert "Lock dependency validator" in (tmp_path / "dbg" / "console.log").read_text()  # lockdep was on


@pytest.mark.parametrize("flavor", ["normal", "debug"])
def test_stress_at_32_vcpus(qemu_ready, debug_kernel, tmp_path, flavor):
    r = vmscale("run", "--backend", "qemu", "--flavor", flavor, "--cores", 32, "--workload", "stress",
                "--kernel-variant", VARIANTS, "--param", "stress.iters=250", "--out", tmp_path / "s32")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    _check(tmp_path / "s32", 32, 3)


def test_kernel_selftests_in_every_design_fail_only_as_listed(qemu_ready, tmp_path):
    """The kernel's mm selftests that build here (all but the long ones) under every
    design in one boot: a test passes or skips, or fails with the status selftests.expect
    gives it for every design (the guest's configuration: stock fails it too) or for the
    RadixVM region (a feature refused there).  Every listed failure is seen as listed, so
    the list neither hides a new failure nor keeps one that is gone."""
    from vmscale import kernel
    tests = [t for t in kernel.SELFTESTS if t not in kernel.SELFTESTS_LONG]
    r = vmscale("run", "--backend", "qemu", "--cores", 8, "--workload", "selftests",
                "--kernel-variant", ALL_VARIANTS, "--param", f"selftests.tests={','.join(tests)}",
                "--param", "selftests.limit=180", "--out", tmp_path / "st", "--timeout", 1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    _check(tmp_path / "st", 8, len(ALL_VARIANTS.split(",")))
    check_selftests(rows_of(tmp_path / "st", "selftests"), tests)
