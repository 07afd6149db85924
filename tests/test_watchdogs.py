"""Kernel stall detectors under oversubscribed vCPUs: the timeouts scale with the vCPUs per
host CPU, the guest takes them, and a real stall past them still fails the run."""

import json
import re

import pytest

from conftest import busy_loops, vmscale
from vmscale import console, watchdogs
from vmscale.backends import qemu

DEBUG_CONFIG = {"rcu_stall": 21, "softlockup": True, "hung_task": True, "hung_task_default": 120}


def test_no_oversubscription_keeps_the_kernel_defaults():
    p = watchdogs.plan(2, 2, DEBUG_CONFIG)
    assert p["scale"] == 1 and p["cmdline"] == []
    assert (p["rcu_cpu_stall_timeout"], p["watchdog_thresh"], p["softlockup_after"],
            p["hung_task_timeout_secs"]) == (21, 10, 20, 120)


def test_timeouts_scale_with_vcpus_per_host_cpu():
    # 4 vCPUs on 2 CPUs: 2x oversubscribed, x2 headroom -> x4: 21*4, 10*4, 120*4
    p = watchdogs.plan(4, 2, DEBUG_CONFIG)
    assert p["oversubscription"] == 2 and p["scale"] == 4
    assert p["cmdline"] == ["rcupdate.rcu_cpu_stall_timeout=84", "watchdog_thresh=40",
                            "sysctl.kernel.hung_task_timeout_secs=480"]
    assert p["softlockup_after"] == 80
    # RCU: 84 s and a tick; soft lockup: 80 units of 2^30 ns = 85.9 s, plus one 16 s sample period
    assert watchdogs.detection_bound(p, "rcu") == 85 and watchdogs.detection_bound(p, "lockup") == 102
    with pytest.raises(ValueError):
        watchdogs.detection_bound(watchdogs.plan(4, 2, dict(DEBUG_CONFIG, softlockup=False)), "lockup")
    # 3 on 2: x3, rounded up
    p = watchdogs.plan(3, 2, DEBUG_CONFIG)
    assert (p["rcu_cpu_stall_timeout"], p["watchdog_thresh"], p["hung_task_timeout_secs"]) == (63, 30, 360)


def test_the_kernels_limits_cap_the_timeouts():
    # 32 on 2: x32 would be 672 s, 320 s, 3840 s; the kernel clamps RCU at 300 and the
    # watchdog_thresh sysctl at 60
    p = watchdogs.plan(32, 2, DEBUG_CONFIG)
    assert (p["rcu_cpu_stall_timeout"], p["watchdog_thresh"], p["softlockup_after"],
            p["hung_task_timeout_secs"]) == (300, 60, 120, 3600)


def test_detectors_the_kernel_lacks_get_no_parameter():
    normal = {"rcu_stall": 21, "softlockup": False, "hung_task": False, "hung_task_default": 120}
    p = watchdogs.plan(8, 2, normal)
    assert p["cmdline"] == ["rcupdate.rcu_cpu_stall_timeout=168"]
    assert p["watchdog_thresh"] is None and p["hung_task_timeout_secs"] is None


def test_override_and_its_bad_values():
    assert watchdogs.plan(2, 2, DEBUG_CONFIG, override=5)["rcu_cpu_stall_timeout"] == 105
    with pytest.raises(ValueError):
        watchdogs.plan(2, 2, DEBUG_CONFIG, override=0.5)


def test_config_values_from_a_config_text():
    text = "CONFIG_RCU_CPU_STALL_TIMEOUT=30\nCONFIG_SOFTLOCKUP_DETECTOR=y\n# CONFIG_DETECT_HUNG_TASK is not set\n"
    assert watchdogs.config_values(text) == {"rcu_stall": 30, "softlockup": True, "hung_task": False,
                                             "hung_task_default": 120}


def test_guest_report_is_parsed_and_compared():
    text = "VMSCALE-WATCHDOG rcu_cpu_stall_timeout=84 watchdog_thresh=40 hung_task_timeout_secs=-\n"
    seen = console.parse(text).watchdogs
    assert seen == {"rcu_cpu_stall_timeout": "84", "watchdog_thresh": "40"}
    p = watchdogs.plan(4, 2, DEBUG_CONFIG)
    assert watchdogs.mismatches(p, seen) == []
    assert watchdogs.mismatches(p, dict(seen, watchdog_thresh="10")) == ["watchdog_thresh=10 (wanted 40)"]


def test_a_users_own_timeout_wins_and_is_not_checked():
    assert watchdogs.overridden(["watchdog_thresh=5"]) and watchdogs.overridden(["rcupdate.rcu_cpu_stall_timeout=9"])
    assert not watchdogs.overridden(["loglevel=1", "slab_nomerge"])


def test_hung_task_reports_are_kernel_problems():
    line = "[  500.1] INFO: task kworker/0:1:12 blocked for more than 480 seconds."
    assert console.kernel_problems(line) == ["hung task"]


