"""What each guest page frame held at a ROI's end (/proc/vmscale_physmap), to name the lines a
gem5 trace saw that are not in the kernel image or a per-CPU area.

The guest harness prints the file after each ROI when run with physmap=1 (`--gem5 hotlines=1`
sets it), between VMSCALE-PHYSMAP-BEGIN and -END markers; the kernel's records (kernel patch
"mm: vmscale: /proc/vmscale_physmap"):
    field STRUCT MEMBER OFFSET SIZE     member offsets compiled into that kernel (SIZE 0: to the end)
    object PHYS SIZE STRUCT LABEL       the ROI process's mm_struct, VMAs, VMA locks, files, inodes
    memmap PHYS PFN COUNT SIZE          the struct pages of COUNT frames from PFN lie from PHYS on
    frames PFN COUNT KIND ORDER NAME SIZE   a run of frames: slab (NAME cache, SIZE object stride),
                                        pgtable, anon, file (NAME filesystem, SIZE inode), reserved, other
Frames not listed were free.  Kernel messages can land inside a line on the shared console: a
line that does not parse is counted, not guessed at.  Pure functions of text.
"""

import bisect
import gzip
import re
from pathlib import Path
from dataclasses import dataclass, field

PAGE = 4096
LINE = 64

# slab caches whose objects are one struct the kernel gave fields for
CACHE_STRUCT = {"mm_struct": "mm_struct", "filp": "file", "vm_area_struct": "vm_area_struct",
                "vma_lock": "vma_lock"}

_FIELD = re.compile(r"field (\w+) (\w+) (\d+) (\d+)$")
_OBJECT = re.compile(r"object ([0-9a-f]+) (\d+) (\w+) (\S+)$")
_MEMMAP = re.compile(r"memmap ([0-9a-f]+) ([0-9a-f]+) (\d+) (\d+)$")
_FRAMES = re.compile(r"frames ([0-9a-f]+) (\d+) (slab|pgtable|anon|file|reserved|other) (\d+) (\S+) (\d+)$")


@dataclass(frozen=True)
class Frames:
    pfn: int
    count: int
    kind: str
    order: int
    name: str
    size: int


