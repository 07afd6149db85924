"""Applying the patch series to a source tree with real git: a changed last patch rewrites
only its files, a patch that does not apply is named and leaves a clean tree."""

import subprocess

import pytest

from vmscale import kernel
from vmscale.errors import VmscaleError

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]


def _git(tree, *args):
    return subprocess.run(GIT + ["-C", str(tree), *args], capture_output=True, text=True, check=True).stdout


def _series(tmp_path):
    """A pristine tree (tagged vmscale-base as apply_series expects) and three patches."""
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    for name in "abc":
        (work / name).write_text(f"{name} 0\n")
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", "base")
    base = _git(work, "rev-parse", "HEAD").strip()
    for i, name in enumerate("abc", 1):
        (work / name).write_text(f"{name} {i}\n")
        _git(work, "commit", "-q", "-am", f"change {name}")
    pdir = tmp_path / "patches"
    _git(work, "format-patch", "-q", "-o", str(pdir), base)
    tree = tmp_path / "tree"
    subprocess.run(GIT + ["clone", "-q", str(work), str(tree)], check=True)
    _git(tree, "reset", "-q", "--hard", base)
    _git(tree, "tag", "vmscale-base")
    return tree, pdir, base


def test_series_applies_and_only_a_changed_tail_is_reapplied(tmp_path, capsys):
    tree, pdir, _ = _series(tmp_path)
    patches = kernel.series_files(pdir)
    kernel.apply_series(tree, patches)
    assert [(tree / n).read_text() for n in "abc"] == ["a 1\n", "b 2\n", "c 3\n"]
    assert capsys.readouterr().out.count("applying") == 3
    assert kernel.apply_series(tree, patches) and "applying" not in capsys.readouterr().out  # stamp: no-op
    first_two = _git(tree, "rev-parse", "HEAD~1").strip()
    a_mtime = (tree / "a").stat().st_mtime_ns
    last = patches[-1]
    last.write_text(last.read_text().replace("+c 3", "+c 33"))
    kernel.apply_series(tree, kernel.series_files(pdir))
    out = capsys.readouterr().out
    assert out.count("applying") == 1 and last.name in out
    assert (tree / "c").read_text() == "c 33\n" and _git(tree, "rev-parse", "HEAD~1").strip() == first_two
    assert (tree / "a").stat().st_mtime_ns == a_mtime   # untouched: make would not rebuild it


def test_a_patch_that_does_not_apply_is_named_and_leaves_a_clean_tree(tmp_path):
    tree, pdir, _ = _series(tmp_path)
    bad = kernel.series_files(pdir)[1]
    bad.write_text(bad.read_text().replace("-b 0", "-b nothing-like-this"))
    with pytest.raises(VmscaleError, match=bad.name):
        kernel.apply_series(tree, kernel.series_files(pdir))
    assert not (tree / ".git" / "rebase-apply").exists()           # git am was aborted
    assert _git(tree, "status", "--porcelain") == ""               # nothing half-applied
    assert not (tree / ".git" / "vmscale-series").exists()        # never stamped as applied
