"""The Board type: one owner for every gem5 option, and what each caller derives from it."""

import ast
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import REPO, vmscale
from vmscale_gem5 import board, limits, options
from vmscale_gem5.board import BOOT, OBSERVER, RESTORE, Board


def test_every_option_is_an_argument_of_the_gem5_script_with_the_same_default():
    p = options.parser()
    by_dest = {a.dest: a for a in p._actions}
    for o in board.OPTIONS:
        assert o.name in by_dest, o.name
        assert by_dest[o.name].default == o.default and by_dest[o.name].type is o.type
        assert tuple(by_dest[o.name].choices or ()) == tuple(o.choices)
    assert {o.role for o in board.OPTIONS} == {BOOT, RESTORE, OBSERVER}


@pytest.mark.parametrize("opts", [{}, {"l2_assoc": "64"}, {"cpu": "o3", "topology": "mesh", "l2_banks": 4},
                                  {"memory": 1536, "x2apic": "on", "link-latency": "3"},
                                  {"topology": "sockets", "socket_cores": "4", "socket_latency": "40"}])
def test_a_label_gives_its_board_back_and_the_argv_gives_its_values(opts):
    b = Board.make(opts)
    assert Board.make(b.label()) == b
    assert Board.make(b.options()) == b
    # what vmscale_fs.py parses from the restore argv is every value of the board
    a = options.parse(["--kernel", "-", "--disk", "-"] + b.restore_argv(8))
    assert all(getattr(a, k) == v for k, v in b.values), [(k, getattr(a, k), v) for k, v in b.values]


def test_the_label_leaves_out_observers_and_defaults_and_the_boot_only_boot_options():
    b = Board.make({"hotlines": "1", "cpu": "timing", "l2_banks": "8", "memory": "1536"})
    assert b.label() == "l2_banks=8 memory=1536"
    assert b.boot_items() == (("memory", "1536"),)
    assert b.boot_argv(4) == ["--cores", "4", "--memory", "1536"]
    assert "--hotlines" in b.restore_argv(4) and "--l2-banks" in b.restore_argv(4)
    assert Board.make({}).label() == "" and Board.make({"board": "default"}).label() == ""


def test_a_tail_cpu_is_a_restore_option_named_in_the_label_and_switches_only_when_it_differs(tmp_path):
    b = Board.make({"board": "e7-8870", "cpu": "o3", "tail_cpu": "timing"})
    assert b.label() == "board=e7-8870 cpu=o3 tail_cpu=timing"
    assert b.boot_items() == Board.make({"board": "e7-8870"}).boot_items()    # the Timing runs' checkpoint
    argv = b.restore_argv(10)
    assert argv[argv.index("--tail-cpu") + 1] == "timing"
    assert options.tail_switch(b.namespace(10))
    assert not options.tail_switch(Board.make({"cpu": "o3", "tail_cpu": "o3"}).namespace(10))
    assert not options.tail_switch(Board.make({"cpu": "o3"}).namespace(10))


def test_restore_options_share_one_checkpoint_and_boot_options_do_not():
    jobs = [(8, {"l2_banks": b, "topology": t, "cpu": c}) for b in ("1", "8") for t in ("crossbar", "mesh")
            for c in ("timing", "o3")]
    assert board.checkpoint_groups(jobs) == [(8, ())]
    jobs += [(8, {"memory": "1536", "l2_banks": "8"}), (16, {"topology": "mesh"})]
    assert board.checkpoint_groups(jobs) == [(8, ()), (8, (("memory", "1536"),)), (16, ())]


@pytest.mark.parametrize("opts, message", [
    ({"l2_bank": "8"}, "not a gem5 option"), ({"l2_banks": "eight"}, "not int"),
    ({"topology": "torus"}, "use one of"), ({"tail_cpu": "atomic"}, "use one of"), ({"board": "xeon-9999"}, "no such board"), ("l2_banks", "KEY=VALUE")])
def test_bad_options_are_refused_with_the_reason(opts, message):
    with pytest.raises(limits.ConfigError, match=message):
        Board.make(opts)


def test_bad_gem5_options_are_usage_errors_before_anything_runs(tmp_path):
    r = vmscale("run", "--backend", "gem5", "--cores", "2", "--workload", "local", "--gem5", "l2_banks=eight",
                "--out", tmp_path / "x")
    assert r.returncode == 2 and "not int" in r.stderr
    assert not (tmp_path / "x").exists()


