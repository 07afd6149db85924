"""The per-user kernel cache: a build is reused only for the same source, series, flavour,
fragments and compiler, restored whole, and never from a corrupt entry."""

import json
import shutil

from conftest import vmscale
from vmscale import kernel, paths


def test_every_input_changes_the_key():
    base = dict(source_sha256="a" * 64, series="s1", flavor="normal", fragment_texts=["CONFIG_X=y\n"],
                compiler="gcc 12.2.0")
    key = kernel.cache_key(**base)
    for field, other in (("source_sha256", "b" * 64), ("series", "s2"), ("flavor", "debug"),
                         ("fragment_texts", ["CONFIG_X=n\n"]), ("compiler", "gcc 13.1.0")):
        assert kernel.cache_key(**dict(base, **{field: other})) != key, field
    assert kernel.cache_key(**base) == key


def test_cache_off_writes_no_cache_anywhere(tmp_path, monkeypatch):
    """VMSCALE_CACHE=off is not a directory named "off": the source's hash is computed, not
    remembered in ./off (results/kernel-reproducible/make.sh builds with the cache off)."""
    tarball = tmp_path / "linux.tar.xz"
    tarball.write_bytes(b"not really a tarball")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VMSCALE_CACHE", "off")
    assert kernel._source_sha256(tarball) == kernel.sha256_file(tarball)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["linux.tar.xz"]


def test_cache_off_remembers_no_gem5_hash_either(tmp_path, monkeypatch):
    """The gem5 binary's hash is remembered in the cache too; with the cache off it is computed."""
    from vmscale.backends import gem5
    exe = tmp_path / "gem5.opt"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VMSCALE_CACHE", "off")
    monkeypatch.setenv("GEM5", str(exe))
    assert gem5.binary_sha256() == kernel.sha256_file(exe)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gem5.opt"]


def test_store_then_restore_into_a_fresh_tree(kernel_built, tmp_path, monkeypatch):
    monkeypatch.setenv("VMSCALE_CACHE", str(tmp_path / "cache"))
    manifest = json.loads((kernel_built / "manifest.json").read_text())
    kernel.cache_store("k1", kernel_built, manifest)
    out = tmp_path / "out"
    (out).mkdir()
    (out / ".vmscale-config-key").write_text("stale")
    got = kernel.cache_restore("k1", out)
    assert got["cache"]["key"] == "k1" and got["vmlinux"] == str(out / "vmlinux")
    for f in kernel.CACHED_FILES:
        assert (out / f).read_bytes() == (kernel_built / f).read_bytes(), f
    assert json.loads((out / "manifest.json").read_text())["bzImage"] == str(out / "arch/x86/boot/bzImage")
    assert not (out / ".vmscale-config-key").exists()   # the next real build reconfigures
    assert kernel.cache_restore("k2", out) is None         # a miss


def test_a_corrupt_entry_is_not_used(kernel_built, tmp_path, monkeypatch):
    monkeypatch.setenv("VMSCALE_CACHE", str(tmp_path / "cache"))
    kernel.cache_store("k1", kernel_built, json.loads((kernel_built / "manifest.json").read_text()))
    entry = tmp_path / "cache" / "kernels" / "k1"
    with open(entry / "vmlinux", "r+b") as f:
        f.seek(4096)
        f.write(b"\xff" * 16)
    assert kernel.cache_restore("k1", tmp_path / "out") is None


def test_a_fresh_build_tree_reuses_the_cache(kernel_built, tmp_path, monkeypatch):
    """`vmscale build kernel` in an empty build directory takes the cached kernel, with no
    extraction and no compile, and the manifest says where it came from."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("VMSCALE_CACHE", str(cache))
    env = {"VMSCALE_CACHE": str(cache), "VMSCALE_BUILD": str(tmp_path / "build")}
    manifest = json.loads((kernel_built / "manifest.json").read_text())
    key = kernel.cache_key(manifest["source"]["sha256"], manifest["series_sha256"], "normal",
                           [(paths.CONFIG_DIR / f["name"]).read_text() for f in manifest["fragments"]],
                           kernel._compiler())
    kernel.cache_store(key, kernel_built, manifest)
    # a miss would compile a whole kernel: fail fast instead
    r = vmscale("build", "kernel", env=env, check=True, timeout=120)
    assert "reused from the cache" in r.stdout and "extracting" not in r.stdout
    got = json.loads((tmp_path / "build" / "kernel" / "normal" / "manifest.json").read_text())
    assert got["cache"]["key"] == key and got["vmlinux_sha256"] == manifest["vmlinux_sha256"]
    assert not (tmp_path / "build" / "linux-src").exists()
    shutil.rmtree(cache / "kernels" / key)
