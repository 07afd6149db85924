"""The gem5 configurations' pure-Python parts, and the stats parser on real gem5 output."""

import gzip
import math
from pathlib import Path

import pytest

from conftest import REPO
from vmscale_gem5 import buildinfo, configini, limits, options, stats, topology

FIX = Path(__file__).parent / "fixtures" / "gem5"


def test_stats_parser_on_a_real_ruby_run():
    dumps = stats.parse_file(FIX / "timing-mesi2l-2c" / "stats.txt")
    assert len(dumps) == 1
    d = dumps[0]
    assert d["simTicks"] == 596303876223 and d["simFreq"] == 1e12
    assert d["board.processor.cores1.core.numCycles"] == 1790292565
    # A pipe-form vector: one count per controller, adding up to its ::total.
    inv = d["board.cache_hierarchy.ruby_system.L1Cache_Controller.Inv"]
    assert len(inv) == 2 and sum(inv) == d["board.cache_hierarchy.ruby_system.L1Cache_Controller.Inv::total"]
    s = stats.summary(d, ops=1000)
    assert s["cores_in_stats"] == 2
    assert s["ruby_miss_latency_mean"] == pytest.approx(97.77563)
    assert s["l1_inv_per_op"] == pytest.approx(186.086)
    roi_cycles = d["simTicks"] / d["board.clk_domain.clock"]
    assert s["roi_cycles"] == roi_cycles and s["sim_cycles_per_op"] == pytest.approx(roi_cycles * 2 / 1000)
    assert 0 < s["l1d_demand_misses"] < s["l1d_demand_accesses"]
    assert s["sim_seconds"] == pytest.approx(s["sim_ticks"] / s["sim_freq"])


# What each summary column is, as the README's tables name them: gem5's statistic, read here
# from the fixture's text with a regex of the test's own, not through the parser under test.
SUMMARY_STATS = {
    "sim_ticks": "simTicks", "sim_seconds": "simSeconds", "sim_insts": "simInsts", "sim_ops": "simOps",
    "host_seconds": "hostSeconds", "sim_freq": "simFreq",
    "ruby_miss_latency_mean": f"{stats.RUBY}.m_missLatencyHistSeqr::mean",
    "ruby_miss_latency_samples": f"{stats.RUBY}.m_missLatencyHistSeqr::samples",
    "ruby_latency_mean": f"{stats.RUBY}.m_latencyHistSeqr::mean",
    "ruby_network_delay_mean": f"{stats.RUBY}.delayHistogram::mean",
    "l1_inv": f"{stats.RUBY}.L1Cache_Controller.Inv",
    "l1_fwd_getx": f"{stats.RUBY}.L1Cache_Controller.Fwd_GETX",
    "l1_fwd_gets": f"{stats.RUBY}.L1Cache_Controller.Fwd_GETS",
    "l1_load": f"{stats.RUBY}.L1Cache_Controller.Load",
    "l1_store": f"{stats.RUBY}.L1Cache_Controller.Store",
    # one L2 bank and one directory on this board: their vectors have a single line each
    "l2_getx": f"{stats.RUBY}.L2Cache_Controller.L1_GETX",
    "l2_gets": f"{stats.RUBY}.L2Cache_Controller.L1_GETS",
    "l2_upgrade": f"{stats.RUBY}.L2Cache_Controller.L1_UPGRADE",
    "dir_fetch": f"{stats.RUBY}.Directory_Controller.Fetch",
    "l2_repl": f"{stats.RUBY}.L2Cache_Controller.L2_Replacement",
    "l2_repl_clean": f"{stats.RUBY}.L2Cache_Controller.L2_Replacement_clean",
    "network_avg_hops": f"{stats.RUBY}.network.average_hops",
    "network_packet_latency": f"{stats.RUBY}.network.average_packet_latency",
}


def _grep(text, name):
    """A scalar's value, or a vector's: its ::total line, or with one controller its only line."""
    import re
    for n in (f"{name}::total", name):
        m = re.search(rf"^{re.escape(n)}\s+([-+0-9.e]+|nan|inf)\s", text, re.M)
        if m:
            return float(m.group(1))
    return None


