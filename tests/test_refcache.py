"""Refcache under QEMU at 8 vCPUs, one boot per kernel flavour: the KUnit suite at
boot (a failing case fails the run), the counting benchmark with its three counters, and the
lazy-TLB mm user in both modes.  KASAN is the use-after-free check of the weak-reference race."""

import json

import pytest

from conftest import vmscale

pytestmark = pytest.mark.qemu
CORES = 8
VARIANTS = ["stock", "refcache", "percpu-ref"]   # in this order: stock runs before Refcache is used
CASES = ["--kernel-arg", "kunit.enable=1", "--kernel-arg", "kunit.filter_glob=refcache",
         "--workload", "refcount,lazymm", "--kernel-variant", ",".join(VARIANTS),
         "--param", "refcount.iters=20000", "--param", "refcount.chunk=5000",
         # 100 sleeps of 1 ms: at least 100 ms per case, ten epochs, on every kernel
         "--param", "lazymm.iters=100", "--param", "lazymm.sleep_ns=1000000",
         # take the last CPU offline and back during each lazymm case: refcache_cpu_dead() moves
         # its cached deltas and review queue while Refcache-counted mms are in use
         "--param", "lazymm.hotplug=3"]
KUNIT_CASES = {"refcache_exact_count", "refcache_zero_bound", "refcache_dirty_zero",
               "refcache_weakref_race", "refcache_no_leak"}


def _run(flavor, out):
    r = vmscale("run", "--backend", "qemu", "--flavor", flavor, "--cores", CORES, *CASES, "--out", out,
                "--timeout", 1500)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    rows = {(row["kernel_variant"], row["workload"]): row
            for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    manifest = json.loads((out / "manifest.json").read_text())
    return rows, manifest


def _check(rows, manifest):
    kunit = manifest["kunit"]["refcache"]
    assert kunit["ok"] and set(kunit["cases"]) == KUNIT_CASES, kunit
    assert set(kunit["cases"].values()) == {"pass"}
    assert manifest["kernel_problems"] == []
    assert len(rows) == 2 * len(VARIANTS)
    for (variant, workload), row in rows.items():
        assert row["ok"] and row["booted_cpus"] == CORES, row["failure"]
    # The counting benchmark: every thread did its pairs, with the variant's counter.
    for variant, counter in zip(VARIANTS, ["atomic", "refcache", "percpu"]):
        row = rows[(variant, "refcount")]
        assert row["params"]["counter"] == counter
        assert row["ops"] == CORES * 20000 and row["cycles_per_op"] > 0
    # Nothing used Refcache before the refcache variant ran (KUnit's objects were all freed).
    for workload in ("refcount", "lazymm"):
        assert rows[("stock", workload)]["vmstat"]["refcache_queued"] == 0
        assert rows[("stock", workload)]["vmstat"]["refcache_freed"] == 0
    # Refcache-counted mms are freed once their last lazy user left: processes of the refcache
    # variant (refcount, shell children) exit and their mms are released while lazymm sleeps.
    assert rows[("refcache", "lazymm")]["vmstat"]["refcache_freed"] > 0
    assert rows[("refcache", "lazymm")]["vmstat"]["refcache_epoch"] >= 5
    # Nothing leaked: at the end (>= 100 ms after the last Refcache-counted mm's process exited)
    # every object ever queued at zero -- KUnit's and the mms -- was freed or revived.
    totals = rows[("percpu-ref", "lazymm")]["refcache_totals"]
    assert totals["queued"] == totals["freed"] + totals["revived"], totals
    assert totals["freed"] >= 512 + 2, totals   # KUnit's no-leak objects, and mms
    assert all(rows[(v, "lazymm")]["hotplug_cycles"] == 3 for v in VARIANTS)


@pytest.mark.parametrize("flavor", ["normal", "debug"])
def test_kunit_counting_benchmark_and_lazy_mm(qemu_ready, debug_kernel, tmp_path, flavor):
    rows, manifest = _run(flavor, tmp_path / flavor)
    _check(rows, manifest)


@pytest.mark.slow
def test_kunit_and_lazy_mm_under_kasan(kasan_kernel, tmp_path):
    config = (kasan_kernel / ".config").read_text().splitlines()
    assert "CONFIG_KASAN=y" in config and "CONFIG_REFCACHE_KUNIT_TEST=y" in config
    rows, manifest = _run("kasan", tmp_path / "kasan")
    _check(rows, manifest)
    assert "KernelAddressSanitizer initialized" in (tmp_path / "kasan" / "console.log").read_text()
