"""The built kernel says where it came from, and says it truly: every sha256 in its manifest
is the hash of the file it names, and the source tree holds the series as `git am` commits,
one per patch, in order, with the patches' own subjects."""

import hashlib
import json
import re
import subprocess

from vmscale import kernel, paths


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def test_manifest_hashes_are_the_files_hashes(kernel_built):
    m = json.loads((kernel_built / "manifest.json").read_text())
    assert m["vmlinux_sha256"] == _sha256(m["vmlinux"])
    assert m["config_sha256"] == _sha256(kernel_built / ".config")
    assert m["source"]["sha256"] == _sha256(m["source"]["tarball"])
    patches = kernel.series_files(paths.PATCH_DIR)
    assert [p["name"] for p in m["patches"]] == [p.name for p in patches]
    for entry, path in zip(m["patches"], patches):
        assert entry["sha256"] == _sha256(path), entry["name"]


def test_the_source_tree_holds_the_series_as_git_am_commits(kernel_built):
    m = json.loads((kernel_built / "manifest.json").read_text())
    from pathlib import Path
    tree = kernel.extract_source(Path(m["source"]["tarball"]))  # the build's tree (extracted if gone)
    patches = kernel.series_files(paths.PATCH_DIR)
    kernel.apply_series(tree, patches)                          # git am, or a no-op when stamped
    log = subprocess.run(["git", "-C", str(tree), "log", "--reverse", "--format=%s%x00%an", "vmscale-base..HEAD"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(log) == len(patches)
    for line, patch in zip(log, patches):
        subject, author = line.split("\0")
        text = patch.read_text()
        want = re.search(r"^Subject: (?:\[PATCH[^\]]*\] )?(.*(?:\n .*)*)", text, re.M).group(1)
        assert subject == " ".join(want.split()), patch.name
        assert author == re.search(r"^From: (.*?) <", text, re.M).group(1), patch.name
    assert subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                          capture_output=True, text=True, check=True).stdout == ""