def test_every_summary_figure_is_the_statistic_it_names():
    text = (FIX / "timing-mesi2l-2c" / "stats.txt").read_text()
    s = stats.summary(stats.parse(text)[0], ops=1000)
    present = 0
    for key, name in SUMMARY_STATS.items():
        want = _grep(text, name)
        if want is None:            # e.g. hop counts: Garnet's, and this run is on the simple network
            assert key not in s, key
            continue
        present += 1
        assert s[key] == pytest.approx(want), key
        if key in ("l1_inv", "l1_fwd_getx", "l1_fwd_gets", "l2_getx", "l2_repl", "l2_repl_clean"):   # per op of the 1000 given
            assert s[f"{key}_per_op"] == pytest.approx(want / 1000), key
    assert present == 21
    assert (s["l2_getx"], s["l2_gets"], s["dir_fetch"]) == (1328119, 724157, 1480739)   # by eye from the file
    assert (s["l2_repl"], s["l2_repl_clean"]) == (1296228, 180099)
    # The rest by hand from the file: L1D misses of the two controllers (1,943,072 + 133,436);
    # the ROI's instructions (313,402,611 + 16,897,839) over 699.05 host seconds; the larger
    # numCycles; simTicks 596,303,876,223 / a 333-tick clock; times 2 cores / 1000 ops.
    assert s["l1d_demand_misses"] == 2076508 and s["l1d_demand_misses_per_op"] == pytest.approx(2076.508)
    assert s["roi_insts"] == 330300450 and s["roi_insts_per_op"] == pytest.approx(330300.45)
    assert s["host_inst_rate"] == pytest.approx(472499.03, rel=1e-6)
    assert s["cycles_max"] == 1790702331
    assert s["roi_cycles"] == pytest.approx(1790702331.0) and s["sim_cycles_per_op"] == pytest.approx(3581404.662)
    assert len(s["ruby_miss_latency_hist"]) > 1
    # one core committed 18.5x the other's instructions in this ROI: the report's "uneven" flag
    assert s["core_insts_spread"] == pytest.approx(313402611 / 16897839)
    assert stats.uneven_work({"gem5.core_insts_spread": str(s["core_insts_spread"])})
    assert not stats.uneven_work({"gem5.core_insts_spread": "1.3"}) and not stats.uneven_work({})


def test_garnet_runs_report_their_hops_and_packet_latency():
    # a shipped 8-core mesh run over Garnet (results/gem5-mesh-garnet): its first ROI's dump
    run = next((Path(__file__).parent.parent / "results" / "gem5-mesh-garnet" / "runs").iterdir())
    text = gzip.open(run / "m5out" / "stats.txt.gz", "rt").read()
    first = text.split(stats.END)[0] + stats.END
    s = stats.summary(stats.parse(first)[0])
    assert s["network_avg_hops"] == _grep(first, f"{stats.RUBY}.network.average_hops") > 1
    assert s["network_packet_latency"] == _grep(first, f"{stats.RUBY}.network.average_packet_latency") > 0


def test_one_controller_vectors_and_events_that_never_happened():
    # a 1-core Ruby run: its L1's vectors have one line each and no forwarded request ever
    # happened (gem5 prints no line for it); the L2 printed nothing at all in this cut-down dump
    r = stats.RUBY
    text = "\n".join([stats.BEGIN, f"{r}.L1Cache_Controller.Load  100  50.00%  50.00% (Unspecified)",
                      f"{r}.L1Cache_Controller.Inv  7  3.5%  54% (Unspecified)", "simTicks 1000",
                      "board.clk_domain.clock 10", "board.processor.cores.core.numCycles 100", stats.END])
    s = stats.summary(stats.parse(text)[0], ops=10)
    assert s["l1_load"] == 100 and s["l1_inv"] == 7 and s["l1_inv_per_op"] == 0.7
    assert s["l1_fwd_getx"] == 0 and s["l1_fwd_getx_per_op"] == 0 and s["l1_fwd_gets"] == 0
    assert "l2_getx" not in s and "dir_fetch" not in s
    assert s["roi_cycles"] == 100 and s["sim_cycles_per_op"] == 10 and s["cycles_max"] == 100
    # no clock: no ROI cycles (never a division by a missing period); gem5's own host rate
    # when the cores' commit counters are missing
    d = {"simTicks": 1000.0, "hostSeconds": 2.0, "hostInstRate": 5.0, "board.processor.cores.core.numCycles": 9.0}
    s = stats.summary(d, ops=10)
    assert math.isnan(s["roi_cycles"]) and s["host_inst_rate"] == 5.0 and "sim_cycles_per_op" not in s


