"""One `vmscale build` at a time per build tree: a second one waits for the first."""

import os
import subprocess
import sys

from conftest import REPO
from vmscale import fileutil


def test_a_second_build_waits_for_the_first(tmp_path):
    # a build tree of its own: the session's tree may be held by a background kernel build
    tree = tmp_path / "build"
    env = dict(os.environ, VMSCALE_BUILD=str(tree))
    with fileutil.exclusive(tree / ".build.lock", "test"):
        p = subprocess.Popen([sys.executable, "-m", "vmscale", "build", "workloads"], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = p.stdout.readline()        # blocks until the second build says it waits (or ends)
        assert "vmscale build: held by pid" in first and "waiting for it" in first, first
        assert p.poll() is None            # and it does wait while the lock is held
    out = first + p.communicate(timeout=600)[0]
    assert p.returncode == 0, out
    assert (tree / "workloads" / "refcount").is_file()     # and then built, in its own tree