def test_no_other_list_of_option_names_remains():
    """Outside board.py no code names a board option in a string literal: every caller asks the Board."""
    # cpu, memory, clock and hotlines are also words of other vocabularies (a row's cpu column, a
    # command's name): the rest are the options' own
    from vmscale_gem5 import topology
    names = {o.name for o in board.OPTIONS} - {"cpu", "memory", "clock", "hotlines"} - set(topology.KINDS)
    offenders = []
    for folder in ("scripts", "queueing-model", "sim-configs"):
        for path in (REPO / folder).rglob("*.py"):
            if path.name == "board.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}")
    # topology kinds are the topology module's own vocabulary, not option names
    offenders = [o for o in offenders if "topology.py" not in o]
    assert not offenders, offenders


def test_the_sockets_topology_fills_sockets_in_order_and_reaches_every_socket_in_two_hops():
    from vmscale_gem5 import topology
    g = topology.build("sockets", topology.controller_counts(80, 8, 8), socket_cores=10, socket_latency=40,
                       socket_port_latency=20)
    assert g.routers == 16 and g.ext[:80] == [i // 10 for i in range(80)]
    assert g.ext[80:88] == list(range(8)) and g.ext[88:96] == list(range(8))   # a bank and a channel per socket
    # socket router -> its port -> 1 or 2 socket links -> the far port -> that socket's router
    dist = [g.hops(0, s) for s in range(8)]
    assert sorted(dist) == [0, 3, 3, 3, 4, 4, 4, 4]         # 3 QPI neighbours, the other 4 two links away
    ports = range(8, 16)
    assert all(len([l for l in g.links if l.src == p and l.dst in ports]) == 3 for p in ports)
    assert {l.latency for l in g.links if l.src in ports and l.dst in ports} == {40}
    assert {l.latency for l in g.links if l.src < 8 or l.dst < 8} == {20}
    one = topology.build("sockets", topology.controller_counts(10, 1, 8), socket_cores=10)
    assert one.routers == 1 and set(one.ext) == {0}
    with pytest.raises(ValueError, match="do not fit"):
        topology.build("sockets", topology.controller_counts(30, 2, 2), sockets=2, socket_cores=10)
    with pytest.raises(ValueError, match="at least one core"):
        topology.build("sockets", topology.controller_counts(4, 1, 1), socket_cores=0)


def test_a_large_machines_mean_distances_are_the_per_pair_searches_mean():
    """Past 256 routers the means come from one compiled search per source (scipy), below from one
    Python search per source: both are the mean over every pair of controllers of its path."""
    from vmscale_gem5 import topology
    g = topology.build("mesh", topology.controller_counts(300, 4, 2), link_latency=7, router_latency=3)
    l1s, banks = range(300), range(300, 304)
    assert g._mean_scipy("cycles", {g.ext[i]: 1 for i in l1s}, {g.ext[b]: 1 for b in banks}) is not None
    by_pair = sum(g.cycles(g.ext[a], g.ext[b]) for a in l1s for b in banks) / (300 * 4)
    assert g.mean_cycles(l1s, banks) == pytest.approx(by_pair)
    hops = sum(g.hops(g.ext[a], g.ext[b]) for a in l1s for b in l1s) / 300 ** 2
    assert g.mean_hops(l1s, l1s) == pytest.approx(hops)
    assert g.cycles(5, 5) == 3.0 and g.hops(5, 5) == 0


GEM5_SPEC = """
name = "boards"
backend = "gem5"
[axes]
cores = [8]
kernel_variant = ["stock"]
workload = ["refcount"]
"gem5.l2_banks" = [1, 8]
"gem5.topology" = ["crossbar", "mesh"]
"""


def _gem5_env():
    # `sweep slurm` checks that GEM5 names an executable; the held tasks below never start it.
    return {"GEM5": os.environ.get("GEM5") or shutil.which("true")}


def _checkpoint_tasks(sbatch: str) -> list:
    assert re.search(r"#SBATCH --array=0-(\d+)", sbatch)
    return re.findall(r"vmscale checkpoint --cores \d+[^']*", sbatch)


def test_a_sweep_over_restore_options_writes_one_checkpoint_task(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(GEM5_SPEC)
    r = vmscale("sweep", "slurm", spec, "--out", tmp_path / "sw", env=_gem5_env())
    assert r.returncode == 0, r.stderr
    sb = (tmp_path / "sw" / "slurm" / "checkpoints.sbatch").read_text()
    assert "#SBATCH --array=0-0\n" in sb and _checkpoint_tasks(sb) == ["vmscale checkpoint --cores 8"]
    # a boot option in the axes makes a boot per value
    spec.write_text(GEM5_SPEC.replace('"gem5.topology"', '"gem5.memory" = [1536, 2048]\n"gem5.topology"'))
    r = vmscale("sweep", "slurm", spec, "--out", tmp_path / "sw2", env=_gem5_env())
    assert r.returncode == 0, r.stderr
    sb = (tmp_path / "sw2" / "slurm" / "checkpoints.sbatch").read_text()
    assert "#SBATCH --array=0-1\n" in sb
    assert _checkpoint_tasks(sb) == ["vmscale checkpoint --cores 8", "vmscale checkpoint --cores 8 --gem5 memory=1536"]


def test_real_slurm_takes_one_checkpoint_task_for_the_spec(slurm, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(GEM5_SPEC)
    env = dict(slurm, **_gem5_env())
    assert vmscale("sweep", "slurm", spec, "--out", tmp_path / "sw", env=env).returncode == 0
    sdir = tmp_path / "sw" / "slurm"
    r = subprocess.run(["sbatch", "--parsable", "--hold", "checkpoints.sbatch"], cwd=sdir, capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0, r.stderr
    job = r.stdout.strip().split(";")[0]
    try:
        tasks = []
        for _ in range(30):
            q = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%i"], capture_output=True, text=True, env=env)
            tasks = q.stdout.split()
            if tasks:
                break
            time.sleep(1)
        assert tasks == [f"{job}_0"], q.stdout + q.stderr
    finally:
        subprocess.run(["scancel", job], env=env)


def test_the_reference_board_is_a_value_of_the_board_type():
    b = Board.make({"board": "e7-8870"})
    assert b.label() == "board=e7-8870" and Board.make(b.label()) == b
    assert b.boot_items() == (("clock", "2.4GHz"), ("mem_channels", "8"))
    # whole sockets of 10 cores, an L2 bank per socket: 80 cores are 8 sockets, 8 banks
    a = b.namespace(80)
    assert (options.sockets(a), a.l2_banks) == (8, 8)
    assert b.namespace(20).l2_banks == 2 and b.namespace(10).l2_banks == 1
    assert Board.make("board=e7-8870 cpu=o3").label() == "board=e7-8870 cpu=o3"
    # a value set back to the default is still named: the preset's differs
    assert "topology=crossbar" in Board.make({"board": "e7-8870", "topology": "crossbar"}).label()


@pytest.mark.parametrize("opts, cores, message", [
    ({"board": "e7-8870", "l2_size": "64"}, 80, "smaller than the 80 cores' L1s"),
    ({"board": "e7-8870", "socket_cores": "0"}, 8, "at least one core"),
    ({"board": "e7-8870", "sockets": "2"}, 40, "do not fit"),
])
def test_the_reference_board_refuses_what_it_cannot_be(opts, cores, message):
    with pytest.raises(limits.ConfigError, match=message):
        Board.make(opts).check(cores)


def test_a_bad_board_is_refused_before_gem5_starts_and_writes_nothing(tmp_path):
    r = vmscale("run", "--backend", "gem5", "--cores", "8", "--workload", "local", "--gem5", "board=e7-9999",
                "--out", tmp_path / "x")
    assert r.returncode == 2 and "no such board" in r.stderr and not (tmp_path / "x").exists()
    r = vmscale("checkpoint", "--cores", "8", "--gem5", "board=e7-8870", "--gem5", "l2_size=64",
                env={"GEM5": os.environ.get("GEM5") or shutil.which("true")})
    assert r.returncode == 2 and "smaller than the 8 cores' L1s" in r.stderr, r.stderr


def test_a_graph_with_a_router_nobody_reaches_is_refused():
    from vmscale_gem5 import topology
    g = topology.crossbar(4)
    g.links = [l for l in g.links if l.dst != 2]      # nothing leads to router 2
    with pytest.raises(ValueError, match="router 2 unreachable"):
        g.check()
    assert topology.crossbar(4).check()
