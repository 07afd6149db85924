"""PARSEC reclamation (kernel 0024-0025) on the debug kernel (lockdep, DEBUG_VM, PROVE_RCU) at
32 vCPUs in one boot: its KUnit suite, the reclamation benchmark under RCU and PARSEC with every
reader checking it never sees a freed node, and the RadixVM stress (content and SIGSEGV
verification) and `local` (mmap, write, munmap in the region) with the region's radix nodes freed
through PARSEC.  Every `reclaim` case waits after its ROI until nothing it retired is still
pending (a leak fails the case); `lazymm` sleeps last, so that the region's nodes are released."""

import json

import pytest

from conftest import vmscale

pytestmark = pytest.mark.qemu
CORES = 32
ITERS = 3000
WARMUP = 1000   # iterations a thread before each reclaim ROI, freed before it starts
KUNIT_CASES = {"parsec_bound_rule", "parsec_holds_for_earlier_reader", "parsec_ignores_later_reader",
               "parsec_nesting", "parsec_no_leak", "parsec_rcu_fallback"}
# In this order: the RCU baseline first (PARSEC unused by then except KUnit), then the region's
# workloads with PARSEC-freed nodes, then the benchmark under PARSEC, which settles its own
# nodes, and 100 ms of sleeps, after which the region's last nodes have been released.
CASES = ["stock/reclaim", "radixvm-parsec/stress", "radixvm-parsec/local", "parsec/reclaim",
         "parsec/lazymm"]


def test_kunit_benchmark_and_radix_stress_on_the_debug_kernel(debug_kernel, tmp_path):
    out = tmp_path / "parsec"
    r = vmscale("run", "--backend", "qemu", "--flavor", "debug", "--cores", CORES,
                "--kernel-arg", "kunit.enable=1", "--kernel-arg", "kunit.filter_glob=parsec",
                "--workload", "reclaim,stress,local,lazymm", "--kernel-variant", "stock,radixvm-parsec,parsec",
                *[a for c in CASES for a in ("--case", c)],
                "--param", f"reclaim.iters={ITERS}", "--param", "reclaim.chunk=1000",
                "--param", f"reclaim.warmup={WARMUP}",
                "--param", "stress.iters=300", "--param", "local.iters=200",
                "--param", "lazymm.iters=100", "--param", "lazymm.sleep_ns=1000000", "--param", "lazymm.quiesce_ms=60000",
                "--out", out, "--timeout", 1800)
    rows = {(row["kernel_variant"], row["workload"]): row
            for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert set(rows) == {tuple(c.split("/")) for c in CASES}, r.stdout[-3000:] + r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kernel_problems"] == []          # no lockdep, DEBUG_VM or RCU report
    assert "Lock dependency validator" in (out / "console.log").read_text()
    kunit = manifest["kunit"]["parsec"]
    assert kunit["ok"] and kunit["cases"] == {c: "pass" for c in KUNIT_CASES}, kunit   # none skipped

    for row in rows.values():
        assert row["ok"] and row["errors"] == 0 and row["booted_cpus"] == CORES, row.get("failure")
    rcu, parsec, stress = rows[("stock", "reclaim")], rows[("parsec", "reclaim")], \
        rows[("radixvm-parsec", "stress")]
    assert (rcu["params"]["smr"], parsec["params"]["smr"]) == ("rcu", "parsec")
    assert stress["sysctls"]["vm/vmscale_reclaim"] == "parsec"
    assert rows[("radixvm-parsec", "local")]["vmstat"]["radix_munmap"] >= CORES * 200
    for row in (rcu, parsec):
        assert row["ops"] == CORES * ITERS            # the warm-up is not counted
        # ... and every node it retired was freed before the ROI: what is pending at the ROI's
        # end was retired in it
        assert 0 <= row["pending_at_roi_end"] <= CORES * ITERS
        # QEMU's vCPU TSCs come from one host clock and the command line has tsc=reliable
        assert row["parsec_totals"]["tsc_usable"] == 1
    # The RCU baseline retires nothing through PARSEC; PARSEC retires every replaced node
    # (all but the first of each CPU's slot) and hands none to RCU.
    assert rcu["vmstat"]["parsec_retired"] == 0
    assert parsec["vmstat"]["parsec_retired"] >= CORES * ITERS - CORES
    assert parsec["vmstat"]["parsec_rcu_fallback"] == 0
    assert parsec["vmstat"]["parsec_reclaimed"] >= CORES * ITERS - CORES
    # The region's nodes were freed through PARSEC, and none before its variant ran; at the end
    # every node allocated was released, and every release but a discarded never-published node
    # was freed through PARSEC (all radix processes of this boot ran under radixvm-parsec).
    assert rcu["radix_totals"]["nodes_parsec"] == 0
    radix = rows[("parsec", "lazymm")]["radix_totals"]
    assert radix["nodes_allocated"] == radix["nodes_freed"], radix
    assert 0 < radix["nodes_parsec"] <= radix["nodes_freed"], radix
    # At rest (the last case settled): nothing queued or pending in RCU, every benchmark node
    # freed or still published, and every retired object accounted for.
    t, b = parsec["parsec_totals"], parsec["parsecbench_totals"]
    assert t["queued"] == 0 and t["rcu_done"] == t["rcu_fallback"], t
    assert t["retired"] == t["reclaimed"] + t["rcu_fallback"], t
    assert b["allocated"] == b["freed"] + b["live"] and b["errors"] == 0, b
    assert b["allocated"] == 2 * CORES * (ITERS + WARMUP)

