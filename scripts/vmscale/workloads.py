"""The guest workloads as the host sees them: names, parameters, validation.

The C harness is the single source of truth: each built workload describes its own
parameters (`WORKLOAD --describe`), and runs are validated against that before a
machine boots.
"""

import json
import subprocess
from functools import lru_cache

from vmscale import paths
from vmscale.errors import VmscaleError

NAMES = ["local", "pipeline", "global", "pageshare", "fault", "pagecache", "stress", "selftests",
         "metis", "psearchy", "dedup", "refcount", "lazymm", "footprint", "vmapi", "tlbstale", "stall",
         "forkcopy", "stressng", "reclaim", "ccbench"]
APPLICATIONS = ["metis", "psearchy", "dedup"]
# Guest shell scripts (guest-workloads/NAME.sh); every other name is a C program on the shared
# harness, which SConstruct.local builds from this list.
SCRIPTS = ["selftests", "stall", "stressng"]
PROGRAMS = [n for n in NAMES if n not in SCRIPTS]
# Checks rather than benchmarks: the kernel's own selftests, and a deliberate stall that
# proves a run's stall detectors fire (it makes its run fail).
CHECKS = ["selftests", "stall", "stressng"]
# Workloads that drive a vmscale kernel interface, which a host kernel may lack.
KERNEL_INTERFACES = {"refcount": "/proc/refcache_bench", "reclaim": "/proc/parsec_bench", "stall": "/proc/sys/debug/vmscale_stall_ms"}


def prefix_maps(repo, build) -> list:
    """gcc flags that map the checkout and the build tree to fixed names in what is compiled
    (debug information, __FILE__).  gcc tries the last map given first: the build tree, which
    may lie inside the checkout, comes after it."""
    return [f"-ffile-prefix-map={repo}=.", f"-ffile-prefix-map={build}=build"]


def thread_count(value: str, cores: int) -> int:
    """Threads of a case: one per core unless a user asks for fewer (a single-threaded process
    on a many-core machine, e.g. the cost of one fork); more would measure the scheduler."""
    if not value.isdigit() or not 1 <= int(value) <= cores:
        raise VmscaleError(f"--param threads={value}: give 1 to {cores} (the cores; the default is one per core)")
    return int(value)


@lru_cache(maxsize=None)
def describe(name: str) -> dict:
    if name not in NAMES:
        raise VmscaleError(f"unknown workload {name!r}", f"use one of {', '.join(NAMES)}")
    binary = paths.workloads_dir() / name
    if not binary.is_file():
        raise VmscaleError(f"workload {name} is not built ({binary} missing)", "run `vmscale build workloads`")
    out = subprocess.run([str(binary), "--describe"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def parse_params(items: list) -> dict:
    """['iters=10', 'local.pages=2'] -> {(None, 'iters'): '10', ('local', 'pages'): '2'}."""
    params = {}
    for item in items or []:
        if "=" not in item or item.startswith("="):
            raise VmscaleError(f"--param {item!r} is not NAME=VALUE", "e.g. --param iters=100 or --param local.pages=2")
        key, value = item.split("=", 1)
        scope, _, name = key.rpartition(".")
        params[(scope or None, name)] = value
    return params


def resolve_params(workloads: list, params: dict) -> dict:
    """Per-workload argument dicts; every given parameter must apply to some workload."""
    per = {w: {} for w in workloads}
    for (scope, name), value in params.items():
        if scope is not None and scope not in workloads:
            raise VmscaleError(f"--param {scope}.{name}: {scope} is not among the workloads run")
        targets = [scope] if scope else workloads
        used = False
        for w in targets:
            spec = describe(w)["params"]
            if name in spec:
                per[w][name] = value
                used = True
        if not used:
            known = sorted(set().union(*(describe(w)["params"] for w in targets)))
            raise VmscaleError(f"unknown parameter {name!r} for {', '.join(targets)}",
                               f"known: {', '.join(known)}")
    return per
