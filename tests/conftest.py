"""Shared fixtures: real builds (SCons), real runs; nothing mocked."""

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vmscale import paths
from vmscale.backends import qemu

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def busy_loops(n: int, nice: int = 0):
    """n processes that each keep a host CPU busy (a competing load), stopped on exit."""
    procs = [subprocess.Popen(["nice", "-n", str(nice), "sh", "-c", "while :; do :; done"],
                              preexec_fn=qemu._die_with_parent) for _ in range(n)]
    try:
        yield procs
    finally:
        for p in procs:
            p.kill()
            p.wait()


def pytest_addoption(parser):
    parser.addoption("--competing-load", type=int, default=int(os.environ.get("VMSCALE_TEST_LOAD") or 0),
                     metavar="N", help="run the whole session beside N busy loops, as on a shared machine "
                                       "(default: $VMSCALE_TEST_LOAD or 0)")


def pytest_report_header(config):
    n = config.getoption("--competing-load")
    return [f"vmscale: competing load of {n} busy loop(s) on {len(os.sched_getaffinity(0))} host CPUs"
            if n else "vmscale: no competing load (--competing-load N or VMSCALE_TEST_LOAD=N to add one)"]


@pytest.fixture(scope="session", autouse=True)
def competing_load(request):
    n = request.config.getoption("--competing-load")
    with busy_loops(n):
        yield n


def pytest_terminal_summary(terminalreporter, config):
    n = config.getoption("--competing-load")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    terminalreporter.write_line(f"vmscale: competing load {n} busy loop(s); load average now {load}")


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
    return paths.build_dir() / "workloads"


# Flavour builds started in the background, by flavour: (process, log path).
_BACKGROUND = {}


def _start_background_build(flavor: str):
    """Build a flavour at the lowest priority while the tests before its first user run.  Most
    of them leave a host CPU idle (gem5 and the model are single-threaded), and at nice 19 the
    build takes under 2% of a CPU a test keeps busy: on a 2-core CI most of the debug kernel's
    7 minutes are spent beside the tests instead of after them."""
    log = paths.build_dir() / f"background-{flavor}-kernel.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as f:
        p = subprocess.Popen(["nice", "-n", "19", sys.executable, "-m", "vmscale", "build", "kernel",
                              "--flavor", flavor], cwd=REPO, stdout=f, stderr=subprocess.STDOUT,
                             preexec_fn=os.setpgrp)   # its own group to stop, the same session:
    # a new session would be a new scheduler autogroup, in which nice 19 weighs as much as the tests'

    _BACKGROUND[flavor] = (p, log)


def _stop_background_builds():
    for p, _ in _BACKGROUND.values():
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, 15)
            p.wait()


@pytest.fixture(scope="session")
def kernel_built(workloads_built, request):
    """Builds (incrementally) the normal kernel and the image: the test command needs them."""
    if not Path("/usr/src/linux-source-6.12.tar.xz").exists() and not os.environ.get("VMSCALE_KERNEL_SOURCE"):
        pytest.skip("no Linux 6.12 source: apt-get install linux-source-6.12")
    vmscale("build", "all", check=True, timeout=3600)
    # the debug kernel is only wanted by tests that boot QEMU
    wanted = any("debug_kernel" in getattr(item, "fixturenames", ()) for item in request.session.items)
    if wanted and shutil.which("qemu-system-x86_64") and "debug" not in _BACKGROUND:
        _start_background_build("debug")
        request.session.config.add_cleanup(_stop_background_builds)
    return paths.build_dir() / "kernel" / "normal"


@pytest.fixture(scope="session")
def qemu_ready(kernel_built):
    if not shutil.which("qemu-system-x86_64"):
        pytest.skip("qemu-system-x86_64 not installed: apt-get install qemu-system-x86")
    return kernel_built


def flavor_kernel(flavor: str) -> Path:
    if flavor in _BACKGROUND:      # wait for its background build; the build below then finds it done
        _BACKGROUND[flavor][0].wait(timeout=3600)
    vmscale("build", "kernel", "--flavor", flavor, check=True, timeout=3600)
    return paths.build_dir() / "kernel" / flavor


@pytest.fixture(scope="session")
def debug_kernel(qemu_ready):
    """DEBUG_VM, lockdep, atomic-sleep and RCU checks (kernel-patches/config/debug.config)."""
    return flavor_kernel("debug")


@pytest.fixture(scope="session")
def kasan_kernel(qemu_ready):
    """The debug checks plus generic KASAN (kernel-patches/config/kasan.config)."""
    return flavor_kernel("kasan")


@pytest.fixture
def runs(tmp_path, monkeypatch):
    monkeypatch.setenv("VMSCALE_RUNS", str(tmp_path / "runs"))
    return tmp_path / "runs"


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    """A real single-node Slurm (munge, slurmctld, slurmd) on this machine, or a skip saying why."""
    import socket
    import time
    for tool in ("munged", "slurmctld", "slurmd", "sbatch", "squeue"):
        if not shutil.which(tool) and not Path(f"/usr/sbin/{tool}").exists():
            pytest.skip(f"{tool} not installed: apt-get install slurmd slurmctld slurm-client munge")
    if os.geteuid() != 0:
        pytest.skip("starting slurmd here needs root")
    d = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool"):
        (d / sub).mkdir()
    host = socket.gethostname().split(".")[0]
    mem = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20 * 0.8)
    conf = d / "slurm.conf"
    conf.write_text("\n".join([
        "ClusterName=vmscaletest", f"SlurmctldHost={host}", "SlurmUser=root", "SlurmdUser=root",
        "SlurmctldPort=16817", "SlurmdPort=16818", "AuthType=auth/munge",
        f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool",
        f"SlurmctldPidFile={d}/slurmctld.pid", f"SlurmdPidFile={d}/slurmd.pid",
        f"SlurmctldLogFile={d}/slurmctld.log", f"SlurmdLogFile={d}/slurmd.log",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU_Memory", "MpiDefault=none",
        "ReturnToService=2", "JobCompType=jobcomp/none", "AccountingStorageType=accounting_storage/none",
        f"NodeName={host} CPUs={os.cpu_count()} RealMemory={mem} State=UNKNOWN",
        f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP", ""]))
    env = dict(os.environ, SLURM_CONF=str(conf))
    Path("/run/munge").mkdir(parents=True, exist_ok=True)
    if subprocess.run(["pgrep", "-x", "munged"], capture_output=True).returncode:
        subprocess.run(["munged", "--force"], capture_output=True)
    started = [subprocess.run([daemon, "-f", str(conf)], capture_output=True, text=True, env=env)
               for daemon in ("slurmctld", "slurmd")]
    ok = False
    for _ in range(40):
        r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=env)
        if r.returncode == 0 and r.stdout.strip() in ("idle", "mixed", "allocated"):
            ok = True
            break
        time.sleep(0.5)
    if not ok:
        why = "; ".join(s.stderr.strip() for s in started if s.stderr.strip()) or r.stderr.strip()
        pytest.skip(f"local Slurm did not start: {why or 'node never became idle'}")
    yield env
    for pid in ("slurmctld.pid", "slurmd.pid"):
        try:
            os.kill(int((d / pid).read_text()), 15)
        except (OSError, ValueError):
            pass
