"""Shared fixtures: real builds (SCons), real runs; nothing mocked."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def vmscale(*args, env=None, check=False, timeout=3600):
    """Run the CLI as a user would; returns the CompletedProcess (text)."""
    e = dict(os.environ, **(env or {}))
    r = subprocess.run([sys.executable, "-m", "vmscale", *map(str, args)], capture_output=True, text=True,
                       env=e, timeout=timeout, cwd=REPO)
    if check and r.returncode:
        raise AssertionError(f"vmscale {' '.join(map(str, args))} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


@pytest.fixture(scope="session")
def workloads_built():
    vmscale("build", "workloads", check=True, timeout=600)
    return REPO / "build" / "workloads"


@pytest.fixture(scope="session")
def kernel_built(workloads_built):
    """Builds (incrementally) the normal kernel and the image: the test command needs them."""
    if not Path("/usr/src/linux-source-6.12.tar.xz").exists() and not os.environ.get("VMSCALE_KERNEL_SOURCE"):
        pytest.skip("no Linux 6.12 source: apt-get install linux-source-6.12")
    vmscale("build", "all", check=True, timeout=3600)
    return REPO / "build" / "kernel" / "normal"


@pytest.fixture(scope="session")
def qemu_ready(kernel_built):
    if not shutil.which("qemu-system-x86_64"):
        pytest.skip("qemu-system-x86_64 not installed: apt-get install qemu-system-x86")
    return kernel_built


@pytest.fixture
def runs(tmp_path, monkeypatch):
    monkeypatch.setenv("VMSCALE_RUNS", str(tmp_path / "runs"))
    return tmp_path / "runs"
