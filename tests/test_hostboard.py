"""The twin board of a real machine (`vmscale board describe`): sysfs in, board options out."""

from pathlib import Path

import pytest

from conftest import vmscale
from vmscale_gem5 import board, hostboard, limits
from vmscale_gem5.board import Board


def _sysfs(root: Path, packages: list, caches: list, cpuinfo: str):
    """A sysfs tree as Linux writes it: cpuN/topology and cpu0's cache/indexK."""
    cpu = root / "sys/devices/system/cpu"
    for n, pkg in enumerate(packages):
        (cpu / f"cpu{n}/topology").mkdir(parents=True)
        (cpu / f"cpu{n}/topology/physical_package_id").write_text(f"{pkg}\n")
    for k, (level, kind, size, ways, shared) in enumerate(caches):
        d = cpu / f"cpu0/cache/index{k}"
        d.mkdir(parents=True)
        for name, value in (("level", level), ("type", kind), ("size", size), ("ways_of_associativity", ways),
                            ("shared_cpu_list", shared)):
            (d / name).write_text(f"{value}\n")
    (root / "proc").mkdir()
    (root / "proc/cpuinfo").write_text(cpuinfo)


def test_a_two_socket_machine_becomes_a_sockets_board(tmp_path):
    _sysfs(tmp_path, [0, 0, 0, 0, 1, 1, 1, 1],
           [(1, "Data", "48K", 12, "0"), (1, "Instruction", "32K", 8, "0"), (2, "Unified", "2048K", 16, "0"),
            (3, "Unified", "30720K", 15, "0-3")],
           "model name\t: Test Xeon\ncpu MHz\t\t: 2400.000\n" * 8)
    desc = hostboard.read(tmp_path)
    assert (desc["cpus"], desc["sockets"], desc["cores_per_socket"]) == (8, 2, 4)
    assert desc["l1d"]["size_kib"] == 48 and desc["llc"]["level"] == 3 and desc["llc"]["shared_cpus"] == 4
    vals = board.twin(desc, same_socket_cycles=116)
    # 30 MiB per socket -> the nearest power of two, a bank per socket; 48 KiB 12-way -> 64 KiB 16-way
    # (Ruby's sets must be a power of two: the host's 64 sets kept); the link from the measured transfer
    assert vals == {"l1_size": 64, "l1_assoc": 16, "l2_size": 32768, "l2_assoc": 16, "clock": "2.4GHz",
                    "topology": "sockets", "socket_cores": 4, "l2_banks": 0, "link_latency": 36, "router_latency": 3}
    Board.make(vals).check(8)                     # a board gem5 can build at the host's core count


# Published descriptions of larger machines, as sysfs would give them: the seeds' 8-socket Xeon E7-8870
# (Intel ARK: 10 cores, 30 MB L3, 24-way; 32 KiB 8-way L1D; hyper-threads off, as the papers ran) and the
# 2-socket Xeon 8336C of the published pft-threads run (vmscale.realmachines: 32 cores, 48 KiB 12-way L1D,
# 48 MiB 12-way L3; one CPU per core here).
PUBLISHED_MACHINES = {
    "e7-8870": ([p for p in range(8) for _ in range(10)],
                [(1, "Data", "32K", 8, "0"), (1, "Instruction", "32K", 4, "0"), (2, "Unified", "256K", 8, "0"),
                 (3, "Unified", "30720K", 24, "0-9")], 2400),
    "xeon-8336c": ([p for p in range(2) for _ in range(32)],
                   [(1, "Data", "48K", 12, "0"), (1, "Instruction", "32K", 8, "0"), (2, "Unified", "1280K", 20, "0"),
                    (3, "Unified", "49152K", 12, "0-31")], 2300),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED_MACHINES))
