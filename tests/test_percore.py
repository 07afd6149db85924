"""Per-core page tables and targeted TLB shootdown for the RadixVM region under
QEMU: the stale-TLB stress (threads migrating between CPUs touch pages that another CPU
unmaps and remaps with new contents, next to helper processes that switch address spaces)
at 8 and 32 vCPUs on the normal and debug kernels, and the RadixVM microbenchmarks with
shared and per-core page tables in one boot, with the shootdown counters in their rows."""

import json

import pytest

from conftest import vmscale

pytestmark = pytest.mark.qemu
PARAMS = ["tlbstale.iters=3000", "stress.iters=2000", "local.iters=300", "pipeline.iters=200",
          "global.iters=4", "lazymm.iters=100", "lazymm.sleep_ns=1000000", "lazymm.quiesce_ms=60000",
          "selftests.tests=map_fixed_noreplace", "forkcopy.iters=10", "forkcopy.pages=8"]
# Each kind of object the region allocates, and the counter of its frees (per-core: the
# top-level copies too).
FREED = {"pages_mapped": "pages_unmapped", "nodes_allocated": "nodes_freed",
         "regions": "regions_freed", "pgds_allocated": "pgds_freed"}


def _run(flavor, cores, out, variants, workloads, params=PARAMS):
    args = ["run", "--backend", "qemu", "--flavor", flavor, "--cores", cores,
            "--workload", ",".join(workloads), "--kernel-variant", ",".join(variants),
            "--out", out, "--timeout", 2400]
    for p in params:
        if p.split(".")[0] in workloads:
            args += ["--param", p]
    r = vmscale(*args)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    rows = {(row["kernel_variant"], row["workload"]): row
            for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert json.loads((out / "manifest.json").read_text())["kernel_problems"] == []
    for key, row in rows.items():
        assert row["ok"] and row["errors"] == 0 and row["booted_cpus"] == cores, (key, row["failure"])
    return rows


def _check_stale(rows, cores):
    """The stale-TLB stress verified touches against remaps, on per-core tables."""
    row = rows[("radixvm-percore", "tlbstale")]
    vm = row["vmstat"]
    # most touches get a verdict (the rest raced a remap of their slot)
    assert row["ops"] >= (cores - 1) * int(row["params"]["iters"]) // 3 and row["remaps"] > 0, row
    # the touchers ran on per-core tables: copies were made, and remote CPUs were shot down
    # (the mapper unmaps pages the touchers faulted in on other CPUs)
    assert vm["radix_pgds_allocated"] >= 2 and vm["radix_shootdowns"] > 0, vm


def _check_no_leak(rows, last):
    totals = rows[last]["radix_totals"]
    for made, freed in FREED.items():
        assert totals[made] == totals[freed], (made, totals)
    assert totals["pgds_allocated"] > 0


def test_percore_8_vcpus(qemu_ready, tmp_path):
    variants = ["radixvm-percore", "radixvm", "stock"]
    rows = _run("normal", 8, tmp_path / "n8", variants,
                ["tlbstale", "stress", "local", "pipeline", "global", "selftests", "forkcopy",
                 "lazymm"])
    _check_stale(rows, 8)
    # fork copies the region; the children map the copies into their own per-core tables
    fork = rows[("radixvm-percore", "forkcopy")]["vmstat"]
    assert fork["radix_forks"] >= 8 * 10 and fork["radix_fork_pages_copied"] >= 8 * 10 * 8, fork
    assert fork["radix_pgds_allocated"] >= 8 * 10, fork
    # the kernel's MAP_FIXED_NOREPLACE selftest passes on the region with per-core tables
    assert rows[("radixvm-percore", "selftests")]["exit_codes"] == {"map_fixed_noreplace": 0}
    for v in variants:
        assert rows[(v, "tlbstale")]["ops"] > 0
    # local: thread-private memory.  Per-core tables: every munmap flushed only its own CPU,
    # no IPI.  Shared tables: the munmaps interrupted the other CPUs running the process.
    pc, sh = rows[("radixvm-percore", "local")]["vmstat"], rows[("radixvm", "local")]["vmstat"]
    assert pc["radix_munmap"] >= 8 * 300 and pc["radix_shootdowns"] == 0, pc
    assert pc["radix_local_flushes"] >= 8 * 300, pc
    # and the whole run sent no shoot-down at all: the harness's threads wait, alive, for the
    # process's exit (its row says so), so no thread's exit gives back its stack with one
    assert rows[("radixvm-percore", "local")]["threads_end"] == "parked"
    assert pc["nr_tlb_remote_flush"] == 0, pc
    assert sh["radix_shootdowns"] >= sh["radix_munmap"] >= 8 * 300, sh
    assert sh["radix_shootdown_targets"] >= sh["radix_shootdowns"] and sh["radix_shootdown_cycles"] > 0
    # pipeline and global share pages between CPUs: per-core tables shoot down the CPUs
    # that touched them, and only those
    for w in ("pipeline", "global"):
        vm = rows[("radixvm-percore", w)]["vmstat"]
        assert vm["radix_shootdowns"] > 0 and vm["radix_shootdown_cycles"] > 0, (w, vm)
        assert vm["radix_shootdown_targets"] <= vm["radix_shootdowns"] * 7, (w, vm)
    for w in ("tlbstale", "stress", "local", "pipeline", "global"):
        assert rows[("stock", w)]["vmstat"]["radix_pgds_allocated"] == 0
    _check_no_leak(rows, ("stock", "lazymm"))


def test_percore_debug_8_vcpus(qemu_ready, debug_kernel, tmp_path):
    # 2 MiB slots: each remap's munmap covers whole per-core PTE pages, which it frees
    params = PARAMS + ["tlbstale.iters=1000", "tlbstale.slots=4", "tlbstale.slot_pages=512"]
    rows = _run("debug", 8, tmp_path / "d8", ["radixvm-percore", "stock"],
                ["tlbstale", "stress", "local", "lazymm"], params)
    _check_stale(rows, 8)
    assert rows[("radixvm-percore", "tlbstale")]["vmstat"]["radix_pte_pages_freed"] > 0
    assert rows[("radixvm-percore", "local")]["vmstat"]["radix_shootdowns"] == 0
    _check_no_leak(rows, ("stock", "lazymm"))


@pytest.mark.parametrize("flavor", ["normal", "debug"])
def test_percore_32_vcpus(qemu_ready, debug_kernel, tmp_path, flavor):
    rows = _run(flavor, 32, tmp_path / f"{flavor}32", ["radixvm-percore", "stock"],
                ["tlbstale", "lazymm"])
    _check_stale(rows, 32)
    _check_no_leak(rows, ("stock", "lazymm"))
