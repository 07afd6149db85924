"""Kernel variants: which run-time switches the guest sets before a workload starts.

A variant is a set of sysctls read when a process's mm is created, so one booted kernel
(one QEMU boot, one gem5 checkpoint) serves every variant.  Issues add variants here as
their kernel patches land.
"""

from vmscale.errors import VmscaleError

VARIANTS = {
    # name: {sysctl path under /proc/sys: value}
    "stock": {"vm/vmscale_fault": "stock"},
    "rwlock": {"vm/vmscale_fault": "rwlock"},
    "rcu": {"vm/vmscale_fault": "rcu"},
}
# Variants whose switches a kernel without the vmscale patches still satisfies.
STOCK_COMPATIBLE = {"stock"}


def sysctls(variant: str) -> dict:
    if variant not in VARIANTS:
        raise VmscaleError(f"unknown kernel variant {variant!r}",
                           f"use one of {', '.join(VARIANTS)}")
    return VARIANTS[variant]