@dataclass
class Physmap:
    fields: dict = field(default_factory=dict)     # struct -> [(offset, size, member)]
    objects: list = field(default_factory=list)    # [(phys, size, struct, label)]
    frames: list = field(default_factory=list)     # [Frames] sorted by pfn
    memmap: list = field(default_factory=list)     # [(phys, pfn, count, size)]: where struct pages lie
    damaged: int = 0                               # lines that did not parse

    def __post_init__(self):
        self.frames.sort(key=lambda f: f.pfn)
        self._starts = [f.pfn for f in self.frames]

    def members(self, struct: str, start: int, end: int, whole: int) -> list:
        """Members of `struct` that overlap [start, end) of an object `whole` bytes long."""
        out = []
        for off, size, name in self.fields.get(struct, ()):
            stop = off + size if size else whole
            if off < end and stop > start:
                out.append(name)
        return out

    def frame(self, pfn: int):
        i = bisect.bisect_right(self._starts, pfn) - 1
        if i >= 0 and pfn < self.frames[i].pfn + self.frames[i].count:
            return self.frames[i]
        return None

    def name(self, line: int):
        """(kind, name) of a physical line address."""
        hit = [o for o in self.objects if o[0] < line + LINE and line < o[0] + o[1]]
        if hit:
            phys, size, struct, label = min(hit, key=lambda o: o[1])     # the innermost object
            start, end = max(line - phys, 0), min(line + LINE, phys + size) - phys
            return "object", _label(f"{struct}+{start:#x} {label}", self.members(struct, start, end, size))
        for phys, pfn, count, size in self.memmap:
            if phys <= line < phys + count * size:
                described = pfn + (line - phys) // size
                return "memmap", f"struct page of pfn {described:#x}: {self.what(described)}"
        page = line & ~(PAGE - 1)
        f = self.frame(line // PAGE)
        if f is None:
            return "dynamic", f"page {page:#x} (free when the map was read)"
        if f.kind == "slab":
            slab = f.pfn + ((line // PAGE - f.pfn) >> f.order << f.order)
            at = line - slab * PAGE
            off = at % f.size if f.size else at
            struct = CACHE_STRUCT.get(f.name)
            members = self.members(struct, off, min(off + LINE, f.size), f.size) if struct else []
            return "slab", _label(f"{f.name}+{off:#x}", members)
        if f.kind == "pgtable":
            return "pgtable", f"page table {page:#x}"
        if f.kind == "anon":
            return "user", f"anon page {page:#x}"
        if f.kind == "file":
            return "file", f"{f.name} inode {f.size} page {page:#x}"
        if f.kind == "reserved":
            return "reserved", f"reserved page {page:#x}"
        return "other", f"page {page:#x} (kernel allocation or RadixVM region page)"


    def what(self, pfn: int) -> str:
        """A frame's kind in a few words (for the struct page that describes it)."""
        f = self.frame(pfn)
        if f is None:
            return "free"
        if f.kind == "slab":
            return f"slab {f.name}"
        if f.kind == "file":
            return f"file, {f.name} inode {f.size}"
        return f.kind


def _label(where: str, members: list) -> str:
    if not members:
        return where
    return f"{where}: {','.join(members[:3])}{',...' if len(members) > 3 else ''}"


def parse(lines) -> Physmap:
    fields, objects, frames, memmap, damaged = {}, [], [], [], 0
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if m := _FIELD.match(line):
            fields.setdefault(m[1], []).append((int(m[3]), int(m[4]), m[2]))
        elif m := _OBJECT.match(line):
            objects.append((int(m[1], 16), int(m[2]), m[3], m[4]))
        elif m := _MEMMAP.match(line):
            memmap.append((int(m[1], 16), int(m[2], 16), int(m[3]), int(m[4])))
        elif m := _FRAMES.match(line):
            frames.append(Frames(int(m[1], 16), int(m[2]), m[3], int(m[4]), m[5], int(m[6])))
        else:
            damaged += 1
    return Physmap(fields, objects, frames, memmap, damaged)


def from_console(text: str, files=None) -> dict:
    """{case id: Physmap} from a run's console log: each block belongs to the case whose
    VMSCALE-CASE-BEGIN came last before it.  A case's block is printed live and again in
    the recap (guest_script.render), with the kernel's console quietened: a kernel message
    that landed inside the live copy damages lines there only, so the copy with the fewest
    damaged lines is kept (the later, the recap's, on a tie).  Under gem5 the harness writes
    the block to the host instead (m5 writefile) and prints `VMSCALE-PHYSMAP-FILE NAME BYTES`:
    the block is then read from NAME (or NAME.gz) in `files`, the run's m5out directory."""
    out, case, block = {}, None, None

    def keep(lines):
        pm = parse(lines)
        if case is not None and (case not in out or pm.damaged <= out[case].damaged):
            out[case] = pm

    for line in text.splitlines():
        if "VMSCALE-CASE-BEGIN " in line:
            parts = line.split("VMSCALE-CASE-BEGIN ", 1)[1].split()
            case = int(parts[0]) if parts and parts[0].isdigit() else None
        elif line.startswith("VMSCALE-PHYSMAP-FILE ") and files is not None:
            name = line.split()[1] if len(line.split()) > 1 else ""
            path = next((p for p in (Path(files) / name, Path(files) / f"{name}.gz") if p.is_file()), None)
            if "/" not in name and path is not None:
                body = (gzip.open(path, "rt", errors="replace") if path.suffix == ".gz"
                        else open(path, errors="replace")).read().splitlines()
                keep([x for x in body if not x.startswith("VMSCALE-PHYSMAP-")])
        elif line.strip() == "VMSCALE-PHYSMAP-BEGIN":
            block = []
        elif line.strip() == "VMSCALE-PHYSMAP-END" and block is not None:
            keep(block)
            block = None
        elif block is not None:
            block.append(line)
    return out
