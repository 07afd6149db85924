"""One `vmscale build` at a time per build tree: a second one waits for the first."""

import subprocess
import sys

from conftest import REPO
from vmscale import fileutil, paths


def test_a_second_build_waits_for_the_first(workloads_built):
    with fileutil.exclusive(paths.build_dir() / ".build.lock", "test"):
        p = subprocess.Popen([sys.executable, "-m", "vmscale", "build", "workloads"], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = p.stdout.readline()        # blocks until the second build says it waits (or ends)
        assert "vmscale build: held by pid" in first and "waiting for it" in first, first
        assert p.poll() is None            # and it does wait while the lock is held
    out = first + p.communicate(timeout=600)[0]
    assert p.returncode == 0, out
