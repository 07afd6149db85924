"""Arguments of sim-configs/vmscale_fs.py, parsed and validated without gem5."""

import argparse
import sys
from pathlib import Path

from vmscale_gem5 import board as board_mod
from vmscale_gem5 import limits, topology

# No tsc=reliable: gem5's per-CPU TSCs are not synchronised, and trusting them as the
# clocksource stalled an 8-core boot after "clocksource: tsc" (Linux otherwise marks the TSC
# unstable and keeps jiffies, and boots).
KERNEL_ARGS = ["earlyprintk=ttyS0", "console=ttyS0", "lpj=7999923", "root=/dev/sda", "rw",
               "rootfstype=ext2", "init=/init", "nokaslr", "mitigations=off", "panic=-1",
               # gem5's KVM CPU leaves the BSP bit out of APICBASE; kernel-patches/0006 lets
               # Linux trust the MADT order instead of booting one CPU (no effect otherwise).
               "trust_bsp_enumeration",
               # CPU bring-up cost O(cores^2) simulated instructions (README, "Profiling a boot"):
               # gem5's CPUID ("Hygon", family 0xF) gets the legacy 10 ms INIT delay per CPU,
               # while every CPU already kicked spins in cpuhp_ap_sync_alive.  No INIT delay
               # (what the kernel uses on modern CPUs) and one-at-a-time bring-up leave the
               # CPUs halted instead; the booted system is the same.
               "cpu_init_udelay=0", "cpuhp.parallel=0",
               # PARSEC (kernel 0024) compares TSCs across CPUs.  gem5's are synchronised by
               # construction: a CPU's TSC is a per-CPU offset (0 unless the guest writes the
               # MSR, and carried over at a CPU switch) plus its cycle count, and every CPU of
               # the board is in one clock domain (src/arch/x86/isa.cc, readMiscReg).  Linux
               # cannot know that ("HygonGenuine" without the constant-TSC bit), so say it;
               # this affects PARSEC only, not the clocksource.
               "parsec.tsc=trust"]
DEFAULT_CLOCK = board_mod.DEFAULTS["clock"]
UNITS = {"THz": 1e12, "GHz": 1e9, "MHz": 1e6, "kHz": 1e3, "Hz": 1.0}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vmscale_fs.py", description="vmscale on gem5 v24 X86 full system")
    p.add_argument("--kernel", required=True, help="vmlinux (ELF) from `vmscale build kernel`")
    p.add_argument("--disk", required=True, help="the vmscale guest image")
    p.add_argument("--script", help="run script the guest reads with m5 readfile")
    p.add_argument("--cores", type=int, required=True)
    p.add_argument("--mode", default="run", choices=["run", "checkpoint", "restore"],
                   help="run: boot and run; checkpoint: boot with --cpu and save at the guest's "
                        "m5 checkpoint; restore: continue from --checkpoint-dir")
    p.add_argument("--checkpoint-dir", help="where checkpoint mode saves, and restore mode reads")
    p.add_argument("--memory-system", default="ruby", choices=["ruby", "none"],
                   help="ruby: MESI_Two_Level; none: no caches (fast boots)")
    p.add_argument("--board", default="", help="a named board (vmscale_gem5.board.PRESETS): its values "
                   "are the defaults of the options below")
    for o in board_mod.OPTIONS:
        p.add_argument(o.flag, type=o.type, default=o.default, help=o.help, **({"choices": o.choices} if o.choices else {}))
    p.add_argument("--m5", default="inst", choices=["inst", "addr"], help="guest m5 op form")
    p.add_argument("--bits-per-set", type=int, help="NUMBER_BITS_PER_SET of the gem5 build (checked if given)")
    p.add_argument("--kvm-available", action="store_true")
    p.add_argument("--x2apic-build", choices=["yes", "no"],
                   help="whether the gem5 binary has vmscale's x2APIC patches (vmscale_fs.py asks the binary)")
    p.add_argument("--progress", type=float, default=0.01, help="simulated seconds between progress lines")
    p.add_argument("--max-seconds", type=float, default=0, help="stop after this much simulated time (0: none)")
    p.add_argument("--max-host-seconds", type=float, default=0,
                   help="checkpoint mode: after this much host time, save the boot so far to "
                        "--resume-dir and exit with status 75, to be continued with --resume-from (0: none)")
    p.add_argument("--resume-dir", help="where a boot cut by --max-host-seconds is saved")
    p.add_argument("--resume-from", help="checkpoint mode: continue a boot saved by --max-host-seconds")
    p.add_argument("--kernel-arg", action="append", default=[],
                   help="extra kernel command-line word (repeatable), after vmscale's own")
    p.add_argument("--profile", action="store_true",
                   help="profile the run: dump the statistics every --progress period (per-CPU "
                        "instructions over time) and trace --profile-window of guest instructions "
                        "(with kernel symbols) at the start of each period")
    p.add_argument("--profile-window", type=float, default=1e-6, help="simulated seconds traced per period")
    return p


