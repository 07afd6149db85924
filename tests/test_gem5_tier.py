"""gem5's own account of the machines we ask for: each interconnect on each network, and
each CPU model, instantiated by real gem5 and run for one simulated millisecond of the
boot at 4 cores.  The expected router and link counts are worked out by hand here:

4 cores, 1 L2 bank, 1 directory, 2 DMA engines = 8 controllers, each on one external link;
- crossbar: a router per controller and one central router: 9 routers, 2 x 8 = 16 links;
- point-to-point: 8 routers, every ordered pair linked: 8 x 7 = 56 links;
- ring: a router per core: 4 routers, 2 links per router: 8;
- mesh: 2 x 2 routers, 4 edges both ways: 8 links.
"""

import os
import subprocess

import pytest

from conftest import REPO
from vmscale import paths
from vmscale_gem5 import configini

GEM5 = os.environ.get("GEM5")
pytestmark = [pytest.mark.gem5,
              pytest.mark.skipif(not GEM5, reason="GEM5 is not set: export GEM5=/path/to/build/X86/gem5.opt")]

EXPECTED = {"crossbar": (9, 16), "pt2pt": (8, 56), "ring": (4, 8), "mesh": (4, 8)}
ROUTER = {"simple": "Switch", "garnet": "GarnetRouter"}
INT_LINK = {"simple": "SimpleIntLink", "garnet": "GarnetIntLink"}


def _slice(kernel_built, out, *args):
    """One millisecond of the boot; returns config.ini parsed."""
    cmd = [GEM5, "-d", str(out), str(REPO / "sim-configs" / "vmscale_fs.py"),
           "--kernel", str(kernel_built / "vmlinux"), "--disk", str(paths.image_path()),
           "--cores", "4", "--mode", "run", "--max-seconds", "0.001", "--progress", "0.001", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    # stopped by --max-seconds at the first progress period: the Simulator's max_ticks per run
    assert "exit cause='simulate() limit reached' tick=1000000000 " in r.stdout + r.stderr
    return configini.parse((out / "config.ini").read_text())


def cp_type(out, type_name) -> int:
    return len(_typed(configini.parse((out / "config.ini").read_text()), type_name))


def _typed(cp, type_name):
    return [s for s in cp.sections() if cp[s].get("type") == type_name]


@pytest.mark.parametrize("network", ["simple", "garnet"])
@pytest.mark.parametrize("topology", sorted(EXPECTED))
def test_every_interconnect_is_built_as_asked(kernel_built, tmp_path, topology, network):
    cp = _slice(kernel_built, tmp_path, "--cpu", "timing", "--topology", topology, "--network", network,
                "--link-latency", "3", "--router-latency", "2")
    routers, int_links = _typed(cp, ROUTER[network]), _typed(cp, INT_LINK[network])
    assert (len(routers), len(int_links)) == EXPECTED[topology]
    assert {cp[s]["latency"] for s in routers} == {"2"}
    assert {cp[s]["latency"] for s in int_links} == {"3"}
    ext = [s for s in cp.sections() if cp[s].get("type", "").endswith("ExtLink")]
    assert len(ext) == 8


@pytest.mark.parametrize("cpu, gem5_type", [("timing", "BaseTimingSimpleCPU"), ("o3", "BaseO3CPU")])
def test_every_measuring_cpu_model_runs_on_ruby(kernel_built, tmp_path, cpu, gem5_type):
    _slice(kernel_built, tmp_path, "--cpu", cpu)
    d = configini.describe((tmp_path / "config.ini").read_text())
    assert d["cores"] == 4 and d["cpu_types"] == [gem5_type]
    assert d["ruby"] and d["l1_controllers"] == 4
    assert {cp_type(tmp_path, "L1Cache_Controller")} == {4}


def test_atomic_boots_without_caches_and_is_refused_on_ruby(kernel_built, tmp_path):
    _slice(kernel_built, tmp_path / "boot", "--cpu", "atomic", "--memory-system", "none")
    d = configini.describe((tmp_path / "boot" / "config.ini").read_text())
    assert d["cpu_types"] == ["BaseAtomicSimpleCPU"] and not d["ruby"]
    r = subprocess.run([GEM5, "-d", str(tmp_path / "x"), str(REPO / "sim-configs" / "vmscale_fs.py"),
                        "--kernel", str(kernel_built / "vmlinux"), "--disk", str(paths.image_path()),
                        "--cores", "4", "--cpu", "atomic"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "--cpu atomic with Ruby measures nothing" in r.stdout + r.stderr
