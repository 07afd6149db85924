"""Which core counts and options a gem5 v24 X86 full-system run can have, decided up front.

Facts (gem5 v24.0 source): xAPIC only, 8-bit APIC IDs and 0xFF is broadcast; X86Board gives
the I/O APIC the id = num_cores (src/python/gem5/components/boards/x86_board.py) and the I/O APIC
asserts id < 0xFF (src/dev/x86/i82094aa.cc), so stock X86Board stops at 254 cores.  vmscale's
gem5 patches (sim-configs/gem5-patches, built by `vmscale build gem5`) add x2APIC mode: the
cores run in it from 255 on (or with --x2apic on), handed over in it as firmware does, and the
kernel keeps it without interrupt remapping when told by x2apic_ext_dest_id (kernel 0043).  Interrupt messages between APICs are still addressed by an 8-bit APIC
ID (x86InterruptAddress in src/arch/x86/x86_traits.hh), so the patched build stops at 256.
gem5's x2APIC is modelled for its own CPUs, not for the KVM CPU (KVM has its own APIC model).
Ruby sizes its per-machine bit sets by NUMBER_BITS_PER_SET (a build setting, 128 in
build_opts/X86), so more L1 controllers than that is fatal at start-up.
X86Board maps at most 3 GiB of memory below the PCI hole.
"""

import math

MAX_XAPIC_CORES = 254        # stock gem5 v24: IDs 0..253 for cores, 254 for the I/O APIC
MAX_X86_BOARD_CORES = 256    # with sim-configs/gem5-patches: 8-bit IDs in interrupt messages
MAX_MEMORY_MIB = 3 * 1024
CPU_TYPES = ("atomic", "timing", "o3", "kvm")
PROTOCOLS = ("MESI_Two_Level",)  # what sim-configs builds a hierarchy for
X2APIC_MODES = ("auto", "on", "off")
PATCH_HINT = ("build gem5 with vmscale's x2APIC patches: `vmscale build gem5 --gem5-source DIR` "
              "(sim-configs/gem5-patches; README, \"gem5 past 254 cores\")")


class ConfigError(ValueError):
    """A run gem5 cannot do, found before gem5 starts; str() says why and what to change."""


def check_cores(cores: int, ruby: bool, bits_per_set: int = None, x2apic_build: bool = None) -> int:
    """x2apic_build: whether the gem5 binary has vmscale's x2APIC patches (None: not known yet,
    checked again once it is)."""
    if not isinstance(cores, int) or cores < 1:
        raise ConfigError(f"--cores {cores}: must be a positive integer")
    if cores > MAX_X86_BOARD_CORES:
        raise ConfigError(
            f"--cores {cores}: gem5 v24 X86 with vmscale's x2APIC patches tops out at {MAX_X86_BOARD_CORES} "
            "cores (interrupt messages between APICs carry 8-bit APIC IDs: x86InterruptAddress in "
            "src/arch/x86/x86_traits.hh; more needs that widened and 15-bit IDs at the I/O APIC)")
    if cores > MAX_XAPIC_CORES and x2apic_build is False:
        raise ConfigError(
            f"--cores {cores}: this gem5 build tops out at {MAX_XAPIC_CORES} cores (xAPIC only: 8-bit IDs, "
            f"0xFF is broadcast, the I/O APIC takes id = cores); {PATCH_HINT}")
    if ruby and bits_per_set is not None and cores > bits_per_set:
        raise ConfigError(
            f"--cores {cores}: this gem5 build has NUMBER_BITS_PER_SET={bits_per_set}, fewer than the "
            f"{cores} L1 controllers; rebuild gem5 with `scons setconfig build/X86 NUMBER_BITS_PER_SET=256`")
    return cores


def x2apic_on(mode: str, cores: int, cpu: str = "timing", x2apic_build: bool = None) -> bool:
    """Whether the cores run in x2APIC mode: `auto` turns it on where xAPIC IDs run out."""
    if mode not in X2APIC_MODES:
        raise ConfigError(f"--x2apic {mode}: use one of {', '.join(X2APIC_MODES)}")
    on = mode == "on" or (mode == "auto" and cores > MAX_XAPIC_CORES)
    if mode == "off" and cores > MAX_XAPIC_CORES:
        raise ConfigError(f"--x2apic off: {cores} cores need x2APIC mode (xAPIC stops at {MAX_XAPIC_CORES})")
    if on and x2apic_build is False:
        raise ConfigError(f"x2APIC mode ({cores} cores, --x2apic {mode}): this gem5 build has no x2APIC; "
                          f"{PATCH_HINT}")
    if on and cpu == "kvm":
        raise ConfigError(f"x2APIC mode ({cores} cores, --x2apic {mode}) is gem5's own APIC model, which the "
                          "KVM CPU does not use: boot with --cpu atomic")
    return on


def check_memory(mib: int) -> int:
    if mib < 64 or mib > MAX_MEMORY_MIB:
        raise ConfigError(f"--memory {mib} MiB: X86Board supports 64..{MAX_MEMORY_MIB} MiB")
    return mib


LINE_BYTES = 64


def _pow2(n) -> bool:
    return n >= 1 and n == int(n) and not int(n) & (int(n) - 1)


def check_cache(l1_kib: int, l2_kib: int, l2_banks: int, channels: int, l1_assoc=None, l2_assoc=None):
    if l2_banks < 1 or l2_banks & (l2_banks - 1):
        raise ConfigError(f"--l2-banks {l2_banks}: MESI_Two_Level needs a power of two")
    for name, v in (("--l1-size", l1_kib), ("--l2-size", l2_kib)):
        if v < 1 or v & (v - 1):
            raise ConfigError(f"{name} {v} KiB: must be a power of two")
    for name, kib, ways in (("--l1-assoc", l1_kib, l1_assoc), ("--l2-assoc", l2_kib, l2_assoc)):
        # Ruby sizes a cache at size / ways / line sets but indexes it with floorLog2 of that many
        # bits (CacheMemory::init, addressToCacheSet): sets past the largest power of two never
        # hold a line, so the cache would be silently smaller than its size says.
        if ways is None:
            continue
        sets = kib * 1024 / ways / LINE_BYTES if ways >= 1 else 0
        if not (_pow2(sets) and sets >= 2):
            low = 2 ** int(math.log2(ways)) if ways >= 1 else 1
            raise ConfigError(f"{name} {ways} with {kib} KiB: {sets:g} sets, and Ruby indexes only a power of two "
                              f"of them (the rest would never hold a line): give {low} or {2 * low} ways")
    if channels < 1 or channels & (channels - 1):
        raise ConfigError(f"--mem-channels {channels}: must be a power of two")


def check_cpu(cpu: str, kvm_available: bool) -> str:
    if cpu not in CPU_TYPES:
        raise ConfigError(f"--cpu {cpu}: use one of {', '.join(CPU_TYPES)}")
    if cpu == "kvm" and not kvm_available:
        raise ConfigError("--cpu kvm: /dev/kvm is not usable here; use --cpu atomic for the boot")
    return cpu
