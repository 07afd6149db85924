"""/proc/vmscale_physmap (kernel 0035) and its reader, vmscale.physmap: what each frame held at
a ROI's end, which names the lines of a gem5 hot-line trace that are neither kernel image nor
per-CPU data.  The reader's arithmetic on small maps; then the kernel's own map, read under
QEMU, checked against itself: every object it lists lies at an object boundary of the slab
cache that allocates that struct, and the fields it gives fit in the objects."""

import json

import pytest

from conftest import vmscale
from vmscale import physmap

MAP = """\
field mm_struct mm_count 0 4
field mm_struct map_count 128 4
field mm_struct page_table_lock 132 4
field mm_struct mmap_lock 136 40
field mm_struct cpu_bitmap 1216 0
field file f_count 0 8
field file f_pos 112 8
object 2148000 1224 mm_struct mm
object 20830c0 184 file fd3
memmap 7fd00000 0 32768 64
frames 1000 16 slab 3 mm_struct 1280
frames 1010 1 slab 0 filp 192
frames 1011 2 pgtable 0 - 0
frames 1013 3 anon 0 - 0
frames 1016 1 file 0 ext2 77
frames 1017 1 slab 0 kmalloc-64 64
frames 2083 1 slab 0 filp 192
frames 2148 8 slab 3 mm_struct 1280
"""


def test_a_slab_line_is_named_by_cache_and_offset_in_its_object_from_the_slabs_first_frame():
    pm = physmap.parse(MAP.splitlines())
    assert pm.damaged == 0
    # frame 0x1009 is in the second order-3 slab of the run (0x1008..0x100f): objects start at 0x1008
    line = 0x1008 * 4096 + 1280 + 128
    assert pm.name(line) == ("slab", "mm_struct+0x80: map_count,page_table_lock,mmap_lock")
    # in the first slab, the third object's cpumask (a size-0 field: to the object's end)
    assert pm.name(0x1000 * 4096 + 2 * 1280 + 1216) == ("slab", "mm_struct+0x4c0: cpu_bitmap")
    # filp objects are struct file: the fields the line overlaps
    assert pm.name(0x1010 * 4096 + 192 + 64) == ("slab", "filp+0x40: f_pos")
    # a cache of no known struct: the offset in its object only
    assert pm.name(0x1017 * 4096 + 128) == ("slab", "kmalloc-64+0x0")


def test_the_processs_own_objects_come_first_and_the_innermost_wins():
    pm = physmap.parse(MAP.splitlines())
    assert pm.name(0x2148000 + 0x80) == ("object", "mm_struct+0x80 mm: map_count,page_table_lock,mmap_lock")
    assert pm.name(0x20830c0) == ("object", "file+0x0 fd3: f_count")
    pm.objects.append((0x2148080, 64, "file", "inner"))
    assert pm.name(0x2148080)[1].startswith("file+0x0 inner")


def test_other_kinds_and_a_frame_not_in_the_map():
    pm = physmap.parse(MAP.splitlines())
    assert pm.name(0x1012 * 4096 + 64) == ("pgtable", "page table 0x1012000")
    assert pm.name(0x1015 * 4096) == ("user", "anon page 0x1015000")
    assert pm.name(0x1016 * 4096 + 128) == ("file", "ext2 inode 77 page 0x1016000")
    assert pm.name(0x5000 * 4096)[0] == "dynamic"
    assert "free" in pm.name(0x5000 * 4096)[1]


def test_a_struct_page_is_named_by_the_frame_it_describes():
    pm = physmap.parse(MAP.splitlines())
    assert pm.name(0x7fd00000 + 0x1016 * 64) == ("memmap", "struct page of pfn 0x1016: file, ext2 inode 77")
    assert pm.name(0x7fd00000 + 0x1000 * 64) == ("memmap", "struct page of pfn 0x1000: slab mm_struct")
    assert pm.name(0x7fd00000 + 0x5000 * 64)[1].endswith(": free")
    assert pm.name(0x7fd00000 + 32768 * 64)[0] != "memmap"       # past the run


def test_a_damaged_line_is_counted_and_blocks_go_to_the_case_that_printed_them():
    console = "\n".join([
        "VMSCALE-CASE-BEGIN 1 stock pagecache",
        "VMSCALE-PHYSMAP-BEGIN",
        "frames 1000 4 anon 0 - 0",
        "frames 10[   12.3] some kernel message",
        "VMSCALE-PHYSMAP-END",
        "VMSCALE-CASE-BEGIN 2 rcu pagecache",
        "VMSCALE-CASE-BEGIN 3 rwlock pagecache",
        "VMSCALE-PHYSMAP-BEGIN",
        "frames 2000 1 pgtable 0 - 0",
        "VMSCALE-PHYSMAP-END",
    ])
    maps = physmap.from_console(console)
    assert sorted(maps) == [1, 3]
    assert maps[1].damaged == 1 and len(maps[1].frames) == 1
    assert maps[3].frames[0].kind == "pgtable"


