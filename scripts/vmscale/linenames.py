"""Names for physical cache-line addresses of a gem5 x86 guest: kernel symbols and per-CPU data.

gem5 traces physical addresses.  The vmscale kernels boot with nokaslr, so (arch/x86):
  - the kernel image is at its link address minus __START_KERNEL_map (phys_base 0: gem5 loads
    vmlinux's segments at their ELF physical addresses, which readelf shows are exactly that);
  - the direct map starts at PAGE_OFFSET, and each CPU's per-CPU area lives there: a per-CPU
    variable at zero-based offset s is, for CPU c, at __per_cpu_offset[c] + s.
__per_cpu_offset[] is read from the boot checkpoint's memory image (the areas are set up once
at boot and never move).  What is neither is named from the ROI's physmap when the run has
one (vmscale.physmap: slab cache and offset, the process's own objects by field, page
tables, user and file pages), else by its 4 KiB page ("dynamic"); lines are grouped, never
dropped.
"""

import bisect
import copy
import gzip
import subprocess
from dataclasses import dataclass
from pathlib import Path

from vmscale.errors import VmscaleError

START_KERNEL_MAP = 0xffffffff80000000
PAGE_OFFSET = 0xffff888000000000        # 4-level paging, nokaslr
LINE = 64


@dataclass(frozen=True)
class Symbol:
    addr: int
    size: int
    name: str


def parse_nm(text: str) -> list:
    """`nm -S -n --defined-only` -> [Symbol] (size 0 for markers), sorted by address."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4:            # address size kind name
            out.append(Symbol(int(parts[0], 16), int(parts[1], 16), parts[3]))
        elif len(parts) == 3:          # no size: a marker such as _text or __per_cpu_end
            out.append(Symbol(int(parts[0], 16), 0, parts[2]))
    return sorted(out, key=lambda s: s.addr)


def symbols_of(vmlinux: Path) -> list:
    try:
        text = subprocess.run(["nm", "-S", "-n", "--defined-only", str(vmlinux)], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise VmscaleError(f"nm {vmlinux}: {e}", "install binutils") from e
    return parse_nm(text)


class SymbolTable:
    def __init__(self, symbols):
        self.symbols = [s for s in symbols if s.size > 0]
        self.starts = [s.addr for s in self.symbols]

    def overlapping(self, start: int, end: int) -> list:
        """Names of the symbols that overlap [start, end), lowest address first."""
        i = bisect.bisect_right(self.starts, start) - 1
        i = max(i - 64, 0)              # an earlier, larger symbol may still cover start
        out = []
        for s in self.symbols[i:]:
            if s.addr >= end:
                break
            if s.addr + s.size > start:
                out.append(s.name)
        return out

    def address(self, name: str) -> int:
        for s in self.symbols:
            if s.name == name:
                return s.addr
        raise VmscaleError(f"vmlinux has no symbol {name}")


def read_physical(pmem_gz: Path, phys: int, length: int) -> bytes:
    """Bytes of a gem5 checkpoint's memory image (board.physmem.store0.pmem, gzip'd; one
    store starting at physical 0, as for the board's memory below 3 GiB)."""
    with gzip.open(pmem_gz, "rb") as f:
        f.seek(phys)
        data = f.read(length)
    if len(data) != length:
        raise VmscaleError(f"{pmem_gz}: physical {phys:#x}+{length} is past the memory image")
    return data


def per_cpu_offsets(pmem_gz: Path, table: SymbolTable, cpus: int) -> list:
    at = table.address("__per_cpu_offset") - START_KERNEL_MAP
    raw = read_physical(pmem_gz, at, 8 * cpus)
    return [int.from_bytes(raw[8 * i:8 * i + 8], "little") for i in range(cpus)]


class Namer:
    """Physical line address -> (kind, name).  kind: kernel (static data or text), percpu, then
    the physmap's kinds (object, memmap, slab, pgtable, user, file, reserved, other, dynamic) or
    dynamic."""

    def __init__(self, symbols, percpu_offsets=(), physmap=None):
        self.physmap = physmap          # vmscale.physmap.Physmap: names the rest, when the run has one
        self.table = SymbolTable(symbols)
        names = {s.name: s.addr for s in symbols}
        self.kernel = (names.get("_text", 0) - START_KERNEL_MAP, names.get("_end", 0) - START_KERNEL_MAP)
        self.pcpu_size = names.get("__per_cpu_end", 0) - names.get("__per_cpu_start", 0)
        # per-CPU symbols are zero-based: those below __per_cpu_end
        self.pcpu = SymbolTable([s for s in symbols if s.addr < self.pcpu_size])
        self.areas = sorted((off, cpu) for cpu, off in enumerate(percpu_offsets))
        # A CPU's unit: its static per-CPU data, then alloc_percpu()'s chunk (the first chunk
        # is embedded: units are contiguous, so the smallest gap between them is a unit).
        gaps = [b[0] - a[0] for a, b in zip(self.areas, self.areas[1:]) if b[0] > a[0]]
        self.unit = min(gaps) if gaps else self.pcpu_size

    def name(self, line: int):
        lo, hi = self.kernel
        if lo <= line < hi:
            names = self.table.overlapping(line + START_KERNEL_MAP, line + START_KERNEL_MAP + LINE)
            return "kernel", "+".join(names[:3]) + ("+..." if len(names) > 3 else "") if names else "kernel (no symbol)"
        virt = line + PAGE_OFFSET
        for off, cpu in self.areas:
            s = virt - off
            if 0 <= s < self.pcpu_size:
                names = self.pcpu.overlapping(s, s + LINE)
                label = "+".join(names[:3]) + ("+..." if len(names) > 3 else "") if names else "(no symbol)"
                return "percpu", f"{label} [cpu{cpu}]"
            if self.pcpu_size <= s < self.unit:
                return "percpu", f"alloc_percpu +{s:#x} [cpu{cpu}]"
        if self.physmap is not None:
            return self.physmap.name(line)
        return "dynamic", f"page {line & ~0xfff:#x}"

    def with_physmap(self, physmap):
        """This namer, naming what is not kernel image or per-CPU data by one ROI's physmap."""
        other = copy.copy(self)
        other.physmap = physmap
        return other
