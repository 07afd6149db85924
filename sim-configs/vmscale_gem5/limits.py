"""Which core counts and options a gem5 v24 X86 full-system run can have, decided up front.

Facts (gem5 v24.0 source): xAPIC only, 8-bit APIC IDs and 0xFF is broadcast; X86Board gives
the I/O APIC id = num_cores (src/python/gem5/components/boards/x86_board.py) and the I/O APIC
asserts id < 0xFF (src/dev/x86/i82094aa.cc), so X86Board stops at 254 cores; 256 needs
x2APIC in gem5's C++.  Ruby sizes its per-machine bit sets by NUMBER_BITS_PER_SET (a build
setting, 128 in build_opts/X86), so more L1 controllers than that is fatal at start-up.
X86Board maps at most 3 GiB of memory below the PCI hole.
"""

MAX_X86_BOARD_CORES = 254
MAX_MEMORY_MIB = 3 * 1024
CPU_TYPES = ("atomic", "timing", "o3", "kvm")
PROTOCOLS = ("MESI_Two_Level",)  # what sim-configs builds a hierarchy for


class ConfigError(ValueError):
    """A run gem5 cannot do, found before gem5 starts; str() says why and what to change."""


def check_cores(cores: int, ruby: bool, bits_per_set: int = None) -> int:
    if not isinstance(cores, int) or cores < 1:
        raise ConfigError(f"--cores {cores}: must be a positive integer")
    if cores > MAX_X86_BOARD_CORES:
        raise ConfigError(
            f"--cores {cores}: gem5 v24 X86 tops out at {MAX_X86_BOARD_CORES} cores "
            "(8-bit xAPIC IDs, 0xFF is broadcast, the I/O APIC takes id = cores); "
            "256 needs x2APIC support in gem5's C++")
    if ruby and bits_per_set is not None and cores > bits_per_set:
        raise ConfigError(
            f"--cores {cores}: this gem5 build has NUMBER_BITS_PER_SET={bits_per_set}, fewer than the "
            f"{cores} L1 controllers; rebuild gem5 with `scons setconfig build/X86 NUMBER_BITS_PER_SET=256`")
    return cores


def check_memory(mib: int) -> int:
    if mib < 64 or mib > MAX_MEMORY_MIB:
        raise ConfigError(f"--memory {mib} MiB: X86Board supports 64..{MAX_MEMORY_MIB} MiB")
    return mib


def check_cache(l1_kib: int, l2_kib: int, l2_banks: int, channels: int):
    if l2_banks < 1 or l2_banks & (l2_banks - 1):
        raise ConfigError(f"--l2-banks {l2_banks}: MESI_Two_Level needs a power of two")
    for name, v in (("--l1-size", l1_kib), ("--l2-size", l2_kib)):
        if v < 1 or v & (v - 1):
            raise ConfigError(f"{name} {v} KiB: must be a power of two")
    if channels < 1 or channels & (channels - 1):
        raise ConfigError(f"--mem-channels {channels}: must be a power of two")


def check_cpu(cpu: str, kvm_available: bool) -> str:
    if cpu not in CPU_TYPES:
        raise ConfigError(f"--cpu {cpu}: use one of {', '.join(CPU_TYPES)}")
    if cpu == "kvm" and not kvm_available:
        raise ConfigError("--cpu kvm: /dev/kvm is not usable here; use --cpu atomic for the boot")
    return cpu
