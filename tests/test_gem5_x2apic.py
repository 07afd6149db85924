"""x2APIC mode on gem5 (issue 24): only with GEM5 set to a gem5 built with vmscale's patches
(`vmscale build gem5 --gem5-source DIR`); the shared stock build skips them, saying so."""

import json
import os
from pathlib import Path

import pytest

from conftest import vmscale

GEM5 = os.environ.get("GEM5")
pytestmark = [pytest.mark.gem5,
              pytest.mark.skipif(not GEM5, reason="GEM5 is not set: export GEM5=/path/to/build/X86/gem5.opt")]


@pytest.fixture(scope="module")
def x2apic_gem5():
    from vmscale_gem5 import buildinfo
    if not buildinfo.x2apic(buildinfo.query(GEM5)):
        pytest.skip(f"GEM5={GEM5} has no x2APIC patches: `vmscale build gem5 --gem5-source DIR` builds one")
    return GEM5


def _boot_console(manifest: dict) -> str:
    return (Path(manifest["checkpoint"]) / "boot-m5out" / "board.pc.com_1.device").read_text(errors="replace")


@pytest.mark.parametrize("cores", [4, 8])
def test_x2apic_mode_brings_every_cpu_up_and_delivers_ipis_and_shootdowns(kernel_built, x2apic_gem5, tmp_path,
                                                                          cores):
    """The board asks for x2APIC (`x2apic=on` below 255 cores): gem5 hands the boot CPU over in
    x2APIC mode, the kernel (0043, told by x2apic_ext_dest_id) keeps it in physical destination
    mode, all CPUs come up through 64-bit ICR writes (INIT/SIPI), and over the run every CPU
    takes timer ticks, function-call IPIs and TLB shootdowns, sent by MSR with 32-bit
    destinations (rescheduling IPIs too, where the scheduler sends them).  tlbstale
    checks that no stale translation survives a munmap (the shootdowns really arrive), under
    stock Linux and under RadixVM's targeted shootdowns."""
    r = vmscale("run", "--backend", "gem5", "--cores", cores, "--gem5", "x2apic=on",
                "--workload", "tlbstale", "--kernel-variant", "stock,radixvm-percore",
                "--param", "tlbstale.iters=200", "--out", tmp_path / "g", timeout=4 * 3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    rows = [json.loads(line) for line in (tmp_path / "g" / "results.jsonl").read_text().splitlines()]
    assert {row["kernel_variant"] for row in rows} == {"stock", "radixvm-percore"}
    assert all(row["ok"] and row["booted_cpus"] == cores for row in rows)
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    boot = _boot_console(manifest)
    assert "x2apic: 15-bit destination IDs (x2apic_ext_dest_id)" in boot
    # handed over in x2APIC mode by gem5 (as firmware does), kept on by x2apic_ext_dest_id
    assert "x2apic: enabled by BIOS, switching to x2apic ops" in boot
    assert "Switched APIC routing to: physical x2apic" in boot and "IRQ remapping doesn't support" not in boot
    assert f"Brought up 1 node, {cores} CPUs" in boot
    irq = manifest["interrupts"]
    for row in ("LOC", "CAL", "TLB"):       # timer ticks; function-call and shootdown IPIs
        assert irq[row]["cpus"] == cores, (row, irq)
    assert irq["RES"]["total"] > 0, irq     # rescheduling IPIs go where the scheduler sends them


def test_xapic_stays_the_default_below_255_cores(kernel_built, x2apic_gem5, tmp_path):
    """On the patched build an ordinary run is the xAPIC run it was: the kernel is not told
    (no x2apic_ext_dest_id) and declines x2APIC mode without interrupt remapping."""
    r = vmscale("run", "--backend", "gem5", "--cores", 2, "--workload", "local", "--param", "iters=5",
                "--out", tmp_path / "g", timeout=3 * 3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    boot = _boot_console(json.loads((tmp_path / "g" / "manifest.json").read_text()))
    assert "x2apic_ext_dest_id" not in boot and "x2apic" not in boot.lower()
    assert "Brought up 1 node, 2 CPUs" in boot
