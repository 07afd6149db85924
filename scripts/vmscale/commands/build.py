"""`vmscale build`: workloads, the guest image and kernels, through SConstruct.local; and, on
request only, gem5 itself from a source tree the user gives (vmscale.gem5build)."""

import subprocess
import sys
from pathlib import Path

from vmscale import paths
from vmscale.errors import VmscaleError
from vmscale.kernel import FLAVORS


def register(sub):
    b = sub.add_parser("build", help="build workloads, the guest image and kernels (SConstruct.local)")
    b.add_argument("what", nargs="?", default="all", choices=["all", "workloads", "image", "kernel", "gem5"],
                   help="what to build (default: all; gem5 only when asked: --gem5-source)")
    b.add_argument("--flavor", default="normal", choices=sorted(FLAVORS), help="kernel config flavour")
    b.add_argument("--kernel-source", help="a Linux 6.12.y tarball (default: Debian's linux-source-6.12)")
    b.add_argument("--jobs", type=int, help="parallel make jobs (default: host CPUs)")
    b.add_argument("--gem5-source", help="gem5: a gem5 v24.0.0.1 source tree; vmscale's patches "
                                         "(sim-configs/gem5-patches) are applied to it and it is built there")
    b.add_argument("--scons", help="gem5: the SCons to build it with (default: scons on PATH; must be 4.7.0)")
    b.add_argument("--python-config", help="gem5: python3-config of the Python to embed (default: the first "
                                            "python3-config on PATH)")
    b.set_defaults(func=main)


def main(args):
    if args.what == "gem5":
        return build_gem5(args)
    try:
        import SCons  # noqa: F401  (run as `python -m SCons`, from this interpreter)
    except ImportError:
        raise VmscaleError("SCons is not installed for this Python", "bash scripts/setup.sh (or pip install scons)")
    targets = {"all": ["workloads", "image", "kernel"]}.get(args.what, [args.what])
    if "kernel" in targets:
        from vmscale import kernel
        kernel.resolve_source(args.kernel_source)  # a clear error before scons starts
    cmd = [sys.executable, "-m", "SCons", "-Q", "-f", str(paths.REPO / "SConstruct.local"), "-C", str(paths.REPO),
           f"flavor={args.flavor}"] + targets
    if args.kernel_source:
        cmd.append(f"kernel_source={Path(args.kernel_source).resolve()}")
    if args.jobs:
        cmd.append(f"jobs={args.jobs}")
    # One build at a time in a build tree: two kernel builds in one output tree corrupt each
    # other's dependency files (seen: a test's fixture and a user's build at once).
    from vmscale import fileutil
    with fileutil.exclusive(paths.build_dir() / ".build.lock", "vmscale build"):
        r = subprocess.run(cmd)
    if r.returncode:
        raise VmscaleError(f"build of {args.what} failed (scons exit {r.returncode})", "see the messages above")
    return 0


def build_gem5(args):
    import os

    from vmscale import gem5build
    if not args.gem5_source:
        raise VmscaleError("vmscale build gem5 needs --gem5-source DIR",
                           f"git clone --branch v{gem5build.VERSION} https://github.com/gem5/gem5 DIR (vmscale "
                           "fetches nothing itself)")
    gem5 = gem5build.build(Path(args.gem5_source), args.jobs or os.cpu_count() or 1,
                           scons=args.scons, python_config=args.python_config)
    print(f"gem5: built; use it with\n  export GEM5={gem5}")
    return 0