# --roi-profile: one traced window per this much simulated time of a ROI unless the run says
# otherwise (--roi-profile-period's default, for readers of a trace without a manifest)
ROI_PROFILE_PERIOD = 100e-6


def roi_profile_period(a) -> float:
    """Seconds between --roi-profile's windows (validate() refuses a period under 1 us)."""
    return a.roi_profile_period * 1e-6


def sockets(a) -> int:
    """Sockets of the machine: as given, or as many as the cores fill (1 off the sockets topology)."""
    if a.topology != "sockets":
        return 1
    return a.sockets or -(-a.cores // max(a.socket_cores, 1))


def resolve(a) -> argparse.Namespace:
    """Values that follow from others: l2_banks=0 is one bank per socket (a power of two)."""
    if a.l2_banks == 0:
        a.l2_banks = board_mod.next_pow2(sockets(a))
    return a


def validate(a) -> argparse.Namespace:
    """Everything that can be wrong before gem5 starts; raises limits.ConfigError."""
    resolve(a)
    ruby = a.memory_system == "ruby"
    build = None if a.x2apic_build is None else a.x2apic_build == "yes"
    limits.check_cores(a.cores, ruby, a.bits_per_set, build)
    limits.check_cpu(a.cpu, a.kvm_available)
    a.x2apic_on = limits.x2apic_on(a.x2apic, a.cores, a.cpu, build)
    limits.check_memory(a.memory)
    clock_hz(a.clock)
    limits.check_cache(a.l1_size, a.l2_size, a.l2_banks, a.mem_channels, a.l1_assoc, a.l2_assoc)
    if ruby and a.topology == "sockets" and a.socket_cores < 1:
        raise limits.ConfigError(f"--socket-cores {a.socket_cores}: a socket needs at least one core")
    short = board_mod.llc_shortfall(a.cores, a.l1_size, a.l2_size * a.l2_banks)
    if ruby and short and a.mode != "checkpoint":     # a boot bypasses Ruby: its restore sets the L2
        if a.board:
            raise limits.ConfigError(short + ": raise --l2-size or --l2-banks")
        print(f"vmscale_fs: warning: {short}; figures at this size measure the L2's evictions", file=sys.stderr)
    if a.tail_cpu and a.tail_cpu != a.cpu and not (ruby and a.mode == "restore" and a.cpu in ("timing", "o3")):
        raise limits.ConfigError(f"--tail-cpu {a.tail_cpu} switches a restored Ruby run's CPUs between ROIs: it "
                                 "needs --mode restore, Ruby and --cpu timing or o3")
    for path, what in ((a.kernel, "--kernel"), (a.disk, "--disk")):
        if not Path(path).is_file():
            raise limits.ConfigError(f"{what} {path}: no such file")
    if Path(a.kernel).read_bytes()[:4] != b"\x7fELF":
        raise limits.ConfigError(f"--kernel {a.kernel}: not an ELF vmlinux (gem5 cannot boot a bzImage)")
    if a.max_host_seconds and not (a.mode == "checkpoint" and a.resume_dir):
        raise limits.ConfigError("--max-host-seconds applies to --mode checkpoint and needs --resume-dir")
    if a.resume_from and a.mode != "checkpoint":
        raise limits.ConfigError("--resume-from continues a boot: use it with --mode checkpoint")
    if a.resume_from and not Path(a.resume_from, "m5.cpt").is_file():
        raise limits.ConfigError(f"--resume-from {a.resume_from}: no saved boot (m5.cpt) there")
    if a.max_host_seconds and a.progress <= 0:
        raise limits.ConfigError("--max-host-seconds is checked at each --progress period: give one > 0")
    if a.mode != "run" and not a.checkpoint_dir:
        raise limits.ConfigError(f"--mode {a.mode} needs --checkpoint-dir")
    if a.mode == "restore" and not Path(a.checkpoint_dir, "m5.cpt").is_file():
        raise limits.ConfigError(f"--checkpoint-dir {a.checkpoint_dir}: no m5.cpt there")
    if ruby and a.cpu in ("atomic", "kvm") and a.mode == "run":
        # Atomic on Ruby bypasses the caches (atomic_noncaching): fine for booting only.
        raise limits.ConfigError(f"--cpu {a.cpu} with Ruby measures nothing: use it with --mode checkpoint")
    if ruby and a.mode == "checkpoint" and a.cpu not in ("atomic", "kvm"):
        raise limits.ConfigError("MESI_Two_Level cannot checkpoint warm caches: boot with --cpu atomic or kvm")
    if a.cpu == "kvm" and a.m5 == "inst":
        # Under KVM the 0F 04 instruction never reaches gem5: m5 ops must be MMIO loads.
        raise limits.ConfigError("--cpu kvm needs --m5 addr (the address form through /dev/mem)")
    if a.profile and not 0 < a.profile_window < a.progress:
        raise limits.ConfigError("--profile needs 0 < --profile-window < --progress")
    if a.hotlines and not (ruby and a.cpu in ("timing", "o3") and a.mode != "checkpoint"):
        raise limits.ConfigError("--hotlines traces Ruby's L1s during a ROI: it needs Ruby and a timing or o3 "
                                 "CPU in run or restore mode")
    if sum(map(bool, (a.hotlines, a.profile, a.roi_profile))) > 1:
        raise limits.ConfigError("--hotlines, --profile and --roi-profile all use gem5's trace output: give one")
    if a.roi_profile_period <= 0:
        raise limits.ConfigError(f"--roi-profile-period {a.roi_profile_period}: us between windows, so at least 1")
    if a.roi_profile_start < 0 or (a.roi_profile_start and not a.roi_profile):
        raise limits.ConfigError(f"--roi-profile-start {a.roi_profile_start}: us of a ROI before --roi-profile's "
                                 "first window, so at least 0, and only with --roi-profile")
    if a.roi_profile and not (0 < a.roi_profile * 1e-9 < roi_profile_period(a) and a.mode == "restore"):
        raise limits.ConfigError(f"--roi-profile {a.roi_profile}: ns traced per {roi_profile_period(a) * 1e6:.0f} us "
                                 "of a restored run's ROIs, so between 1 and the period")
    if a.topology == "mesh" and bool(a.mesh_rows) != bool(a.mesh_cols):
        raise limits.ConfigError("give both --mesh-rows and --mesh-cols, or neither")
    if ruby:
        try:
            graph(a)(topology.controller_counts(a.cores, a.l2_banks, a.mem_channels)["total"]).check()
        except ValueError as e:
            raise limits.ConfigError(str(e)) from e
    return a


def graph(a):
    """A factory: controller count (as the board wires them) -> the topology graph."""
    def make(n_ctrl):
        counts = topology.controller_counts(a.cores, a.l2_banks, a.mem_channels)
        counts["dma"] += n_ctrl - counts["total"]  # the board decides how many DMA ports it has
        counts["total"] = n_ctrl
        return topology.build(a.topology, counts, a.mesh_rows, a.mesh_cols, a.link_latency, a.router_latency,
                              a.sockets, a.socket_cores, a.socket_latency, a.socket_port_latency)
    return make


def parse(argv=None) -> argparse.Namespace:
    """vmscale_fs.py's arguments; a --board preset's values are the defaults of the rest."""
    p = parser()
    known, _ = p.parse_known_args(argv)
    try:
        preset = board_mod.Board.make({"board": known.board})
    except limits.ConfigError as e:
        p.error(str(e))
    p.set_defaults(**dict(preset.values))
    return p.parse_args(argv)


def clock_hz(clock: str) -> float:
    for unit, scale in UNITS.items():
        if clock.endswith(unit):
            try:
                hz = float(clock[:-len(unit)]) * scale
            except ValueError:
                break
            if hz > 0:
                return hz
            break
    raise limits.ConfigError(f"--clock {clock}: give a frequency such as 3GHz or 2500MHz")


def apic_khz(clock: str) -> int:
    """The local APIC timer's rate on a board with this clock: gem5 keeps the clock as a whole
    number of picosecond ticks (3 GHz: 333 ps) and its local APIC divides it by 16."""
    period_ps = round(1e12 / clock_hz(clock))
    return round(1e9 / (period_ps * 16))


def boot_args(clock: str = DEFAULT_CLOCK) -> list:
    """The kernel command line every boot gets.  The local APIC timer's calibration busy-waits
    100 ms on the boot CPU, about half of a boot's simulated instructions at any core count:
    kernel-patches/0020 takes gem5's exact rate instead (the calibration measures it 16 ppm off)."""
    return KERNEL_ARGS + [f"lapic_timer_khz={apic_khz(clock)}"]


def kernel_args(a) -> list:
    args = boot_args(a.clock) + [f"vmscale.m5={a.m5}"] + list(getattr(a, "kernel_arg", []))
    if a.mode == "checkpoint":
        args.append("vmscale.checkpoint=1")
    if getattr(a, "x2apic_on", False):
        # The board's I/O APIC takes 15-bit destination IDs (extended_dest_id): kernel 0043 then
        # enters x2APIC mode without interrupt remapping and brings every CPU up.
        args.append("x2apic_ext_dest_id")
    return args


def tail_switch(a) -> bool:
    """Whether the run switches to --tail-cpu outside its ROIs (vmscale_processor.TailProcessor)."""
    return bool(a.tail_cpu) and a.tail_cpu != a.cpu
