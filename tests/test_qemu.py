"""Boot the vmscale kernel and image under QEMU and run every workload in every variant.

One boot per core count runs all cases; variants switch in the guest (vm.vmscale_fault).
"""

import json
import shutil
import struct

import pytest

from conftest import REPO, vmscale
from vmscale import paths, workloads

pytestmark = pytest.mark.qemu
SMALL = ["iters=10", "global.iters=2", "fault.iters=2", "fault.pages=16", "pagecache.iters=20", "stress.iters=400"]
VARIANTS = ["stock", "rwlock", "rcu"]
# The checks (test_qemu_stress.py, test_watchdogs.py) and the applications (test_apps.py) have boots of their own.
WORKLOADS = [w for w in workloads.NAMES if w not in workloads.CHECKS and w not in workloads.APPLICATIONS]


def _rows(run_dir):
    return [json.loads(l) for l in (run_dir / "results.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def boots(qemu_ready, tmp_path_factory):
    """One boot each at 4 and 16 vCPUs, all workloads x all fault-path variants."""
    out = {}
    for cores in (4, 16):
        run_dir = tmp_path_factory.mktemp("qemu") / f"{cores}c"
        args = ["run", "--backend", "qemu", "--cores", cores, "--workload", ",".join(WORKLOADS),
                "--kernel-variant", ",".join(VARIANTS), "--out", run_dir]
        for p in SMALL:
            args += ["--param", p]
        r = vmscale(*args)
        out[cores] = (r, run_dir)
    return out


@pytest.mark.parametrize("cores", [4, 16])
def test_every_workload_in_every_variant(boots, cores):
    r, run_dir = boots[cores]
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    rows = _rows(run_dir)
    assert len(rows) == len(VARIANTS) * len(WORKLOADS)
    for row in rows:
        assert row["ok"] and row["errors"] == 0, row
        assert row["booted_cpus"] == cores and row["threads"] == cores
        assert row["sysctls"]["vm/vmscale_fault"] == row["kernel_variant"]
        assert row["ops"] > 0
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["kernel"]["patches"]
    assert manifest["kernel_problems"] == []


def test_a_roi_takes_the_page_faults_of_its_workload_only(boots):
    """The harness faults each thread's stack in before the ROI: a workload that maps nothing in
    its ROI (refcount: get/put through a proc file) takes no page fault between the ROI's barriers
    (its first printf did, once per thread: 81 faults at 40 cores, a zone-lock wait after a gem5
    restore), while `fault` takes at least one per page it touches."""
    rows = {(r["kernel_variant"], r["workload"]): r for r in _rows(boots[16][1])}
    for v in VARIANTS:
        assert rows[(v, "refcount")]["roi_minflt"] == 0, rows[(v, "refcount")]
        f = rows[(v, "fault")]
        assert f["roi_minflt"] >= f["ops"] and f["minflt"] >= f["roi_minflt"], f


def test_rwlock_faults_never_take_the_vma_lock(boots):
    """The kernel patch at work: in rwlock mode no fault succeeds under a per-VMA lock."""
    rows = _rows(boots[4][1])
    for row in rows:
        if row["kernel_variant"] == "rwlock":
            # /proc/vmstat is the machine's: the script's shell, a process of the boot's first
            # (stock) mode, may take copy-on-write faults after forking the case's pipeline while
            # the workload runs.  So the faults that took a per-VMA lock must be fewer than the
            # faults of other processes (all faults minus the workload's own minflt); an rwlock
            # process that used the VMA lock would break this by its own count.
            vm = row["vmstat"]
            others = vm["pgfault"] - row.get("minflt", vm["pgfault"])
            assert vm["vma_lock_success"] <= others, (row["workload"], vm["vma_lock_success"], others)
            # not vacuous: the workloads that fault in their ROI counted those faults (the
            # counters are read after the threads start, so others may count none)
            if row["workload"] in ("fault", "local"):
                assert vm["pgfault"] >= row["ops"] > 0, row
    stock_fault = next(r for r in rows if r["kernel_variant"] == "stock" and r["workload"] == "fault")
    assert stock_fault["vmstat"]["vma_lock_success"] >= stock_fault["ops"] // 2


def test_rcu_faults_complete_without_the_vma_lock(boots):
    """Bonsai mode: most faults of `fault` take the RCU path; races and other cases fall back."""
    for cores in (4, 16):
        rows = {(r["kernel_variant"], r["workload"]): r for r in _rows(boots[cores][1])}
        fault = rows[("rcu", "fault")]["vmstat"]
        assert fault["vmscale_rcu_fault"] >= rows[("rcu", "fault")]["ops"] // 2, fault
        assert fault["vma_lock_success"] < fault["vmscale_rcu_fault"]
        stress = rows[("rcu", "stress")]["vmstat"]
        assert stress["vmscale_rcu_fault"] > 0 and stress["vmscale_rcu_fallback_novma"] > 0  # SIGSEGVs
        for variant in ("stock", "rwlock"):
            assert rows[(variant, "fault")]["vmstat"]["vmscale_rcu_fault"] == 0


def test_vmlinux_is_what_gem5_loads(boots, qemu_ready):
    """gem5 loads the uncompressed 64-bit ELF vmlinux and reads the console on ttyS0."""
    head = (qemu_ready / "vmlinux").read_bytes()[:20]
    assert head[:4] == b"\x7fELF" and head[4] == 2  # ELFCLASS64
    assert struct.unpack("<H", head[18:20])[0] == 62  # EM_X86_64
    config = (qemu_ready / ".config").read_text()
    for opt in ("CONFIG_X86_MPPARSE=y", "CONFIG_SERIAL_8250_CONSOLE=y", "CONFIG_ATA_PIIX=y", "CONFIG_DEVMEM=y",
                "CONFIG_CPU_SUP_HYGON=y", "CONFIG_NR_CPUS=256", "CONFIG_VMSCALE=y"):
        assert opt in config.splitlines(), opt
    console = (boots[4][1] / "console.log").read_text()
    assert "console [ttyS0] enabled" in console


def test_injected_corruption_is_caught_in_the_guest(qemu_ready, tmp_path):
    r = vmscale("run", "--backend", "qemu", "--cores", 2, "--workload", "local,fault", "--param", "inject=1",
                "--param", "iters=5", "--param", "fault.pages=8", "--out", tmp_path / "inj")
    assert r.returncode == 1, r.stdout + r.stderr
    rows = _rows(tmp_path / "inj")
    assert all(not row["ok"] and "verification failed" in row["failure"] for row in rows)
    assert "CORRUPT word 7" in (tmp_path / "inj" / "console.log").read_text()


def test_hung_guest_times_out_and_leaves_no_complete_run(qemu_ready, tmp_path):
    r = vmscale("run", "--backend", "qemu", "--cores", 2, "--workload", "local", "--timeout", 1,
                "--out", tmp_path / "hung")
    assert r.returncode == 2
    assert "timed out after 1 s" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "hung").exists()
    assert (tmp_path / "hung.failed" / "console.log").exists()
    assert (tmp_path / "hung.failed" / "error.txt").read_text().startswith("QEMU run at 2 vCPUs failed")


def test_kernel_that_does_not_boot_is_reported(qemu_ready, tmp_path):
    """A truncated bzImage, set up as a build tree of its own."""
    build = tmp_path / "build"
    kdir = build / "kernel" / "normal"
    kdir.mkdir(parents=True)
    shutil.copy(qemu_ready / ".config", kdir / ".config")
    # a manifest names the kernel files beside it, as a build writes them
    broken = kdir / "arch/x86/boot/bzImage"
    broken.parent.mkdir(parents=True)
    broken.write_bytes((qemu_ready / "arch/x86/boot/bzImage").read_bytes()[:200_000])
    shutil.copy(qemu_ready / "manifest.json", kdir / "manifest.json")
    (build / "image").mkdir()
    for f in ("vmscale.img", "vmscale.json"):
        (build / "image" / f).symlink_to(paths.build_dir() / "image" / f)
    (build / "workloads").symlink_to(paths.build_dir() / "workloads")
    r = vmscale("run", "--backend", "qemu", "--cores", 1, "--workload", "local", "--timeout", 60,
                "--out", tmp_path / "bad", env={"VMSCALE_BUILD": str(build)})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "QEMU run at 1 vCPUs failed" in r.stderr
    assert not (tmp_path / "bad").exists()


def test_core_count_above_the_limit_fails_before_booting(qemu_ready, tmp_path):
    r = vmscale("run", "--backend", "qemu", "--cores", 300, "--workload", "local", "--out", tmp_path / "x")
    assert r.returncode == 2 and "above what QEMU and this kernel support (255)" in r.stderr
    assert not any(tmp_path.iterdir())
