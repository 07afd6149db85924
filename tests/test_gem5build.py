"""`vmscale build gem5`'s patch step (vmscale.gem5build), run for real with git on real trees, and
the project's gem5 patches themselves."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import vmscale
from vmscale import gem5build
from vmscale.errors import VmscaleError


def _tree(root: Path, version="24.0.0.1", text="int apic_ids = 8;\n") -> Path:
    (root / "src" / "base").mkdir(parents=True)
    (root / "src" / "base" / "version.cc").write_text(f'const char *gem5Version = "{version}";\n')
    (root / "src" / "apic.cc").write_text(text)
    return root


def _patch(tmp_path: Path) -> Path:
    """A git-format patch made the way sim-configs/gem5-patches are: a commit in a gem5 tree."""
    repo = _tree(tmp_path / "repo")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    (repo / "src" / "apic.cc").write_text("int apic_ids = 256;\n")
    subprocess.run(git + ["commit", "-qam", "x2apic"], check=True)
    out = tmp_path / "patches"
    subprocess.run(git + ["format-patch", "-q", "-1", "-o", str(out)], check=True)
    return out


def test_patches_apply_once_and_a_second_run_continues(tmp_path):
    patches = _patch(tmp_path)
    src = _tree(tmp_path / "gem5")
    assert gem5build.apply(src, patches, log=lambda *_: None) == [("0001-x2apic.patch", "applied")]
    assert (src / "src" / "apic.cc").read_text() == "int apic_ids = 256;\n"
    # run again (an interrupted build is continued by the same command): nothing is applied twice
    assert gem5build.apply(src, patches, log=lambda *_: None) == [("0001-x2apic.patch", "already there")]
    assert (src / "src" / "apic.cc").read_text() == "int apic_ids = 256;\n"


def test_a_tree_that_is_not_gem5_24_0_0_1_is_refused_before_anything_changes(tmp_path):
    patches = _patch(tmp_path)
    with pytest.raises(VmscaleError, match="is gem5 23.1.0.0; the patches are for gem5 v24.0.0.1"):
        gem5build.apply(_tree(tmp_path / "old", version="23.1.0.0"), patches)
    with pytest.raises(VmscaleError, match="not a gem5 source tree"):
        gem5build.apply(tmp_path / "patches", patches)
    changed = _tree(tmp_path / "changed", text="int apic_ids = 16;\n")
    with pytest.raises(VmscaleError, match="0001-x2apic.patch does not apply.*unmodified gem5"):
        gem5build.apply(changed, patches)
    assert (changed / "src" / "apic.cc").read_text() == "int apic_ids = 16;\n"


def test_build_gem5_without_a_source_tree_says_where_to_get_one():
    r = vmscale("build", "gem5")
    assert r.returncode == 2 and "--gem5-source" in r.stderr and "v24.0.0.1" in r.stderr


def test_the_project_gem5_patches_say_what_why_and_how_tested():
    found = gem5build.patches()
    assert [p.name[:4] for p in found] == [f"{i:04d}" for i in range(1, len(found) + 1)]
    for p in found:
        text = p.read_text()
        assert text.startswith("From ") and re.search(r"^Subject: \[PATCH[^\]]*\] \S", text, re.M), p.name
        message = text.split("\n---\n", 1)[0]
        assert re.search(r"^Tested\b[^\n]*:", message, re.M) and len(message.split("\n\n")) >= 4, p.name
        touched = re.findall(r"^diff --git a/(\S+)", text, re.M)
        assert touched and all(t.startswith("src/") for t in touched), (p.name, touched)


@pytest.mark.skipif(not os.environ.get("GEM5_SOURCE"),
                    reason="GEM5_SOURCE is not set: a gem5 v24.0.0.1 tree to check the patches against")
def test_the_project_gem5_patches_apply_to_gem5_v24_0_0_1():
    src = Path(os.environ["GEM5_SOURCE"])
    for p in gem5build.patches():
        ok = any(subprocess.run(["git", "apply", *flags, str(p)], cwd=src, capture_output=True).returncode == 0
                 for flags in (["--check"], ["--reverse", "--check"]))
        assert ok, p.name
