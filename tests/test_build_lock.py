"""One `vmscale build` at a time per build tree: a second one waits for the first."""

import subprocess
import sys
import time

from conftest import REPO
from vmscale import fileutil, paths


def test_a_second_build_waits_for_the_first(workloads_built):
    with fileutil.exclusive(paths.build_dir() / ".build.lock", "test"):
        p = subprocess.Popen([sys.executable, "-m", "vmscale", "build", "workloads"], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(3)
        assert p.poll() is None, p.communicate()[0]            # still waiting while the lock is held
    out = p.communicate(timeout=600)[0]
    assert p.returncode == 0, out
    assert "vmscale build: held by pid" in out and "waiting for it" in out, out