def test_stats_lines_special_values_and_comments():
    assert stats.parse_line("a.b   nan   # x") == ("a.b", pytest.approx(float("nan"), nan_ok=True))
    assert math.isnan(stats.parse_line("a -nan")[1])
    assert stats.parse_line("a inf") == ("a", math.inf) and stats.parse_line("a +inf") == ("a", math.inf)
    assert stats.parse_line("a -inf") == ("a", -math.inf) and stats.parse_line("a INF") == ("a", math.inf)
    assert stats.parse_line("a 12 # three # hashes") == ("a", 12.0)
    assert stats.parse_line("a.v | 3 50% 50% | 3 50% 100% # vector") == ("a.v", [3.0, 3.0])
    assert stats.parse_line("a.v | 3 50% 50% | 4 50% 100% # per core | per bank") == ("a.v", [3.0, 4.0])
    assert stats.parse_line("---------- Begin Simulation Statistics ----------") is None
    assert stats.parse_line("# only a comment") is None and stats.parse_line("name_only") is None
    assert stats.parse_line("a word") is None
    # a dump cut by a dying run keeps what it wrote; text before the first dump is ignored
    text = f"junk 1\n{stats.BEGIN}\nx 1\n{stats.END}\nbetween 3\n{stats.BEGIN}\ny 2\n"
    assert stats.parse(text) == [{"x": 1.0}, {"y": 2.0}]


def test_stats_parser_on_a_classic_run_without_ruby():
    d = stats.parse_file(FIX / "atomic-nocache-8c" / "stats.txt")[0]
    s = stats.summary(d)
    assert s["cores_in_stats"] == 8 and "ruby_miss_latency_mean" not in s
    assert s["host_inst_rate"] > 0 and math.isnan(s["l1d_demand_misses"])


