"""Reproducible builds: the workloads, the guest image and the kernel give the same bytes when
built again elsewhere, so a record's point re-run on another machine gives the same cycles."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from vmscale import image, kernel, paths
from vmscale.fileutil import sha256_file

# What a checkout needs to build the workloads (SConstruct.local imports the CLI's modules).
CHECKOUT = ["SConstruct.local", "scripts", "guest-workloads", "kernel-patches"]


def _checkout(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for name in CHECKOUT:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / name)
    return dest


def _build_workloads(checkout: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "VMSCALE_BUILD"}   # each checkout's own build/
    r = subprocess.run([sys.executable, "-m", "SCons", "-Q", "-f", str(checkout / "SConstruct.local"),
                        "-C", str(checkout), "workloads"], capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    out = checkout / "build" / "workloads"
    return {str(p.relative_to(out)): sha256_file(p) for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory):
    """The workloads built in two checkouts at different paths (different depths, names)."""
    base = tmp_path_factory.mktemp("repro")
    a = _checkout(base / "a" / "vmscale")
    b = _checkout(base / "elsewhere" / "deeper" / "other-name")
    return (a, _build_workloads(a)), (b, _build_workloads(b))


def test_workloads_built_in_two_checkouts_are_identical(two_builds):
    (a, ha), (b, hb) = two_builds
    assert ha and set(ha) == set(hb)
    differ = [f for f in ha if ha[f] != hb[f]]
    assert not differ, differ
    # and no path of either checkout is left in a binary
    for f in ("refcount", "m5", "obj/harness.o"):
        data = (b / "build" / "workloads" / f).read_bytes()
        assert str(b).encode() not in data and str(a).encode() not in data, f


def test_the_image_built_twice_from_them_is_identical(two_builds, tmp_path):
    """Other staging paths, other file times and modes, another umask: the same image."""
    (a, _), (b, _) = two_builds
    hashes = []
    for k, (checkout, umask) in enumerate(((a, 0o022), (b, 0o002))):
        progs = sorted(p for p in (checkout / "build" / "workloads").iterdir() if p.is_file())
        init = checkout / "guest-workloads" / "init.sh"
        os.utime(init, (1e9 + k * 1000, 1e9 + k * 1000))
        host = [p for p in (shutil.which("stress-ng"),) if p]
        old = os.umask(umask)
        try:
            m = image.build_image(tmp_path / f"img{k}" / "vmscale.img", init, [str(p) for p in progs],
                                  extra={"selftests": [str(checkout / "guest-workloads" / "selftests.expect")]},
                                  host_programs=host)
        finally:
            os.umask(old)
        hashes.append(m["sha256"])
        assert m["reproducible"]["epoch"] == image.EPOCH and m["sha256"] == sha256_file(tmp_path / f"img{k}" / "vmscale.img")
    assert hashes[0] == hashes[1]


def test_image_inodes_are_pinned(tmp_path):
    """Owners, times and modes in the image are the pinned ones, not the staged files'."""
    prog = tmp_path / "prog"
    prog.write_text("#!/bin/sh\n")
    prog.chmod(0o775)
    init = tmp_path / "init.sh"
    init.write_text("#!/bin/sh\n")
    img = tmp_path / "out" / "vmscale.img"
    image.build_image(img, init, [str(prog)])
    stat = subprocess.run(["debugfs", "-R", "stat /bin/prog", str(img)], capture_output=True, text=True).stdout
    assert "User:     0   Group:     0" in stat and "Mode:  0755" in stat, stat
    assert stat.count("Mon Jan  1 00:00:00 2024") == 4, stat   # ctime, atime, mtime, crtime


# The vmlinux hash of the pinned inputs, re-made by `vmscale build kernel` on this workplace's
# Debian 12 (two builds in different directories gave it; see results/README.md).
RECORDED = REPO / "results" / "kernel-reproducible" / "record.json"


@pytest.mark.kernel
def test_the_kernel_is_the_one_recorded_for_its_inputs(kernel_built):
    m = json.loads((paths.kernel_dir("normal") / "manifest.json").read_text())
    rec = json.loads(RECORDED.read_text())
    if m["source"]["sha256"] != rec["source_sha256"]:
        pytest.skip(f"another Linux source ({m['source']['sha256'][:12]}) than the recorded one "
                    f"({rec['source_sha256'][:12]}, {rec['source']})")
    if m["reproducible"]["compiler"] != rec["compiler"]:
        pytest.skip(f"another compiler ({m['reproducible']['compiler']}) than the recorded one ({rec['compiler']})")
    assert m["series_sha256"] == rec["series_sha256"] and m["config_sha256"] == rec["config_sha256"], \
        "the series or config changed: build the kernel and record its inputs and vmlinux_sha256 in " + str(RECORDED)
    assert m["vmlinux_sha256"] == rec["vmlinux_sha256"]


def test_a_figure_drawn_twice_is_the_same_bytes(tmp_path):
    """A record re-made from the same table changes no figure: SVG ids are salted at random and
    an SVG carries its date unless told otherwise (vmscale.plots.save_figure, vmscale_model.plot)."""
    from vmscale import plots
    from vmscale_model import plot as model_plot

    def draw(save, stem):
        fig, ax = plots.plt.subplots()
        ax.plot([1, 2, 4], [1, 1.9, 3.2], label="x")
        ax.legend()
        return [sha256_file(Path(p)) for p in save(fig, str(tmp_path / stem))]
    for save in (plots.save_figure, model_plot._save):
        first, second = draw(save, "a"), draw(save, "b")
        assert first == second and len(first) == 2
    assert b"<dc:date>" not in (tmp_path / "a.svg").read_bytes()
