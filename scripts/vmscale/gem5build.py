"""`vmscale build gem5`: vmscale's gem5 patches applied to a gem5 v24.0.0.1 source tree the user
points at, then gem5 configured and built there (build/X86/gem5.opt).  Nothing is fetched: the
tree comes from the user (a git clone at tag v24.0.0.1, or the release tarball).

The patches (sim-configs/gem5-patches, `git format-patch` output) add x2APIC mode, so the X86
board boots past 254 cores; each one's header says what it changes, why, and how it was tested.
Applying is idempotent: a patch already in the tree is left as it is, so an interrupted build is
continued by running the same command again (scons keeps what it compiled).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

from vmscale import paths
from vmscale.errors import VmscaleError

PATCH_DIR = paths.REPO / "sim-configs" / "gem5-patches"
VERSION = "24.0.0.1"
# v24.0's SConstruct fails its configure step under newer SCons (../shared/gem5/README.md).
SCONS_VERSION = "4.7.0"
BITS_PER_SET = 256   # Ruby controllers up to 256: one L1 per core at the top of the range


def patches(patch_dir: Path = PATCH_DIR) -> list:
    found = sorted(patch_dir.glob("*.patch"))
    if not found:
        raise VmscaleError(f"no gem5 patches in {patch_dir}", "restore sim-configs/gem5-patches from git")
    return found


def source_version(src: Path) -> str:
    """The gem5 version a source tree says it is (src/base/version.cc)."""
    f = src / "src" / "base" / "version.cc"
    if not f.is_file():
        raise VmscaleError(f"{src} is not a gem5 source tree (no src/base/version.cc)",
                           f"point --gem5-source at a gem5 v{VERSION} checkout")
    m = re.search(r'gem5Version\s*=\s*"([^"]+)"', f.read_text())
    return m.group(1) if m else "?"


def _git_apply(src: Path, patch: Path, *flags) -> subprocess.CompletedProcess:
    # Run in the tree: git apply works in a plain directory (a release tarball) as well as in a clone.
    return subprocess.run(["git", "apply", *flags, str(patch)], cwd=src, capture_output=True, text=True)


def apply(src: Path, patch_dir: Path = PATCH_DIR, log=print) -> list:
    """Apply each patch not yet in the tree; returns [(patch name, 'applied' | 'already there')]."""
    if shutil.which("git") is None:
        raise VmscaleError("git is not installed (it applies the gem5 patches)", "apt-get install git")
    version = source_version(src)
    if version != VERSION:
        raise VmscaleError(f"{src} is gem5 {version}; the patches are for gem5 v{VERSION}",
                           f"check out tag v{VERSION} of https://github.com/gem5/gem5")
    done = []
    for patch in patches(patch_dir):
        check = _git_apply(src, patch, "--check")
        if check.returncode == 0:
            r = _git_apply(src, patch)
            if r.returncode:
                raise VmscaleError(f"{patch.name} failed to apply to {src}: {r.stderr.strip()}")
            state = "applied"
        elif _git_apply(src, patch, "--reverse", "--check").returncode == 0:
            state = "already there"
        else:
            why = check.stderr.strip().splitlines()
            raise VmscaleError(f"{patch.name} does not apply to {src} ({why[0] if why else 'conflict'})",
                               f"use an unmodified gem5 v{VERSION} tree")
        log(f"gem5: {patch.name}: {state}")
        done.append((patch.name, state))
    return done


def scons_command(scons: str = None) -> list:
    """The SCons to run gem5's build with: --scons, else `scons` on PATH; its version is checked."""
    cmd = [scons or shutil.which("scons") or ""]
    if not cmd[0]:
        raise VmscaleError("no `scons` on PATH for gem5's build",
                           f"pip install scons=={SCONS_VERSION} in a venv and pass --scons VENV/bin/scons")
    r = subprocess.run(cmd + ["--version"], capture_output=True, text=True)
    m = re.search(r"SCons: v?(\d+\.\d+\.\d+)", r.stdout)
    if not m:
        raise VmscaleError(f"{cmd[0]} --version did not say which SCons it is")
    if m.group(1) != SCONS_VERSION:
        raise VmscaleError(f"{cmd[0]} is SCons {m.group(1)}; gem5 v24.0's configure needs SCons {SCONS_VERSION}",
                           f"pip install scons=={SCONS_VERSION} in a venv and pass --scons VENV/bin/scons")
    return cmd


def build(src: Path, jobs: int, scons: str = None, python_config: str = None, log=print) -> Path:
    """Apply the patches, configure build/X86 (MESI_Two_Level, NUMBER_BITS_PER_SET=256) once,
    build gem5.opt; returns its path."""
    src = Path(src).resolve()
    apply(src, log=log)
    cmd = scons_command(scons)
    # gem5 v24 reads PYTHON_CONFIG from the environment only (site_scons/gem5_scons/defaults.py), else
    # the first python3-config on PATH: name it, or a PATH with another Python first (pyenv, a venv)
    # changes every compile's flags and so rebuilds everything.
    env = dict(os.environ, **({"PYTHON_CONFIG": python_config} if python_config else {}))
    if not (src / "build" / "X86" / "gem5.build" / "config").is_file():
        _run(cmd + ["defconfig", "build/X86", "build_opts/X86"], src, "configure", env)
        _run(cmd + ["setconfig", "build/X86", f"NUMBER_BITS_PER_SET={BITS_PER_SET}"], src, "configure", env)
    log(f"gem5: building build/X86/gem5.opt with {jobs} jobs (about 2 h on 2 cores; run again to continue)")
    _run(cmd + ["build/X86/gem5.opt", f"-j{jobs}", "--ignore-style"], src, "build", env)
    return src / "build" / "X86" / "gem5.opt"


def _run(cmd: list, cwd: Path, what: str, env: dict):
    r = subprocess.run(cmd, cwd=cwd, env=env)
    if r.returncode:
        raise VmscaleError(f"gem5 {what} failed (exit {r.returncode}): {' '.join(cmd)}", "see the messages above")