def test_stats_parser_handles_several_dumps_and_a_cut_file():
    text = (FIX / "timing-mesi2l-2c" / "stats.txt").read_text()
    lines = text.splitlines()
    two = "\n".join(lines + lines[: len(lines) // 2])  # a second dump cut mid-way
    dumps = stats.parse(two)
    assert len(dumps) == 2 and dumps[1]["simTicks"] == dumps[0]["simTicks"]
    assert stats.parse_line("x nan # d") == ("x", pytest.approx(float("nan"), nan_ok=True))
    assert stats.parse_line("# comment") is None


def test_config_ini_says_what_ran():
    ruby = configini.describe(gzip.decompress((FIX / "timing-mesi2l-2c" / "config.ini.gz").read_bytes()).decode())
    assert ruby["cores"] == 2 and ruby["ruby"] and ruby["l1_controllers"] == 2
    assert ruby["cpu_types"] == ["BaseTimingSimpleCPU"]
    classic = configini.describe(gzip.decompress((FIX / "atomic-nocache-8c" / "config.ini.gz").read_bytes()).decode())
    assert classic["cores"] == 8 and not classic["ruby"] and classic["cpu_types"] == ["BaseAtomicSimpleCPU"]


def test_buildinfo_probe_line():
    info = buildinfo.parse_probe('noise\nVMSCALE-BUILDINFO {"version": "24.0.0.1", "PROTOCOL": "MESI_Two_Level", '
                                 '"NUMBER_BITS_PER_SET": "256", "RUBY": "True"}\n')
    assert info["version"] == "24.0.0.1" and buildinfo.bits_per_set(info) == 256
    assert buildinfo.ruby_protocol(info) == "MESI_Two_Level"
    assert buildinfo.parse_probe("no probe output") == {}


def test_buildinfo_parse():
    text = "Build information:\n\ngem5 version 24.0.0.1\ncompiled Nov 22 2026\nbuild options:\n" \
           "    NUMBER_BITS_PER_SET = 256\n    PROTOCOL = MESI_Two_Level\n    RUBY = True\n"
    info = buildinfo.parse(text)
    assert info["version"] == "24.0.0.1"
    assert buildinfo.bits_per_set(info) == 256 and buildinfo.ruby_protocol(info) == "MESI_Two_Level"


@pytest.mark.parametrize("kind, routers, links", [
    ("crossbar", 16 + 4 + 2 + 2 + 1, 2 * 24),      # a router per controller + the crossbar
    ("pt2pt", 24, 24 * 23),
    ("ring", 16, 32),
    ("mesh", 16, 2 * (3 * 4) * 2),                 # 4x4: 12 horizontal + 12 vertical, both ways
])
def test_topology_sizes(kind, routers, links):
    g = topology.build(kind, topology.controller_counts(16, 4, 2)).check()
    assert g.routers == routers and len(g.links) == links and len(g.ext) == 24


def test_mesh_hops_match_the_xy_formula_the_model_uses():
    from vmscale_model.network import hops
    g = topology.build("mesh", topology.controller_counts(64, 1, 1))
    assert (g.rows, g.cols) == (8, 8)
    assert g.mean_hops(range(64), range(64)) == pytest.approx(hops("mesh", 64))
    vertical = [l for l in g.links if l.src_port in ("North", "South")]
    assert vertical and all(l.weight == 2 for l in vertical)  # XY: horizontal first


def test_mesh_places_controllers_as_documented():
    c = topology.controller_counts(16, 4, 4)
    g = topology.build("mesh", c)
    assert g.ext[:16] == list(range(16))                      # L1 i on router i
    assert g.ext[16:20] == [0, 4, 8, 12]                       # L2 banks spread evenly
    assert g.ext[20:24] == [0, 3, 12, 15]                      # directories at the corners
    assert topology.mesh_shape(254) == (15, 17)
    assert topology.mesh_shape(1) == (1, 2) and topology.mesh_shape(2) == (1, 2)   # a mesh has 2 routers


def test_pt2pt_refuses_large_systems():
    with pytest.raises(ValueError, match="crossbar, mesh or ring"):
        topology.build("pt2pt", topology.controller_counts(128, 1, 1))


def test_core_limits():
    assert limits.check_cores(254, ruby=True, bits_per_set=256) == 254
    with pytest.raises(limits.ConfigError, match="tops out at 254.*vmscale build gem5"):
        limits.check_cores(255, ruby=False, x2apic_build=False)
    assert limits.check_cores(256, ruby=True, bits_per_set=256, x2apic_build=True) == 256
    assert limits.check_cores(256, ruby=False) == 256          # build not known yet: checked again later
    with pytest.raises(limits.ConfigError, match="tops out at 256.*x86InterruptAddress"):
        limits.check_cores(257, ruby=False, x2apic_build=True)
    with pytest.raises(limits.ConfigError, match="NUMBER_BITS_PER_SET=128"):
        limits.check_cores(200, ruby=True, bits_per_set=128)
    assert limits.check_cores(200, ruby=False, bits_per_set=128) == 200
    with pytest.raises(limits.ConfigError, match="power of two"):
        limits.check_cache(32, 256, 3, 1)
    with pytest.raises(limits.ConfigError, match="3072"):
        limits.check_memory(4096)


def _args(tmp_path, *extra):
    kernel = tmp_path / "vmlinux"
    kernel.write_bytes(b"\x7fELF" + bytes(60))
    disk = tmp_path / "disk.img"
    disk.write_bytes(bytes(512))
    return options.parser().parse_args(["--kernel", str(kernel), "--disk", str(disk), *extra])


@pytest.mark.parametrize("extra, message", [
    (["--cores", "255", "--x2apic-build", "no"], "tops out at 254"),
    (["--cores", "300", "--x2apic-build", "yes"], "tops out at 256"),
    (["--cores", "256", "--x2apic", "off"], "need x2APIC mode"),
    (["--cores", "8", "--x2apic", "on", "--x2apic-build", "no"], "no x2APIC.*sim-configs/gem5-patches"),
    (["--cores", "8", "--x2apic", "on", "--cpu", "kvm", "--kvm-available", "--m5", "addr", "--mode",
      "checkpoint", "--checkpoint-dir", "x"], "KVM CPU does not use"),
    (["--cores", "8", "--cpu", "atomic"], "measures nothing"),
    (["--cores", "8", "--mode", "checkpoint", "--checkpoint-dir", "x"], "cannot checkpoint warm caches"),
    (["--cores", "8", "--mode", "restore", "--checkpoint-dir", "/nonexistent"], "no m5.cpt"),
    (["--cores", "8", "--cpu", "kvm", "--mode", "checkpoint", "--checkpoint-dir", "x"], "/dev/kvm"),
    (["--cores", "64", "--topology", "pt2pt"], "crossbar, mesh or ring"),
    (["--cores", "8", "--topology", "mesh", "--mesh-rows", "2"], "both --mesh-rows and --mesh-cols"),
    (["--cores", "150", "--bits-per-set", "128"], "NUMBER_BITS_PER_SET"),
    (["--cores", "8", "--cpu", "kvm", "--kvm-available", "--mode", "checkpoint", "--checkpoint-dir", "x"],
     "--m5 addr"),
    (["--cores", "8", "--clock", "3ghz"], "give a frequency such as 3GHz"),
    (["--cores", "8", "--cpu", "o3", "--tail-cpu", "timing"], "needs --mode restore"),
    (["--cores", "8", "--memory-system", "none", "--cpu", "o3", "--tail-cpu", "timing", "--mode", "restore",
      "--checkpoint-dir", "x"], "needs --mode restore, Ruby"),
    (["--cores", "8", "--roi-profile", "500", "--hotlines", "1"], "all use gem5's trace output"),
    (["--cores", "8", "--roi-profile", "200000"], "--roi-profile 200000: ns traced per 100 us"),
    (["--cores", "8", "--roi-profile", "200000", "--roi-profile-period", "150"], "ns traced per 150 us"),
    (["--cores", "8", "--roi-profile-period", "0"], "--roi-profile-period 0: us between windows"),
    (["--cores", "2", "--roi-profile", "500", "--mode", "checkpoint", "--checkpoint-dir", "x", "--cpu", "atomic"],
     "of a restored run's ROIs"),
])
def test_options_refuse_bad_runs_before_gem5(tmp_path, extra, message):
    with pytest.raises(limits.ConfigError, match=message):
        options.validate(_args(tmp_path, *extra))


@pytest.mark.parametrize("cores, mode, on", [(8, "auto", False), (254, "auto", False), (255, "auto", True),
                                             (256, "auto", True), (4, "on", True), (16, "off", False)])
def test_x2apic_mode_follows_the_core_count_and_reaches_the_kernel(tmp_path, cores, mode, on):
    a = options.validate(_args(tmp_path, "--cores", str(cores), "--x2apic", mode, "--x2apic-build", "yes"))
    assert a.x2apic_on is on
    # kernel 0043 enters x2APIC mode without interrupt remapping only when told
    assert ("x2apic_ext_dest_id" in options.kernel_args(a)) is on
    assert limits.x2apic_on(mode, cores, "atomic", None) is on   # an unknown build is not refused


def test_x2apic_is_part_of_the_board_a_checkpoint_depends_on():
    # a kernel booted in x2APIC mode cannot be restored onto an xAPIC board, nor the reverse
    from vmscale_gem5.board import BOOT, BY_NAME, Board
    assert BY_NAME["x2apic"].role == BOOT
    assert Board.make("x2apic=on").boot_items() == (("x2apic", "on"),)
    assert Board.make("x2apic=on").namespace(8).x2apic == "on"


def test_options_accept_and_describe_a_good_run(tmp_path):
    a = options.validate(_args(tmp_path, "--cores", "16", "--topology", "mesh", "--l2-banks", "4",
                               "--mode", "checkpoint", "--cpu", "atomic", "--checkpoint-dir", str(tmp_path)))
    assert "vmscale.checkpoint=1" in options.kernel_args(a) and "root=/dev/sda" in options.kernel_args(a)
    g = options.graph(a)(16 + 4 + 1 + 2)
    assert g.kind == "mesh" and len(g.ext) == 23


def test_the_boot_gives_the_kernel_gem5s_exact_apic_timer_rate(tmp_path):
    # By hand: 3 GHz is 333 ps per tick in gem5 (whole picoseconds), the local APIC divides it
    # by 16: 1e12 / (333 * 16) Hz = 187,687.69 kHz.  At 2 GHz: 500 ps, 125,000 kHz exactly.
    assert options.kernel_args(options.validate(_args(tmp_path, "--cores", "2", "--mode", "checkpoint",
                                                      "--cpu", "atomic", "--checkpoint-dir", "x"))
                               ).count("lapic_timer_khz=187688") == 1
    a = options.validate(_args(tmp_path, "--cores", "2", "--clock", "2GHz", "--mode", "checkpoint",
                               "--cpu", "atomic", "--checkpoint-dir", "x"))
    assert "lapic_timer_khz=125000" in options.kernel_args(a)
    # The kernel's own calibration on gem5 v24 (1 core, apic=verbose, kernel 0001-0019) measured
    # lapic_timer_period = 750764 bus cycles per jiffy at HZ=250; the given rate is 16 ppm from it.
    assert abs(options.apic_khz("3GHz") * 1000 / 250 - 750764) / 750764 < 20e-6


def test_bzimage_is_refused(tmp_path):
    a = _args(tmp_path, "--cores", "2")
    Path(a.kernel).write_bytes(b"MZ" + bytes(100))
    with pytest.raises(limits.ConfigError, match="not an ELF"):
        options.validate(a)


def test_gem5_backend_without_gem5_is_a_clear_error(workloads_built, tmp_path):
    import os
    from conftest import vmscale
    r = vmscale("run", "--backend", "gem5", "--cores", 8, "--workload", "local", "--out", tmp_path / "x",
                env={"GEM5": ""} if "GEM5" in os.environ else None)
    assert r.returncode == 2 and "GEM5 is not set" in r.stderr
    assert not (tmp_path / "x").exists()
    # the cheap check comes first: with no kernel built either, GEM5 is still what is named
    build = tmp_path / "build"
    build.mkdir()
    (build / "workloads").symlink_to(workloads_built)
    r = vmscale("run", "--backend", "gem5", "--cores", 8, "--workload", "local", "--out", tmp_path / "y",
                env={"GEM5": "", "VMSCALE_BUILD": str(build)})
    assert r.returncode == 2 and "GEM5 is not set" in r.stderr, r.stderr


def test_roi_dumps_of_a_real_boot_once_run():
    """Six ROIs of vmscale's own gem5 run: per-ROI counters are reset, simInsts is not."""
    import json
    dumps = stats.parse(gzip.decompress((FIX / "roi-8c" / "stats.txt.gz").read_bytes()).decode())
    rows = [json.loads(l) for l in (FIX / "roi-8c" / "results.jsonl").read_text().splitlines()]
    assert len(dumps) == len(rows) + 1   # one per workbegin/workend, then the final dump
    roi = [stats.summary(d, r["ops"]) for d, r in zip(dumps, rows)]
    sim_insts = [s["sim_insts"] for s in roi]
    assert sim_insts == sorted(sim_insts) and sim_insts[-1] > 2 * sim_insts[0]   # cumulative
    for s, d in zip(roi, dumps):
        assert s["cores_in_stats"] == 8
        assert 0 < s["roi_insts"] < s["sim_insts"]
        assert s["host_inst_rate"] == pytest.approx(s["roi_insts"] / s["host_seconds"])
        assert s["host_inst_rate"] < d["hostInstRate"]   # gem5's divides the cumulative simInsts
        # ROI cycles at the 3 GHz board clock (a period of 333 ticks).
        assert s["roi_cycles"] == pytest.approx(s["sim_ticks"] * 3e9 / 1e12, rel=0.002)
    by = {(r["kernel_variant"], r["workload"]): s for r, s in zip(rows, roi)}
    # A shared atomic moves its line between L1s on every op; Refcache's per-CPU deltas do not.
    assert by[("stock", "refcount")]["l1_fwd_getx_per_op"] > 0.5
    assert by[("refcache", "refcount")]["l1_fwd_getx_per_op"] < 0.1
    # What the run directory recorded is what the parser computes from the file.
    for r, s in zip(rows, roi):
        assert r["gem5.sim_ticks"] == s["sim_ticks"] and r["gem5.l1_inv"] == s["l1_inv"]
        # The guest's rdtsc cycles per op and gem5's core-cycles per op agree within 2x.
        assert 0.5 < s["sim_cycles_per_op"] / r["cycles_per_op"] < 2, (r["workload"], s["sim_cycles_per_op"])


def test_cache_geometry_and_interconnect_are_restore_options_not_part_of_the_checkpoint():
    # Ruby starts cold after a restore, so one boot serves every L2 geometry and interconnect:
    # asking for another associativity, size, bank count or network must not change the board
    # a checkpoint is keyed on; memory and the L1 size still do.
    from vmscale.backends import gem5
    assert gem5.board_args(32, {"l2_assoc": "64", "l1_assoc": "4", "l2_banks": "4", "l2_size": "512"}) == \
        gem5.board_args(32, {})
    assert gem5.board_args(32, {"topology": "mesh", "network": "garnet", "mesh_rows": "4",
                                "link_latency": "2", "cpu": "o3"}) == gem5.board_args(32, {})
    assert gem5.board_args(32, {"memory": "1536"}) != gem5.board_args(32, {})
    assert gem5.board_args(32, {"l1_size": "64"}) != gem5.board_args(32, {})


def test_board_label_names_only_what_differs_from_the_default_board():
    from vmscale.backends import gem5
    assert gem5.board_label({"cpu": "timing", "l2_assoc": "64", "topology": "crossbar"}) == "l2_assoc=64"
    assert gem5.board_label({}) == ""
    assert gem5.board_label({"topology": "mesh", "l2_banks": "4"}) == "l2_banks=4 topology=mesh"


def test_the_capacity_check_reads_llc_evictions_from_a_real_dump():
    """The default board at 32 cores (a shipped refcount ROI): its one 256 KiB L2 bank evicts
    lines L1s hold, and most L1 invalidations come from those evictions: LLC-bound."""
    import glob
    import gzip
    path = sorted(glob.glob(str(REPO / "results/gem5-scaling/jobs/032c-*/m5out/stats.txt.gz")))[0]
    s = stats.summary(stats.parse(gzip.open(path, "rt").read())[0], 1000.0)
    assert s["llc_evictions"] == s["l2_repl"] + s["l2_repl_clean"]
    assert 0 < s["l2_repl_l1"] <= s["llc_evictions"] and 0 < s["eviction_inv_share"] <= 1
    row = {f"gem5.{k}": v for k, v in s.items()}
    assert stats.capacity_bound(row) and s["llc_evictions_per_op"] >= 1
    assert not stats.capacity_bound({"gem5.llc_evictions_per_op": 0.2, "gem5.eviction_inv_share": 0.1})
    assert stats.capacity_bound({"gem5.llc_evictions_per_op": 0.2, "gem5.eviction_inv_share": 0.6})
    assert stats.capacity_bound({"gem5.llc_evictions_per_op": "1.5", "gem5.eviction_inv_share": ""})   # a CSV row


def test_the_report_flags_the_40_core_refcount_points_whose_cores_did_uneven_work(tmp_path):
    """results/gem5-e7-8870-40c: 25 of 40 cores waited on the zone lock inside refcount's ROI (many
    times the others' instructions); fault's cores did even work.  The spread is recomputed here from
    each run's own stats, and the report marks exactly the uneven rows."""
    import csv
    import gzip
    import re
    from vmscale import report
    rec = REPO / "results" / "gem5-e7-8870-40c"
    rows = list(csv.DictReader(open(rec / "table.csv", newline="")))
    for r in rows:
        dump = stats.parse(gzip.open(rec / r["run_id"] / "m5out" / "stats.txt.gz", "rt").read())[0]
        insts = [v for k, v in dump.items() if re.fullmatch(r"board\.processor\.cores\d+\.core\.commitStats0\.numInsts", k)]
        assert len(insts) == 40
        assert float(r["gem5.core_insts_spread"]) == pytest.approx(max(insts) / min(insts))
        assert stats.uneven_work(r) == (r["workload"] == "refcount"), (r["workload"], r["kernel_variant"])
    text = report.report(rec / "table.csv", tmp_path).read_text()
    flagged = [line for line in text.splitlines() if "**uneven**" in line and line.startswith("| ")]
    assert len(flagged) == sum(r["workload"] == "refcount" for r in rows)
    assert "zone" not in text and "another core's instructions" in text


def test_the_report_flags_points_whose_window_holds_few_operations_per_thread(tmp_path):
    """The warm-up record: local runs 10 rounds per thread (a coarse window: whole rounds are
    counted), fault 128 faults; a one-core point has no window to quantize."""
    import csv
    from vmscale import report
    rec = REPO / "results" / "gem5-e7-8870-warm"
    rows = list(csv.DictReader(open(rec / "table.csv", newline="")))
    for r in rows:
        k = float(r["window_ops"]) / float(r["threads"])
        assert stats.window_ops_per_thread(r) == pytest.approx(k)
        assert stats.coarse_window(r) == (int(r["cores"]) > 1 and k < stats.COARSE_WINDOW_OPS)
    coarse = {(r["workload"], r["cores"]) for r in rows if stats.coarse_window(r)}
    assert ("local", "20") in coarse and not any(w == "fault" for w, _ in coarse) and ("local", "1") not in coarse
    text = report.report(rec / "table.csv", tmp_path).read_text()
    flagged = [line for line in text.splitlines() if line.startswith("| ") and "(coarse" in line]
    assert len(flagged) == sum(map(stats.coarse_window, rows)) and "**coarse**" in text
    assert not stats.coarse_window({"threads": "4", "window_ops": ""})       # no window: no flag


def test_a_window_counted_in_chunks_is_coarse_by_its_steps():
    """reclaim with 1,000 of 2,000 iterations per write (results/gem5-e7-8870-share-cache-reclaim-warm): ~1,000
    operations per thread in the window, but one or two writes each, so every multi-thread point is coarse;
    pageshare and pagecache count each operation and are not."""
    import csv
    rows = list(csv.DictReader(open(REPO / "results" / "gem5-e7-8870-share-cache-reclaim-warm" / "table.csv",
                                    newline="")))
    reclaim = [r for r in rows if r["workload"] == "reclaim" and int(r["cores"]) > 1]
    assert reclaim and all(stats.count_step(r) == 1000 for r in reclaim)
    assert all(stats.window_ops_per_thread(r) >= stats.COARSE_WINDOW_OPS for r in reclaim)
    assert all(stats.coarse_window(r) for r in reclaim)
    assert not any(stats.coarse_window(r) for r in rows if r["workload"] == "pagecache")
    assert stats.count_step({"params.chunk": ""}) == 1.0 and stats.count_step({}) == 1.0
    # the same window in steps of 100: 20 or more per thread is fine
    assert not stats.coarse_window({"threads": "4", "window_ops": "8000", "params.chunk": "100"})


def test_a_longer_profile_period_admits_a_window_the_default_would_refuse(tmp_path):
    # a 160-core machine's trace at 90 us of every 1,000: a tenth of the default's, each window as long
    a = _args(tmp_path, "--cores", "8", "--roi-profile", "90000", "--roi-profile-period", "1000",
              "--mode", "restore", "--checkpoint-dir", str(tmp_path))
    (tmp_path / "m5.cpt").write_text("")
    assert options.roi_profile_period(options.validate(a)) == pytest.approx(1e-3)
    assert options.roi_profile_period(_args(tmp_path, "--cores", "8")) == pytest.approx(100e-6)


def test_a_profile_start_needs_a_profile_and_is_not_negative(tmp_path):
    (tmp_path / "m5.cpt").write_text("")
    restore = ("--mode", "restore", "--checkpoint-dir", str(tmp_path))
    ok = _args(tmp_path, "--cores", "8", "--roi-profile", "90000", "--roi-profile-period", "1000",
               "--roi-profile-start", "20000", *restore)
    assert options.validate(ok).roi_profile_start == 20000
    for bad in (("--roi-profile-start", "20000"), ("--roi-profile", "500", "--roi-profile-start", "-1")):
        with pytest.raises(limits.ConfigError, match="roi-profile-start"):
            options.validate(_args(tmp_path, "--cores", "8", *bad, *restore))
