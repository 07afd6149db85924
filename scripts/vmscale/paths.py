"""Where things live: the repository, the build tree and the default run directory."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def build_dir() -> Path:
    """Build outputs (kernels, workloads, image); VMSCALE_BUILD overrides."""
    return Path(os.environ.get("VMSCALE_BUILD", REPO / "build")).resolve()


def runs_dir() -> Path:
    """Default parent of run directories; VMSCALE_RUNS overrides."""
    return Path(os.environ.get("VMSCALE_RUNS", REPO / "runs")).resolve()


def cache_dir() -> Path:
    """Per-user cache of built kernels, shared by every clone on this machine;
    VMSCALE_CACHE overrides (VMSCALE_CACHE=off disables it)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(os.environ.get("VMSCALE_CACHE") or Path(base) / "vmscale").expanduser().resolve()


def cache_enabled() -> bool:
    return os.environ.get("VMSCALE_CACHE", "") != "off"


def kernel_dir(flavor: str) -> Path:
    return build_dir() / "kernel" / flavor


def workloads_dir() -> Path:
    return build_dir() / "workloads"


def image_path() -> Path:
    return build_dir() / "image" / "vmscale.img"


PATCH_DIR = REPO / "kernel-patches"
CONFIG_DIR = PATCH_DIR / "config"
WORKLOAD_SRC = REPO / "guest-workloads"