def test_a_map_written_to_the_host_by_m5_writefile_is_read_from_m5out(tmp_path):
    """Under gem5 the harness writes the map with m5 writefile and prints one line naming it:
    the block is read from the run's m5out (plain or gzip'd by a record's tidy step); a
    name with a path in it is not followed."""
    import gzip
    (tmp_path / "physmap-1.txt").write_text("VMSCALE-PHYSMAP-BEGIN\n" + MAP + "VMSCALE-PHYSMAP-END\n")
    with gzip.open(tmp_path / "physmap-2.txt.gz", "wt") as f:
        f.write("VMSCALE-PHYSMAP-BEGIN\nframes 3000 2 anon 0 - 0\nVMSCALE-PHYSMAP-END\n")
    console = "\n".join(["VMSCALE-CASE-BEGIN 1 stock fault", f"VMSCALE-PHYSMAP-FILE physmap-1.txt {len(MAP)}",
                          "VMSCALE-CASE-BEGIN 2 rcu fault", "VMSCALE-PHYSMAP-FILE physmap-2.txt 60",
                          "VMSCALE-CASE-BEGIN 3 rwlock fault", "VMSCALE-PHYSMAP-FILE ../physmap-1.txt 60"])
    maps = physmap.from_console(console, tmp_path)
    assert sorted(maps) == [1, 2]
    assert maps[1].damaged == 0 and len(maps[1].frames) == len(physmap.parse(MAP.splitlines()).frames)
    assert [(f.pfn, f.kind) for f in maps[2].frames] == [(0x3000, "anon")]
    assert physmap.from_console(console) == {}        # no m5out given: nothing to read


def check_kernel_map(pm: physmap.Physmap, cases: str):
    """The kernel's map is consistent with itself (see the module's docstring)."""
    assert pm.damaged == 0, f"{cases}: {pm.damaged} damaged lines"
    kinds = {f.kind for f in pm.frames}
    assert {"slab", "pgtable", "reserved"} <= kinds, kinds
    sizes = {s: max(off + size for off, size, _ in fields) for s, fields in pm.fields.items()}
    assert {"mm_struct", "file", "inode", "address_space", "vm_area_struct"} <= set(sizes)
    objs = {}
    for phys, size, struct, label in pm.objects:
        objs.setdefault(struct, []).append((phys, size, label))
        assert sizes[struct] <= size, (struct, sizes[struct], size)   # its fields fit in it
    assert len(objs["mm_struct"]) == 1 and objs["file"] and objs["vm_area_struct"]
    cache_of = {"mm_struct": "mm_struct", "file": "filp", "vm_area_struct": "vm_area_struct",
                "vma_lock": "vma_lock"}
    for struct, cache in cache_of.items():
        for phys, size, label in objs.get(struct, []):
            f = pm.frame(phys // 4096)
            assert f is not None and f.kind == "slab" and f.name == cache, (struct, label, f)
            slab = f.pfn + ((phys // 4096 - f.pfn) >> f.order << f.order)
            assert (phys - slab * 4096) % f.size == 0, (struct, label, f)   # at an object's start
            assert size <= f.size
    for phys, size, label in objs["inode"]:
        f = pm.frame(phys // 4096)
        assert f is not None and f.kind == "slab" and f.name.endswith("inode_cache"), (label, f)
    # each file's address_space is its inode's i_data here (no file of the workload is a device)
    inode_at = {label: phys for phys, _, label in objs["inode"]}
    i_data = next(off for off, _, name in pm.fields["inode"] if name == "i_data")
    assert any(phys == inode_at.get(label, -1) + i_data for phys, _, label in objs["address_space"])
    # every listed frame has its struct page somewhere in the memmap runs, none overlapping
    runs = sorted(pm.memmap)
    assert runs and all(a[0] + a[2] * a[3] <= b[0] for a, b in zip(runs, runs[1:]))
    covered = [(pfn, pfn + count) for _, pfn, count, _ in runs]
    for f in pm.frames:     # the memmap runs that overlap the frame run add up to all of it
        end = f.pfn + f.count
        assert sum(min(hi, end) - max(lo, f.pfn) for lo, hi in covered if lo < end and f.pfn < hi) == f.count, f
    # an object the map lists is named as that object, field and all
    mm = objs["mm_struct"][0][0]
    lock = next(off for off, _, name in pm.fields["mm_struct"] if name == "mmap_lock")
    kind, name = pm.name((mm + lock) & ~63)
    assert kind == "object" and name.startswith("mm_struct+") and "mmap_lock" in name


@pytest.mark.qemu
def test_the_kernels_map_names_the_workloads_own_objects_in_every_address_space_design(qemu_ready, tmp_path):
    out = tmp_path / "pm"
    r = vmscale("run", "--backend", "qemu", "--cores", 4, "--workload", "pagecache",
                "--kernel-variant", "stock,radixvm-percore", "--param", "pagecache.iters=50",
                "--param", "pagecache.file_pages=16", "--param", "physmap=1", "--out", out)
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(row["ok"] for row in rows), r.stdout[-3000:]
    maps = physmap.from_console((out / "console.log").read_text(errors="replace"))
    assert sorted(maps) == [1, 2]
    for case, pm in maps.items():
        check_kernel_map(pm, f"case {case}")
