"""Kernel stall and hang detector timeouts for oversubscribed vCPUs (pure logic).

Under QEMU TCG every vCPU is a host thread, while the guest's clocks follow the host's.
With more vCPUs than host CPUs the guest executes slower than its clocks run, so a kernel
path that takes a second on real hardware can take tens of seconds of guest time, and RCU's
stall warning (21 s), the soft-lockup detector (2 x watchdog_thresh = 20 s) or the hung-task
detector (120 s) fire for the host's shortage, not for a kernel bug.  The QEMU backend
therefore multiplies each timeout by the oversubscription and a headroom for other work on
the host, within the kernel's own limits.  A stall or lockup report still fails the run: it
is only measured against a timeout that the host can meet.
"""

import math
import re

# Kernel defaults (when the .config does not say) and the limits the kernel enforces.
RCU_STALL_DEFAULT = 21        # CONFIG_RCU_CPU_STALL_TIMEOUT
RCU_STALL_MAX = 300           # rcu_jiffies_till_stall_check() clamps to 300 s
WATCHDOG_THRESH_DEFAULT = 10  # kernel/watchdog.c; soft lockup after 2 x this
WATCHDOG_THRESH_MAX = 60      # the kernel.watchdog_thresh sysctl's limit
HUNG_TASK_DEFAULT = 120       # CONFIG_DEFAULT_HUNG_TASK_TIMEOUT
HUNG_TASK_MAX = 3600
# Other work on the host (a build, another test, a competing load) can take as many CPUs as
# the vCPUs do: the timeouts allow for twice the vCPU shortage.
HEADROOM = 2.0


def config_values(config_text: str) -> dict:
    """The detector options of a kernel .config: which exist and their default timeouts."""
    def opt(name):
        m = re.search(rf"^CONFIG_{name}=(\S+)$", config_text, re.M)
        return m.group(1) if m else None
    return {
        "rcu_stall": int(opt("RCU_CPU_STALL_TIMEOUT") or RCU_STALL_DEFAULT),
        "softlockup": opt("SOFTLOCKUP_DETECTOR") == "y",
        "hung_task": opt("DETECT_HUNG_TASK") == "y",
        "hung_task_default": int(opt("DEFAULT_HUNG_TASK_TIMEOUT") or HUNG_TASK_DEFAULT),
    }


def scale_factor(vcpus: int, host_cpus: int, override: float = None) -> float:
    """1 when every vCPU has a host CPU; else oversubscription x HEADROOM (or the override)."""
    if override is not None:
        if not override >= 1:
            raise ValueError(f"watchdog scale {override}: must be at least 1")
        return float(override)
    ratio = vcpus / max(1, host_cpus)
    return 1.0 if ratio <= 1 else ratio * HEADROOM


def plan(vcpus: int, host_cpus: int, config: dict, override: float = None) -> dict:
    """Timeouts for one boot, and the kernel command-line words that set them.

    `config` is config_values() of the kernel booted.  Detectors the kernel lacks get no
    word (an unknown parameter would reach /init's environment).
    """
    scale = scale_factor(vcpus, host_cpus, override)
    out = {"vcpus": vcpus, "host_cpus": host_cpus, "oversubscription": round(vcpus / max(1, host_cpus), 2),
           "scale": round(scale, 2), "rcu_cpu_stall_timeout": None, "watchdog_thresh": None,
           "softlockup_after": None, "hung_task_timeout_secs": None, "cmdline": []}
    if scale == 1:
        out.update(rcu_cpu_stall_timeout=config["rcu_stall"])
        if config["softlockup"]:
            out.update(watchdog_thresh=WATCHDOG_THRESH_DEFAULT, softlockup_after=2 * WATCHDOG_THRESH_DEFAULT)
        if config["hung_task"]:
            out.update(hung_task_timeout_secs=config["hung_task_default"])
        return out
    rcu = min(RCU_STALL_MAX, math.ceil(config["rcu_stall"] * scale))
    out["rcu_cpu_stall_timeout"] = rcu
    out["cmdline"].append(f"rcupdate.rcu_cpu_stall_timeout={rcu}")
    if config["softlockup"]:
        thresh = min(WATCHDOG_THRESH_MAX, math.ceil(WATCHDOG_THRESH_DEFAULT * scale))
        out.update(watchdog_thresh=thresh, softlockup_after=2 * thresh)
        out["cmdline"].append(f"watchdog_thresh={thresh}")
    if config["hung_task"]:
        hung = min(HUNG_TASK_MAX, math.ceil(config["hung_task_default"] * scale))
        out["hung_task_timeout_secs"] = hung
        out["cmdline"].append(f"sysctl.kernel.hung_task_timeout_secs={hung}")
    return out


def detection_bound(p: dict, detector: str) -> int:
    """Seconds after a stall begins by which `detector` ('rcu' or 'lockup') has reported it.

    RCU checks every tick against its timeout.  The soft-lockup detector counts in units of
    2^30 ns (get_timestamp() in kernel/watchdog.c: 7% longer than seconds) and looks only
    when its hrtimer fires, every 2 x watchdog_thresh / 5 seconds.
    """
    if detector == "rcu":
        return p["rcu_cpu_stall_timeout"] + 1
    if detector == "lockup" and p["softlockup_after"]:
        return math.ceil(p["softlockup_after"] * 2**30 / 1e9 + 2 * p["watchdog_thresh"] / 5)
    raise ValueError(f"no {detector!r} detector in this plan")


def summary(p: dict) -> str:
    """One line for the run's output."""
    parts = [f"RCU stall {p['rcu_cpu_stall_timeout']} s"]
    if p["softlockup_after"]:
        parts.append(f"soft lockup {p['softlockup_after']} s")
    if p["hung_task_timeout_secs"]:
        parts.append(f"hung task {p['hung_task_timeout_secs']} s")
    head = f"{p['vcpus']} vCPUs on {p['host_cpus']} host CPUs"
    if p["scale"] == 1:
        return f"{head}: kernel default detector timeouts ({', '.join(parts)})"
    return f"{head} ({p['oversubscription']:g}x): detector timeouts scaled x{p['scale']:g}: {', '.join(parts)}"


PARAMS = ("rcupdate.rcu_cpu_stall_timeout", "watchdog_thresh", "sysctl.kernel.hung_task_timeout_secs")


def overridden(kernel_args) -> bool:
    """Whether the user's own kernel arguments set a detector timeout (theirs then wins)."""
    return any(arg.split("=", 1)[0] in PARAMS for arg in kernel_args)


def mismatches(p: dict, seen: dict) -> list:
    """Timeouts the guest reported (VMSCALE-WATCHDOG) that differ from the plan."""
    bad = []
    for key in ("rcu_cpu_stall_timeout", "watchdog_thresh", "hung_task_timeout_secs"):
        want = p.get(key)
        if want is None or key not in seen:
            continue
        if str(seen[key]) != str(want):
            bad.append(f"{key}={seen[key]} (wanted {want})")
    return bad
