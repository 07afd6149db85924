"""`vmscale build`: workloads, the guest image and kernels, through SConstruct.local."""

import subprocess
import sys
from pathlib import Path

from vmscale import paths
from vmscale.errors import VmscaleError
from vmscale.kernel import FLAVORS


def register(sub):
    b = sub.add_parser("build", help="build workloads, the guest image and kernels (SConstruct.local)")
    b.add_argument("what", nargs="?", default="all", choices=["all", "workloads", "image", "kernel"],
                   help="what to build (default: all)")
    b.add_argument("--flavor", default="normal", choices=sorted(FLAVORS), help="kernel config flavour")
    b.add_argument("--kernel-source", help="a Linux 6.12.y tarball (default: Debian's linux-source-6.12)")
    b.add_argument("--jobs", type=int, help="parallel make jobs (default: host CPUs)")
    b.set_defaults(func=main)


def main(args):
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
    r = subprocess.run(cmd)
    if r.returncode:
        raise VmscaleError(f"build of {args.what} failed (scons exit {r.returncode})", "see the messages above")
    return 0
