"""Piggin's comparison: page-cache lookups locked (vm.vmscale_pagecache=locked, kernel 0023)
and lockless (stock), on the debug kernel (DEBUG_VM, lockdep) at 32 vCPUs in one boot.  The
lookups race removal and refill of the file's pages (thread 0 evicts them), every page read is
verified, and the file stressors of stress-ng (third-party, --verify) run in both modes.  Each
pagecache case also reads /proc/vmscale_physmap (kernel 0035) under lockdep."""

import json

import pytest

from conftest import vmscale
from test_physmap import check_kernel_map
from vmscale import physmap

pytestmark = pytest.mark.qemu
VARIANTS = ["stock", "pagecache-locked"]
# stress-ng stressors whose every operation goes through page-cache lookups
STRESSORS = "readahead:20,sendfile:200,seek:200,hdd:20,msync:50,splice:200"
STRESSORS_NAMES = [s.split(":")[0] for s in STRESSORS.split(",")]
ITERS = 150


def test_locked_and_lockless_lookups_race_eviction_on_the_debug_kernel(debug_kernel, tmp_path):
    # Thread 0 drops the file's pages every 12 reads (12 times), racing 31 threads' lookups and
    # refills. 150 reads a thread, not 300: each read maps and unmaps its page (a TLB shoot-down to
    # 31 vCPUs): the two designs' ROIs were 240 of this test's 464 s beside a gem5 run (81 s alone now).
    out = tmp_path / "pc"
    r = vmscale("run", "--backend", "qemu", "--flavor", "debug", "--cores", 32,
                "--workload", "pagecache,stressng", "--kernel-variant", ",".join(VARIANTS),
                "--param", f"pagecache.iters={ITERS}", "--param", "pagecache.file_pages=64",
                "--param", "pagecache.evict=12", "--param", f"stressng.stressors={STRESSORS}",
                "--param", "pagecache.physmap=1",
                "--out", out, "--timeout", 2400)
    rows = {(row["kernel_variant"], row["workload"]): row
            for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert set(rows) == {(v, w) for v in VARIANTS for w in ("pagecache", "stressng")}, r.stdout[-3000:]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kernel_problems"] == []          # no lockdep, DEBUG_VM or RCU report
    console = (out / "console.log").read_text(errors="replace")
    assert "Lock dependency validator" in console
    # kernel 0035's map, read after each pagecache ROI under lockdep (slab_mutex, then the mmap_lock)
    maps = physmap.from_console(console)
    assert sorted(maps) == [1, 3]
    for case, pm in maps.items():
        check_kernel_map(pm, f"case {case}")

    stock, locked = rows[("stock", "pagecache")], rows[("pagecache-locked", "pagecache")]
    for row in (stock, locked):
        assert row["ok"] and row["errors"] == 0 and row["booted_cpus"] == 32, row.get("failure")
        assert row["ops"] == 32 * ITERS
    assert locked["sysctls"]["vm/vmscale_pagecache"] == "locked"
    assert stock["sysctls"]["vm/vmscale_pagecache"] == "lockless"
    # Lockless mode takes no locked lookup anywhere in the guest; locked mode at least one per
    # pread and one per mapped page's fault-around walk (the first evictions force refills).
    assert stock["vmstat"]["vmscale_pagecache_locked"] == 0
    assert locked["vmstat"]["vmscale_pagecache_locked"] >= 2 * locked["ops"]

    failed = {v: {n for n, rc in rows[(v, "stressng")]["exit_codes"].items() if rc not in (0, 3, 4)}
              for v in VARIANTS}
    assert set(rows[("pagecache-locked", "stressng")]["exit_codes"]) == set(STRESSORS_NAMES)
    assert failed["pagecache-locked"] <= failed["stock"], rows[("pagecache-locked", "stressng")]
    assert rows[("stock", "stressng")]["ops"] >= 4      # most stressors pass, so they ran


def test_threads_reading_through_their_own_fds_read_right_in_both_designs(qemu_ready, tmp_path):
    """pagecache.own_fd=1: each thread preads and maps through its own open of the file (opened in
    set-up), in both lookup designs, racing eviction; every read is still verified.  That no struct
    file is then shared is the gem5 trace's to show (results/gem5-e7-8870-pagecache-own-fd/
    020c-pagecache-*-hotlines: the file's lines are gone from the top); this checks the reads."""
    out = tmp_path / "own"
    r = vmscale("run", "--backend", "qemu", "--cores", 4, "--workload", "pagecache",
                "--kernel-variant", ",".join(VARIANTS), "--param", "pagecache.own_fd=1",
                "--param", "pagecache.iters=200", "--param", "pagecache.file_pages=32",
                "--param", "pagecache.evict=20", "--out", out, "--timeout", 900)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(row["kernel_variant"] for row in rows) == sorted(VARIANTS), r.stdout[-3000:]
    for row in rows:
        assert row["ok"] and row["errors"] == 0, row
        assert row["params"]["own_fd"] == "1" and row["ops"] == 4 * 200, row
