"""Kernel variants: which run-time switches the guest sets before a workload starts.

A variant is a set of sysctls read when a process's mm is created, so one booted kernel
(one QEMU boot, one gem5 checkpoint) serves every variant.  Issues add variants here as
their kernel patches land.
"""

from vmscale.errors import VmscaleError

_UPSTREAM = {"vm/vmscale_fault": "stock", "vm/vmscale_lazy_mm": "atomic",
             "vm/vmscale_as": "stock", "vm/vmscale_radix_share": "atomic",
             "vm/vmscale_radix_pt": "shared", "vm/vmscale_pagecache": "lockless",
             "vm/vmscale_reclaim": "rcu"}

VARIANTS = {
    # name: {sysctl path under /proc/sys: value}; every variant sets every switch, since
    # the cases of one boot run one after another.
    "stock": dict(_UPSTREAM),
    "rwlock": {**_UPSTREAM, "vm/vmscale_fault": "rwlock"},
    "rcu": {**_UPSTREAM, "vm/vmscale_fault": "rcu"},
    # Refcache (RadixVM): lazy-TLB mm references counted per CPU.
    "refcache": {**_UPSTREAM, "vm/vmscale_lazy_mm": "refcache"},
    # The kernel's percpu_ref as the counting benchmark's counter (mm counting as stock).
    "percpu-ref": dict(_UPSTREAM),
    # RadixVM: private anonymous memory in the radix-tree region; mappings of a
    # shared page counted with Refcache, or (radixvm-atomic) with the page's refcount.
    "radixvm": {**_UPSTREAM, "vm/vmscale_as": "radixvm", "vm/vmscale_radix_share": "refcache"},
    "radixvm-atomic": {**_UPSTREAM, "vm/vmscale_as": "radixvm"},
    # RadixVM with per-core page tables: each CPU maps the region in its own
    # tables, so munmap shoots down only the CPUs that faulted the pages in.
    "radixvm-percore": {**_UPSTREAM, "vm/vmscale_as": "radixvm", "vm/vmscale_radix_share": "refcache",
                        "vm/vmscale_radix_pt": "percore"},
    # ... with a shared page's mappings counted by the page's refcount: Refcache's part of
    # RadixVM Figure 8 without the broadcast shootdowns of shared tables.
    "radixvm-percore-atomic": {**_UPSTREAM, "vm/vmscale_as": "radixvm", "vm/vmscale_radix_pt": "percore"},
    # Piggin's baseline: page-cache lookups under the mapping's lock, as before the
    # lockless page cache (2.6.27); everything else as stock.
    "pagecache-locked": {**_UPSTREAM, "vm/vmscale_pagecache": "locked"},
    # PARSEC: objects retired by the `reclaim` benchmark, and a RadixVM region's radix
    # nodes, are freed by TSC quiescence instead of RCU (kernel 0024-0025).
    "parsec": {**_UPSTREAM, "vm/vmscale_reclaim": "parsec"},
    "radixvm-parsec": {**_UPSTREAM, "vm/vmscale_as": "radixvm", "vm/vmscale_radix_share": "refcache",
                       "vm/vmscale_reclaim": "parsec"},
    # The page allocator's per-CPU lists at their largest fixed size (Linux's own sysctl, its
    # smallest fraction: high = managed pages / 8 / CPUs, no auto-tuning), with RCU or PARSEC
    # reclamation: whether `reclaim`'s zone-lock refills come from lists split over more CPUs.
    "pcp-high": {**_UPSTREAM, "vm/percpu_pagelist_high_fraction": "8"},
    "parsec-pcp-high": {**_UPSTREAM, "vm/vmscale_reclaim": "parsec", "vm/percpu_pagelist_high_fraction": "8"},
}
# Tuning switches some variants set beyond the designs' (upstream sysctls, at their kernel
# default here): a run that holds such a variant sets them back in every other case, and a run
# without one leaves them alone, so its guest script is what it was before they existed.
TUNING = {"vm/percpu_pagelist_high_fraction": "0"}
# The counter the `refcount` workload uses under each variant (RadixVM Figure 8).
COUNTER = {"refcache": "refcache", "percpu-ref": "percpu"}


def upstream(path: str, value: str) -> bool:
    """Does an unpatched kernel, which lacks the switch, already behave as `path=value`?
    Per switch: "rcu" is upstream reclamation but not the upstream fault path."""
    return _UPSTREAM.get(path, TUNING.get(path)) == value


def sysctls(variant: str) -> dict:
    if variant not in VARIANTS:
        raise VmscaleError(f"unknown kernel variant {variant!r}",
                           f"use one of {', '.join(VARIANTS)}")
    return VARIANTS[variant]


def run_sysctls(variant: str, run_variants) -> dict:
    """What a case of `variant` sets in a run of `run_variants` (one boot, cases in sequence):
    its own switches, and the tuning switches any other variant of the run sets, at their default."""
    own = sysctls(variant)
    touched = {k for v in run_variants for k in sysctls(v) if k in TUNING}
    return {**own, **{k: TUNING[k] for k in sorted(touched) if k not in own}}


def counter(variant: str) -> str:
    """The refcount workload's counter under this variant."""
    sysctls(variant)
    return COUNTER.get(variant, "atomic")


def radixvm(variant: str) -> bool:
    return sysctls(variant)["vm/vmscale_as"] == "radixvm"


def reclamation(variant: str) -> str:
    """How the `reclaim` workload retires nodes under this variant: rcu or parsec."""
    return sysctls(variant)["vm/vmscale_reclaim"]


def implied_params(variant: str) -> dict:
    """Workload parameters a variant sets unless the user fixed them (applied to workloads
    that have them): the counting and the reclamation design."""
    return {"counter": counter(variant), "smr": reclamation(variant)}