def test_bad_watchdog_scale_is_refused_before_booting(tmp_path):
    r = vmscale("run", "--backend", "native", "--cores", 1, "--workload", "local", "--watchdog-scale", 2,
                "--out", tmp_path / "x")
    assert r.returncode == 2 and "--watchdog-scale applies to qemu runs only, not native" in r.stderr
    r = vmscale("run", "--backend", "qemu", "--cores", 1, "--workload", "local", "--watchdog-scale", 0.5,
                "--out", tmp_path / "y")
    assert r.returncode == 2 and "at least 1" in r.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


@pytest.mark.qemu
@pytest.mark.parametrize("detector", ["rcu", "lockup"])
def test_a_real_stall_past_the_scaled_timeout_fails_the_run(debug_kernel, tmp_path, detector):
    """Oversubscribed by one vCPU, a CPU held in the kernel longer than a scaled timeout is
    reported by that detector, no earlier than the scaled timeout, and the run fails although
    the workload itself succeeded.  RCU's report touches the soft-lockup watchdog, so the
    soft-lockup detector is tested in its own run with RCU's warnings silenced."""
    cores = qemu.host_cpus() + 1
    plan = qemu.watchdog_plan(cores, debug_kernel / ".config")
    assert plan["scale"] > 1 and plan["softlockup_after"], plan
    timeout = plan["rcu_cpu_stall_timeout"] if detector == "rcu" else plan["softlockup_after"]
    hold = watchdogs.detection_bound(plan, detector) + 10
    # Every console line the serial driver writes touches the soft-lockup watchdog of the CPU
    # writing it (touch_nmi_watchdog() in serial8250_console_write), e.g. a one-off "hrtimer:
    # interrupt took" warning on a loaded host: the lockup run lets only emergencies through,
    # which the lockup report is.
    quiet = ["--kernel-arg", "loglevel=1"] if detector == "lockup" else []
    r = vmscale("run", "--backend", "qemu", "--flavor", "debug", "--cores", cores, "--workload", "stall",
                "--param", f"ms={hold * 1000}", "--param", f"detector={detector}", *quiet,
                "--out", tmp_path / "stall")
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr
    manifest = json.loads((tmp_path / "stall" / "manifest.json").read_text())
    assert manifest["watchdogs"] == plan
    assert manifest["watchdogs_seen"] == {"rcu_cpu_stall_timeout": str(plan["rcu_cpu_stall_timeout"]),
                                          "watchdog_thresh": str(plan["watchdog_thresh"]),
                                          "hung_task_timeout_secs": str(plan["hung_task_timeout_secs"])}
    row = json.loads((tmp_path / "stall" / "results.jsonl").read_text())
    # the workload held the CPU and finished (ops=1, no errors): the kernel's report fails it
    assert row["ops"] == 1 and row["errors"] == 0 and row["ms"] == hold * 1000
    log = (tmp_path / "stall" / "console.log").read_text()
    if detector == "rcu":
        assert not row["ok"] and "RCU stall" in row["failure"], row["failure"]
        # RCU reports the stall's age in jiffies (HZ=250): "(t=N jiffies" when the stalled CPU saw it
        # itself, "(detected by C, t=N jiffies" when another did first (which one is the host's timing)
        ages = [int(j) / 250 for j in re.findall(r"[(,] ?t=(\d+) jiffies", log)]
        assert ages and min(ages) >= timeout, (ages, plan)
    else:
        assert not row["ok"] and "lockup" in row["failure"] and "RCU stall" not in row["failure"], row["failure"]
        stuck = [int(s) for s in re.findall(r"soft lockup - CPU#\d+ stuck for (\d+)s", log)]
        assert stuck and min(stuck) >= timeout, (stuck, plan)
    assert "kernel detectors:" in r.stdout and f"x{plan['scale']:g}" in r.stdout


@pytest.mark.qemu
def test_oversubscribed_debug_run_under_competing_load_passes(debug_kernel, tmp_path):
    """4x oversubscribed plus a busy loop per host CPU: the detectors stay quiet, the guest
    took the scaled timeouts, and the manifest records them."""
    cores = 4 * qemu.host_cpus()
    with busy_loops(qemu.host_cpus()):
        r = vmscale("run", "--backend", "qemu", "--flavor", "debug", "--cores", cores, "--workload", "stress,local",
                    "--kernel-variant", "stock,rcu", "--param", "stress.iters=400", "--param", "local.iters=20",
                    "--out", tmp_path / "loaded")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    manifest = json.loads((tmp_path / "loaded" / "manifest.json").read_text())
    wd = manifest["watchdogs"]
    assert wd["vcpus"] == cores and wd["oversubscription"] == 4 and wd["scale"] == 8
    assert wd["cmdline"] and all(word in manifest["cmdline"].split() for word in wd["cmdline"])
    assert manifest["watchdogs_seen"] == {"rcu_cpu_stall_timeout": str(wd["rcu_cpu_stall_timeout"]),
                                          "watchdog_thresh": str(wd["watchdog_thresh"]),
                                          "hung_task_timeout_secs": str(wd["hung_task_timeout_secs"])}
    assert manifest["kernel_problems"] == []
    assert "kernel detectors:" in r.stdout
