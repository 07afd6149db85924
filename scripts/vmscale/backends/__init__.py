"""Backends run cases (variant x workload) at one core count and return console + rows.

qemu: boots our kernel and image with N vCPUs (functional; what CI uses).
native: runs the same static workloads on this host (validation on real machines).
gem5: sim-configs/ (see issue 3).
"""

from vmscale.errors import VmscaleError

BACKENDS = ("qemu", "native", "gem5")


def get_backend(name: str):
    if name == "qemu":
        from vmscale.backends import qemu
        return qemu
    if name == "native":
        from vmscale.backends import native
        return native
    if name == "gem5":
        from vmscale.backends import gem5
        return gem5
    raise VmscaleError(f"unknown backend {name!r}", f"use one of {', '.join(BACKENDS)}")