def test_published_many_core_machines_become_boards_gem5_can_build(tmp_path, name):
    packages, caches, mhz = PUBLISHED_MACHINES[name]
    _sysfs(tmp_path, packages, caches, f"model name\t: {name}\ncpu MHz\t\t: {mhz}.000\n" * len(packages))
    desc = hostboard.read(tmp_path)
    vals = board.twin(desc)
    b = Board.make(vals)
    b.check(len(packages))                        # every core of the machine, geometry included
    assert vals["socket_cores"] == len(packages) // len(set(packages))
    for size, ways in (("l1_size", "l1_assoc"), ("l2_size", "l2_assoc")):
        sets = vals[size] * 1024 / vals[ways] / 64
        assert sets >= 2 and sets == 2 ** round(__import__("math").log2(sets)), (name, size)
    if name == "e7-8870":   # the reference board's caches and sockets, from the machine's own description
        ref = board.PRESETS["e7-8870"]
        assert {k: vals[k] for k in ("l1_size", "l1_assoc", "l2_size", "topology", "socket_cores")} == \
            {k: ref[k] for k in ("l1_size", "l1_assoc", "l2_size", "topology", "socket_cores")}


def test_a_cache_whose_sets_are_not_a_power_of_two_is_refused_before_gem5():
    with pytest.raises(limits.ConfigError, match="24 with 32768 KiB.*give 16 or 32 ways"):
        limits.check_cache(32, 32768, 1, 1, 8, 24)
    with pytest.raises(limits.ConfigError, match="--l1-assoc 12 with 32 KiB"):
        Board.make({"l1_assoc": 12}).check(2)
    limits.check_cache(32, 32768, 1, 1, 8, 16)    # the reference board's


def test_the_link_latency_inverts_the_reference_boards_calibration():
    # results/gem5-calibration: links of 15, 26 and 36 cycles gave same-socket transfers of 53, 86, 116
    assert [board.twin_link_latency(c) for c in (53, 86, 116)] == [15, 26, 36]


def test_this_machine_is_described_and_its_twin_is_a_valid_board(tmp_path, workloads_built):
    desc = hostboard.read("/")
    assert desc["cpus"] >= 1 and desc["sockets"] >= 1 and desc["l1d"]["size_kib"] > 0
    Board.make(board.twin(desc)).check(desc["cpus"])
    r = vmscale("board", "describe", "--json", tmp_path / "twin.json")
    assert r.returncode == 0, r.stderr
    assert "twin board: --gem5 " in r.stdout and (tmp_path / "twin.json").is_file()
    if desc["cpus"] >= 2:     # line transfers timed here by ccbench, natively: the twin's links follow
        import json
        r = vmscale("board", "describe", "--measure", "--json", tmp_path / "m.json")
        if r.returncode and "in no measurable time" in r.stderr:
            # a CI machine's 2 vCPUs did this: the error must say why and write no twin
            assert r.returncode == 2 and not (tmp_path / "m.json").exists(), r.stderr
            return
        assert r.returncode == 0, r.stderr
        m = json.loads((tmp_path / "m.json").read_text())
        assert m["measured"]["same_socket_load"] > 0
        assert m["options"]["link_latency"] == board.twin_link_latency(m["measured"]["same_socket_load"])
        Board.make(m["options"]).check(desc["cpus"])


def test_a_root_without_sysfs_is_refused_with_the_reason(tmp_path):
    r = vmscale("board", "describe", "--root", tmp_path)
    assert r.returncode == 2 and "no CPU topology" in r.stderr


def test_board_host_and_a_board_file_are_the_twin_as_explicit_options(tmp_path):
    desc = hostboard.read("/")
    host = Board.make({"board": "host"})
    assert host.name == "" and all(host.get(k) == board.BY_NAME[k].parse(v) for k, v in board.twin(desc).items())
    # the label names every twin value, so it re-makes the board where no sysfs says the same
    assert Board.make(host.label()) == host
    f = tmp_path / "twin.json"
    r = vmscale("board", "describe", "--json", f)
    assert r.returncode == 0, r.stderr
    assert Board.make({"board": str(f)}) == host
    # an option given beside the twin wins over it
    assert Board.make({"board": str(f), "link_latency": 7}).link_latency == 7
    f.write_text('{"options": {"l1_size": 64, "warp_drive": 1}}')
    with pytest.raises(limits.ConfigError, match="warp_drive"):
        Board.make({"board": str(f)})
    with pytest.raises(limits.ConfigError, match="not a board file"):
        Board.make({"board": str(tmp_path / "missing.json")})
