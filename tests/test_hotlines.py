"""The hot-line profiler: the ProtocolTrace reader on hand-made sequences (expected values
worked out from MESI_Two_Level's transitions), and the whole analysis on a committed real
trace (tests/fixtures/hotlines/refcount-2c, see its PROVENANCE.md), checked against gem5's
own statistics of the same ROIs and against the kernel's source."""

import csv
import json
import math
from pathlib import Path

import pytest

from vmscale import hotlines as hl
from vmscale import linenames
from vmscale.errors import VmscaleError
from vmscale_gem5 import hotlines

FIX = Path(__file__).parent / "fixtures" / "hotlines" / "refcount-2c"


def raw(tick, core, event, state, nxt, addr):
    # gem5 v24 src/mem/slicc/symbols/StateMachine.py: "%15d %3s %10s%20s %6s>%-6s %#x %s",
    # the address argument being printAddress(addr) (src/mem/ruby/common/Address.cc)
    return "%15d %3s %10s%20s %6s>%-6s %s %s" % (tick, core, "L1Cache", event, state, nxt,
                                                  f"[{addr:#x}, line {addr & ~63:#x}]", "")


def events(*lines):
    return list(hotlines.read_events(raw(*x) for x in lines))


def test_a_forwarded_getx_names_owner_requester_and_the_requesters_latency():
    ev = events((1000, 0, "Store", "I", "IM", 0x1234),        # core 0 misses, asks for the line
                (1500, 1, "Fwd_GETX", "M", "I", 0x1234),       # core 1 gives it up
                (1999, 1, "Load", "M", "M", 0x9999),           # a hit: not kept
                (4000, 0, "Data_all_Acks", "IM", "M", 0x1234))
    assert [e.line for e in ev] == [0x1200, 0x1200, 0x1200]
    [t] = hotlines.transfers(ev)
    assert (t.kind, t.owner, t.requester, t.request, t.latency, t.line) == ("getx", 1, 0, "GETX", 3000, 0x1200)


def test_a_read_of_a_modified_line_and_an_upgrade_invalidation():
    ev = events((10, 2, "Load", "NP", "IS", 0x40), (20, 0, "Fwd_GETS", "M", "S", 0x40),
                (90, 2, "DataS_fromL1", "IS", "S", 0x40),
                (100, 2, "Store", "S", "SM", 0x40), (120, 0, "Inv", "S", "I", 0x40),
                (300, 2, "Ack_all", "SM", "M", 0x40))
    moves = hotlines.transfers(ev)
    assert [(t.kind, t.owner, t.requester, t.request, t.latency) for t in moves] == [
        ("gets", 0, 2, "GETS", 80), ("inv", 0, 2, "UPGRADE", 200)]
    c = hotlines.per_line(moves)[0x40]
    assert (c.getx, c.gets, c.inv, c.moves, c.mean_latency) == (0, 1, 1, 2, 140)
    assert dict(c.pairs) == {(0, 2): 2}


def test_an_invalidation_with_no_miss_open_is_an_l2_eviction_and_one_of_an_absent_line_is_nothing():
    ev = events((5, 1, "Inv", "E", "I", 0x80), (6, 0, "Inv", "NP", "NP", 0x80), (7, 0, "Inv", "I", "I", 0xC0))
    [t] = hotlines.transfers(ev)
    assert (t.kind, t.owner, t.requester, t.request, t.latency) == ("inv", 1, -1, "", -1)


def test_the_oldest_open_miss_is_the_requester():
    ev = events((10, 1, "Store", "I", "IM", 0x100), (20, 2, "Store", "I", "IM", 0x100),
                (30, 0, "Fwd_GETX", "M", "I", 0x100), (60, 1, "Data_all_Acks", "IM", "M", 0x100),
                (70, 1, "Fwd_GETX", "M", "I", 0x100), (95, 2, "Data_all_Acks", "IM", "M", 0x100))
    moves = hotlines.transfers(ev)
    assert [(t.owner, t.requester, t.latency) for t in moves] == [(0, 1, 50), (1, 2, 75)]


def test_the_hand_off_time_counts_only_transfers_someone_was_already_waiting_for():
    """Core 1 waits from 10 and core 2 from 20: the hand-offs at 30 (to 1) and 70 (to 2) are back to
    back (2 was waiting at 30): one busy gap of 40 ticks.  Core 0's miss at 200 starts after the
    hand-off at 70, so the gap to 230 is idle time, not service."""
    ev = events((10, 1, "Store", "I", "IM", 0x100), (20, 2, "Store", "I", "IM", 0x100),
                (30, 0, "Fwd_GETX", "M", "I", 0x100), (60, 1, "Data_all_Acks", "IM", "M", 0x100),
                (70, 1, "Fwd_GETX", "M", "I", 0x100), (95, 2, "Data_all_Acks", "IM", "M", 0x100),
                (200, 0, "Store", "I", "IM", 0x100), (230, 2, "Fwd_GETX", "M", "I", 0x100),
                (260, 0, "Data_all_Acks", "IM", "M", 0x100))
    c = hotlines.per_line(hotlines.transfers(ev))[0x100]
    assert (c.getx, c.busy_n, c.handoff, c.mean_latency) == (3, 1, 40, (50 + 75 + 60) / 3)
    assert math.isnan(hotlines.per_line(hotlines.transfers(ev[:4]))[0x100].handoff)   # one move: never queued


def test_the_hand_off_time_is_the_mean_of_back_to_back_gaps():
    """Line 0x100: core 0 (miss from tick 0), then core 1 (waiting since 5), then core 2 (whose miss
    began at tick 40, the very tick of the hand-off before: it counts as waiting) -> two busy gaps,
    40 - 10 = 30 and 100 - 40 = 60: hand-off 45.  Line 0x200: a miss from tick 0 served second."""
    ev = events((0, 0, "Store", "I", "IM", 0x100), (5, 1, "Store", "I", "IM", 0x100),
                (10, 2, "Fwd_GETX", "M", "I", 0x100), (30, 0, "Data_all_Acks", "IM", "M", 0x100),
                (40, 0, "Fwd_GETX", "M", "I", 0x100), (40, 2, "Store", "I", "IM", 0x100),
                (60, 1, "Data_all_Acks", "IM", "M", 0x100), (100, 1, "Fwd_GETX", "M", "I", 0x100),
                (130, 2, "Data_all_Acks", "IM", "M", 0x100))
    moves = hotlines.transfers(ev)
    assert [(t.requester, t.start, t.latency) for t in moves] == [(0, 0, 30), (1, 5, 55), (2, 40, 90)]
    c = hotlines.per_line(moves)[0x100]
    assert (c.busy_sum, c.busy_n, c.handoff, c.mean_latency) == (90, 2, 45, 175 / 3)
    ev = events((0, 3, "Store", "I", "IM", 0x200), (0, 1, "Store", "I", "IM", 0x200),
                (2, 0, "Fwd_GETX", "M", "I", 0x200), (20, 3, "Data_all_Acks", "IM", "M", 0x200),
                (25, 3, "Fwd_GETX", "M", "I", 0x200), (50, 1, "Data_all_Acks", "IM", "M", 0x200))
    c = hotlines.per_line(hotlines.transfers(ev))[0x200]
    assert (c.busy_n, c.handoff, dict(c.pairs)) == (1, 23, {(0, 3): 1, (3, 1): 1})


def test_the_busy_hand_off_also_holds_gaps_to_a_newcomer_while_others_still_waited():
    """Cores 1 and 2 wait from 0; 0 -> 1 at 10.  Core 2's read stays open until 50 (the L2 answers it: no
    forward), core 3 asks at 40 and gets the line from 1 at 60: not waiting at 10, so no queued hand-off,
    but core 2 still wanted the line when 3 asked, so the gap 10 -> 60 was busy (50 ticks).  Core 4 asks
    at 200, after every miss ended: the gap 60 -> 220 held idle time and is neither."""
    ev = events((0, 1, "Store", "I", "IM", 0x100), (0, 2, "Load", "I", "IS", 0x100),
                (10, 0, "Fwd_GETX", "M", "I", 0x100), (15, 1, "Data_all_Acks", "IM", "M", 0x100),
                (40, 3, "Store", "I", "IM", 0x100), (50, 2, "Data_all_Acks", "IS", "S", 0x100),
                (60, 1, "Fwd_GETX", "M", "I", 0x100), (70, 3, "Data_all_Acks", "IM", "M", 0x100),
                (200, 4, "Store", "I", "IM", 0x100), (220, 3, "Fwd_GETX", "M", "I", 0x100),
                (240, 4, "Data_all_Acks", "IM", "M", 0x100))
    moves = hotlines.transfers(ev)
    assert [(t.requester, t.others_until) for t in moves] == [(1, 50), (3, -1), (4, -1)]
    c = hotlines.per_line(moves)[0x100]
    assert (c.busy_n, c.demand_n, c.busy_handoff) == (0, 1, 50) and math.isnan(c.handoff)
    # had core 2's miss ended at 35, before 3 asked, the line idled between: no busy gap
    early = [e if (e.core, e.event) != (2, "Data_all_Acks") else type(e)(35, 2, e.event, e.state, e.next, e.line)
             for e in ev]
    c = hotlines.per_line(hotlines.transfers(sorted(early, key=lambda e: e.tick)))[0x100]
    assert c.demand_n == 0 and math.isnan(c.busy_handoff)


def test_queued_hand_offs_split_by_whether_the_holder_and_its_waiters_spanned_sockets():
    """Two cores per socket.  Cores 1 and 2 wait from 0; 0 -> 1 at 10; 3 waits from 55; 1 -> 2 at 60 (1
    held it while 2 waited: sockets 0 and 1, a 50-tick gap); 2 -> 3 at 80 (2 held it while 3 waited:
    socket 1 alone, 20 ticks).  Without sockets every hand-off is one socket's."""
    ev = events((0, 1, "Store", "I", "IM", 0x100), (0, 2, "Store", "I", "IM", 0x100),
                (10, 0, "Fwd_GETX", "M", "I", 0x100), (15, 1, "Data_all_Acks", "IM", "M", 0x100),
                (55, 3, "Store", "I", "IM", 0x100), (60, 1, "Fwd_GETX", "M", "I", 0x100),
                (65, 2, "Data_all_Acks", "IM", "M", 0x100), (80, 2, "Fwd_GETX", "M", "I", 0x100),
                (85, 3, "Data_all_Acks", "IM", "M", 0x100))
    moves = hotlines.transfers(ev)
    assert [t.waiting for t in moves] == [(1, 2), (2, 3), (3,)]
    c = hotlines.per_line(moves, socket_cores=2)[0x100]
    assert (c.busy_n, c.handoff, c.handoff_by_span()) == (2, 35, (20, 50, 0.5))
    one, spread, share = hotlines.per_line(moves)[0x100].handoff_by_span()
    assert (one, share) == (35, 0) and math.isnan(spread)


def test_an_upgrades_invalidation_is_not_a_hand_off():
    """Core 1 gets the line at 20; core 2's upgrade invalidates core 3's copy at 30; core 4, waiting since
    28, gets the line at 60.  The hand-off before 60 is the one at 20 (the invalidation hands nothing
    over), and core 4 was not yet waiting then: no busy gap.  The eviction-only line has no latency."""
    ev = events((10, 1, "Store", "I", "IM", 0x600), (20, 0, "Fwd_GETX", "M", "I", 0x600),
                (22, 1, "Data_all_Acks", "IM", "M", 0x600), (25, 2, "Store", "S", "SM", 0x600),
                (28, 4, "Store", "I", "IM", 0x600), (30, 3, "Inv", "S", "I", 0x600),
                (45, 2, "Ack_all", "SM", "M", 0x600), (60, 2, "Fwd_GETX", "M", "I", 0x600),
                (90, 4, "Data_all_Acks", "IM", "M", 0x600), (95, 5, "Inv", "S", "I", 0x640))
    moves = hotlines.transfers(ev)
    assert [(t.kind, t.requester) for t in moves] == [("getx", 1), ("inv", 2), ("getx", 4), ("inv", -1)]
    lines = hotlines.per_line(moves)
    assert lines[0x600].busy_n == 0 and math.isnan(lines[0x600].handoff)
    assert lines[0x600].mean_latency == (12 + 20 + 62) / 3 and math.isnan(lines[0x640].mean_latency)


def test_a_write_that_invalidates_the_sharers_is_one_ownership_change_no_forward_shows():
    """Core 1 reads the line core 0 holds modified (a forwarded GETS: both share it); core 3's store
    then invalidates both copies: two invalidations, one write, and no forward of it."""
    ev = events((10, 1, "Load", "I", "IS", 0x700), (12, 0, "Fwd_GETS", "M", "S", 0x700),
                (20, 1, "Data_all_Acks", "IS", "S", 0x700), (30, 3, "Store", "I", "IM", 0x700),
                (35, 0, "Inv", "S", "I", 0x700), (36, 1, "Inv", "S", "I", 0x700),
                (50, 3, "Data_all_Acks", "IM", "M", 0x700))
    c = hotlines.per_line(hotlines.transfers(ev))[0x700]
    assert (c.gets, c.getx, c.inv, len(c.inv_writes)) == (1, 0, 2, 1)


def test_the_oldest_miss_wins_whatever_its_request():
    """A GETX from tick 10 and a GETS from tick 20 wait on a modified line: the GETX is served."""
    ev = events((10, 1, "Store", "I", "IM", 0x400), (20, 2, "Load", "I", "IS", 0x400),
                (30, 0, "Fwd_GETX", "M", "I", 0x400), (70, 1, "Data_all_Acks", "IM", "M", 0x400))
    [t] = hotlines.transfers(ev)
    assert (t.requester, t.request, t.latency) == (1, "GETX", 60)


def test_an_instruction_fetch_of_a_line_another_core_holds():
    ev = events((10, 1, "Ifetch", "NP", "IS", 0x500), (15, 0, "Fwd_GET_INSTR", "E", "S", 0x500),
                (40, 1, "DataS_fromL1", "IS", "S", 0x500))
    [t] = hotlines.transfers(ev)
    assert (t.kind, t.owner, t.requester, t.request, t.latency) == ("gets", 0, 1, "GET_INSTR", 30)


def test_the_filter_keeps_moves_and_misses_only():
    ev = lambda e, st, nx: hotlines.Event(1, 0, e, st, nx, 0x40)
    assert not hotlines.keep(ev("Store", "E", "M"))        # a silent store hit on an exclusive line
    assert not hotlines.keep(ev("WB_Ack", "M_I", "NP"))    # a writeback completing is no miss
    assert not hotlines.keep(ev("Load", "S", "S"))         # a hit
    assert hotlines.keep(ev("Data_all_Acks", "IM", "M")) and hotlines.keep(ev("Inv", "S", "I"))


def test_the_filter_program_reads_a_trace_and_writes_the_kept_events(tmp_path, capsys):
    """python -m vmscale_gem5.hotlines IN OUT.gz, as vmscale_fs.py runs it beside gem5 (IN is a FIFO
    there; a file reads the same): the kept events in the compact form, written whole."""
    import gzip
    lines = [raw(10, 0, "Store", "I", "IM", 0x1234), raw(12, 0, "Load", "M", "M", 0x40),
             "%15d %3s %10s%20s %6s>%-6s %s" % (13, 0, "L2Cache", "L1_GETX", "NP", "ISS", "[0x1234, line 0x1200]"),
             raw(15, 1, "Fwd_GETX", "M", "I", 0x1234), "not a trace line",
             raw(40, 0, "Data_all_Acks", "IM", "M", 0x1234)]
    src = tmp_path / "trace"
    # gem5 prints whatever a transition names; a byte that is not UTF-8 must not stop the filter
    src.write_bytes(("\n".join(lines) + "\n").encode().replace(b"not a trace", b"not a \xff trace"))
    out = tmp_path / "events.gz"
    hotlines.main([str(src), str(out)])
    kept = gzip.open(out, "rt").read()
    assert kept == "10 0 Store I IM 1200\n15 1 Fwd_GETX M I 1200\n40 0 Data_all_Acks IM M 1200\n"
    assert not (tmp_path / "events.gz.partial").exists()
    assert capsys.readouterr().err == "hotlines: 6 trace lines read\n"
    # as vmscale_fs.py starts it: a module run with its two arguments
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "vmscale_gem5.hotlines", str(src), str(tmp_path / "m.gz")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "hotlines: 6 trace lines read\n", r.stderr
    assert gzip.open(tmp_path / "m.gz", "rt").read() == kept
    # the compact form reads back as the same events
    assert [t.latency for t in hotlines.transfers(hotlines.read_events(kept.splitlines()))] == [30]


def test_a_roi_holds_the_events_at_its_end_tick_and_a_stray_end_is_ignored():
    assert hotlines.read_rois("begin 1\nend 2\nend 3\n") == [(1, 2)]
    ev = events((100, 0, "Fwd_GETX", "M", "I", 0), (200, 0, "Fwd_GETX", "M", "I", 0))
    assert [[e.tick for e in part] for part in hotlines.split_rois(ev, [(100, 200)])] == [[100, 200]]


def test_rois_split_the_events_and_an_unended_roi_is_dropped():
    rois = hotlines.read_rois("begin 100\nend 200\nbegin 300\nend 400\nbegin 500\n")
    assert rois == [(100, 200), (300, 400)]
    ev = events((150, 0, "Fwd_GETX", "M", "I", 0), (250, 0, "Fwd_GETX", "M", "I", 0), (300, 1, "Inv", "S", "I", 0))
    assert [[e.tick for e in part] for part in hotlines.split_rois(ev, rois)] == [[150], [300]]


def test_names_come_from_the_kernel_image_and_each_cpus_per_cpu_area():
    # nm lines (address size kind name) laid out as x86-64 links them: per-CPU symbols zero-based
    nm = ("0000000000000000 D __per_cpu_start\n0000000000000100 0000000000000040 D runqueue\n"
          "0000000000001000 D __per_cpu_end\nffffffff81000000 T _text\n"
          "ffffffff81a00040 0000000000000008 d bench_atomic\nffffffff81a00048 0000000000000010 d next_to_it\n"
          "ffffffff81e00000 B _end\n")
    namer = linenames.Namer(linenames.parse_nm(nm), [0xffff888070000000, 0xffff888070010000])
    # kernel: phys = virt - __START_KERNEL_map
    assert namer.name(0x1a00040) == ("kernel", "bench_atomic+next_to_it")
    # per-CPU: phys + PAGE_OFFSET - __per_cpu_offset[cpu]
    assert namer.name(0x70010100) == ("percpu", "runqueue [cpu1]")
    assert namer.name(0x70000100) == ("percpu", "runqueue [cpu0]")
    # past the static part but inside the unit (the next CPU's offset): alloc_percpu's chunk
    assert namer.name(0x70002040) == ("percpu", "alloc_percpu +0x2040 [cpu0]")
    assert namer.name(0x12345678 & ~63) == ("dynamic", "page 0x12345000")


@pytest.fixture(scope="module")
def fixture_result():
    symbols = linenames.parse_nm((FIX / "symbols.txt").read_text())
    offsets = [int(x, 16) for x in json.loads((FIX / "percpu.json").read_text())["__per_cpu_offset"]]
    return hl.analyse(FIX, top=10, namer=linenames.Namer(symbols, offsets))


def test_real_trace_counts_every_forwarded_getx_that_gems_stats_count(fixture_result):
    """Two independent counts of the same ROIs: the trace's Fwd_GETX transitions and the
    L1Cache_Controller.Fwd_GETX statistic of each ROI's dump."""
    checks = fixture_result["checks"]
    assert [(c["kernel_variant"], c["ops"]) for c in checks] == [("stock", 400), ("refcache", 400)]
    for c in checks:
        assert c["traced_fwd_getx"] == c["stats_fwd_getx"] > 0
    assert checks[0]["traced_fwd_getx"] > 5 * checks[1]["traced_fwd_getx"]


def test_real_trace_names_the_shared_atomic_as_stocks_hot_line(fixture_result):
    """lib/refcache_bench.c (kernel 0004): `static atomic_long_t bench_atomic
    ____cacheline_aligned_in_smp`, which every get and put of the `atomic` counter writes."""
    stock = [r for r in fixture_result["rows"] if r["kernel_variant"] == "stock"]
    top = stock[0]
    assert top["kind"] == "kernel" and top["name"].split("+")[0] == "bench_atomic"
    assert top["getx_per_op"] > 0.5 and top["share"] > 0.5 and top["top_pair"] in ("cpu0->cpu1", "cpu1->cpu0")
    assert 10 < top["mean_latency_cycles"] < 200          # an L1-to-L1 transfer on the crossbar
    refcache = [r for r in fixture_result["rows"] if r["kernel_variant"] == "refcache" and r["rank"] != ""]
    assert all(not r["name"].startswith("bench_atomic") for r in refcache)
    assert refcache[0]["moves_per_op"] < 0.1 * top["moves_per_op"]


def test_real_trace_times_its_top_lines_forwards_over_the_roi(fixture_result):
    """Every forward of each case's top line falls in one of its time line's 100 slices, and its quiet
    share is the time line's.  This early 2-core run's ROI began long before its threads' pairs: the
    shared atomic moved only in its last fifth, in two bursts (the two threads' halves)."""
    for chk in fixture_result["checks"]:
        top = next(r for r in fixture_result["rows"] if r["case"] == chk["case"] and r["rank"] == 1)
        assert len(chk["timeline"]) == 100 and chk["roi_cycles"] > 0
        assert sum(chk["timeline"]) == round((top["getx_per_op"] + top["gets_per_op"]) * chk["ops"])
        want = hotlines.quiet_share(chk["timeline"])
        assert top["quiet_share"] == want or (math.isnan(want) and math.isnan(top["quiet_share"]))
    stock = next(c for c in fixture_result["checks"] if c["case"] == 1)["timeline"]
    assert sum(stock[:75]) == 0 and sum(stock[75:]) > 0
    # Refcache's top line moved 7 times in the ROI: too rarely for its empty slices to be a phase
    assert math.isnan(next(r for r in fixture_result["rows"] if r["case"] == 2 and r["rank"] == 1)["quiet_share"])
    assert all(math.isnan(r["quiet_share"]) for r in fixture_result["rows"] if r["rank"] != 1)


def test_a_time_line_counts_ticks_per_slice_and_its_quiet_share_is_relative_to_its_busiest_tenth():
    assert hotlines.timeline([0, 5, 9, 10, 99, 100, 101, -1], 0, 100, 10) == [3, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    # a phase of 20 per slice, then a quiet one: 3 of 10 slices under a tenth of 20
    assert hotlines.quiet_share([20] * 7 + [1, 0, 1]) == pytest.approx(0.3)
    assert hotlines.quiet_share([25] * 10) == 0 and math.isnan(hotlines.quiet_share([0, 0]))
    # a line that moves a few times a slice at its busiest: its empty slices are chance, not a phase
    assert math.isnan(hotlines.quiet_share([5, 0, 4, 0, 6, 1, 0, 5, 3, 0]))


def test_real_trace_rows_add_up_and_no_line_is_dropped(fixture_result):
    for case in (1, 2):
        rows = [r for r in fixture_result["rows"] if r["case"] == case]
        assert [r["rank"] for r in rows] == list(range(1, 11)) + [""]
        assert math.isclose(sum(r["share"] for r in rows), 1.0)
        chk = next(c for c in fixture_result["checks"] if c["case"] == case)
        assert math.isclose(sum(r["moves_per_op"] for r in rows) * chk["ops"], chk["moves"])


def test_cli_writes_the_table_and_figure_and_refuses_a_run_without_a_trace(tmp_path):
    from conftest import vmscale
    r = vmscale("hotlines", FIX, "--out", tmp_path, "--top", 3, "--symbols", FIX / "symbols.txt",
                "--percpu", FIX / "percpu.json")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(open(tmp_path / "hotlines.csv")))
    assert [(x["case"], x["rank"]) for x in rows] == [("1", "1"), ("1", "2"), ("1", "3"), ("1", ""),
                                                       ("2", "1"), ("2", "2"), ("2", "3"), ("2", "")]
    assert rows[0]["name"].startswith("bench_atomic") and float(rows[0]["getx_per_op"]) > 0.5
    assert "bench_atomic" in r.stdout and (tmp_path / "hotlines.png").stat().st_size > 10000
    assert (tmp_path / "hotlines-time.png").stat().st_size > 10000 and "hotlines-time.png" in r.stdout
    r = vmscale("hotlines", FIX, "--out", tmp_path, "--vmlinux", tmp_path / "missing")
    assert r.returncode != 0 and "vmlinux" in r.stderr
    bare = tmp_path / "bare"
    (bare / "m5out").mkdir(parents=True)
    r = vmscale("hotlines", bare)
    assert r.returncode != 0 and "hotlines=1" in r.stderr
    with pytest.raises(VmscaleError):
        hl.read_run(bare)


def test_a_trace_kept_as_xz_parts_reads_as_the_whole_trace(tmp_path, fixture_result):
    """A record keeps a long trace as xz split in parts (no large tracked file): read in order, the
    same rows as from the one gzip file."""
    import gzip
    import lzma
    import shutil
    run = tmp_path / "run"
    shutil.copytree(FIX, run)
    data = lzma.compress(gzip.decompress((run / "m5out" / "hotlines.events.gz").read_bytes()))
    (run / "m5out" / "hotlines.events.gz").unlink()
    cut = [0, len(data) // 3, 2 * len(data) // 3, len(data)]
    for i, part in enumerate(("aa", "ab", "ac")):
        (run / "m5out" / f"hotlines.events.xz.part-{part}").write_bytes(data[cut[i]:cut[i + 1]])
    symbols = linenames.parse_nm((FIX / "symbols.txt").read_text())
    offsets = [int(x, 16) for x in json.loads((FIX / "percpu.json").read_text())["__per_cpu_offset"]]
    got = hl.analyse(run, top=10, namer=linenames.Namer(symbols, offsets))
    assert hl.to_csv(got["rows"]) == hl.to_csv(fixture_result["rows"]) and got["checks"] == fixture_result["checks"]
    # the offsets an analysis keeps beside its table read back as they were
    assert [int(x, 16) for x in json.loads(hl.percpu_json(offsets))["__per_cpu_offset"]] == offsets


def test_collect_gathers_the_runs_hot_lines_and_the_report_shows_them(tmp_path):
    """A run directory with its hotlines.csv: collect writes table.hotlines.csv beside the
    table, and the report's refcount section lists each case's top lines from it."""
    import shutil
    from conftest import vmscale
    run = tmp_path / "runs" / "refcount-2c"
    shutil.copytree(FIX, run)
    r = vmscale("hotlines", run, "--top", 3, "--symbols", run / "symbols.txt", "--percpu", run / "percpu.json")
    assert r.returncode == 0, r.stderr
    r = vmscale("collect", tmp_path / "runs", "--out", tmp_path / "table.csv")
    assert r.returncode == 0, r.stderr
    gathered = list(csv.DictReader(open(tmp_path / "table.hotlines.csv")))
    assert gathered == [dict(x, run_dir=str(run)) for x in csv.DictReader(open(run / "hotlines.csv"))]
    assert {x["cores"] for x in gathered} == {"2"}
    r = vmscale("report", tmp_path / "table.csv", "--out", tmp_path / "report")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    top = next(x for x in gathered if x["kernel_variant"] == "stock" and x["rank"] == "1")
    assert f"| stock | 2 | 1 | {top['kind']}: `{top['name']}` | {float(top['moves_per_op']):.3g} |" in md
    assert md.count("| refcache | 2 |") == 3 + 1  # its three lines, and its row in the cycles table
    # a later collect of runs without hot lines leaves no stale file for the report
    (run / "hotlines.csv").unlink()
    assert vmscale("collect", tmp_path / "runs", "--out", tmp_path / "table.csv").returncode == 0
    assert not (tmp_path / "table.hotlines.csv").exists()


# Real traces named by their physmaps (kernel 0035): pagecache and fault at 2 cores, see
# tests/fixtures/hotlines/named-2c/PROVENANCE.md.
NAMED = Path(__file__).parent / "fixtures" / "hotlines" / "named-2c"


@pytest.fixture(scope="module")
def named_result():
    symbols = linenames.parse_nm((NAMED / "symbols.txt").read_text())
    offsets = [int(x, 16) for x in json.loads((NAMED / "percpu.json").read_text())["__per_cpu_offset"]]
    namer = linenames.Namer(symbols, offsets)
    runs = [hl.analyse(NAMED / run, top=10, namer=namer) for run in ("pagecache", "fault")]
    return {"rows": runs[0]["rows"] + runs[1]["rows"], "checks": runs[0]["checks"] + runs[1]["checks"]}


def top_rows(result, variant, workload):
    return [r for r in result["rows"] if r["kernel_variant"] == variant and r["workload"] == workload
            and r["rank"] != ""]


def test_every_case_of_a_named_run_has_its_map_whole_and_counts_as_gem5_does(named_result):
    assert len(named_result["checks"]) == 4
    for c in named_result["checks"]:
        assert c["physmap_frames"] > 100 and c["physmap_damaged"] == 0, c
        assert c["traced_fwd_getx"] == c["stats_fwd_getx"] > 0
    # nothing in the top lines is left as a bare page
    assert not [r for r in named_result["rows"] if r["kind"] == "dynamic"]


def test_the_struct_files_reference_count_and_the_locked_lookups_i_pages_lock_are_named(named_result):
    """Piggin: read() in a threaded process takes a reference on the struct file (fdget:
    f_count); the locked lookup (kernel 0023) also takes the mapping's i_pages lock; every read
    takes a reference on the page-cache page (its struct page)."""
    stock, locked = top_rows(named_result, "stock", "pagecache"), top_rows(named_result, "pagecache-locked", "pagecache")
    assert stock[0]["kind"] == "object" and stock[0]["name"].startswith("file+0x0 fd") and \
        "f_count" in stock[0]["name"]
    i_pages = [r for r in locked[:3] if r["kind"] == "object" and "i_pages" in r["name"]]
    assert i_pages and i_pages[0]["name"].startswith("address_space+0x0 fd") and i_pages[0]["moves_per_op"] > 1
    assert not [r for r in stock if "i_pages" in r["name"] and r["moves_per_op"] > 0.2 * i_pages[0]["moves_per_op"]]
    pages = [r for r in stock if r["kind"] == "memmap"]
    assert pages and all(": file, ext2 inode " in r["name"] for r in pages), pages


def test_the_fault_paths_locks_are_named_by_their_objects(named_result):
    """Bonsai: a read-locked fault writes mmap_lock's count (rwlock); 6.12's per-VMA lock moves
    that line to the VMA's lock (stock)."""
    rwlock, stock = top_rows(named_result, "rwlock", "fault"), top_rows(named_result, "stock", "fault")
    assert rwlock[0]["kind"] == "object" and rwlock[0]["name"].startswith("mm_struct+0x80 mm:") and \
        "mmap_lock" in rwlock[0]["name"]
    assert stock[0]["kind"] == "object" and stock[0]["name"].startswith("vma_lock+0x0 vma@") and \
        stock[0]["name"].endswith(": lock")
    assert stock[0]["moves_per_op"] > 5 * max(r["moves_per_op"] for r in stock if "mmap_lock" in r["name"])


def test_cross_socket_share_counts_core_to_core_moves_by_socket():
    # sockets of 10: 0->5 stays, 0->15 and 15->3 cross; moves to or from the L2 (-1) are not counted
    pairs = {(0, 5): 6, (0, 15): 3, (15, 3): 1, (4, -1): 50}
    assert hl.cross_socket_share(pairs, 10) == pytest.approx(0.4)
    assert hl.cross_socket_share(pairs, 0) is None and hl.cross_socket_share({(1, -1): 3}, 10) is None
    assert hl.acquisitions_by_socket(pairs, 10) == "0:7 1:3" and hl.acquisitions_by_socket(pairs, 0) == ""
    # any other core alike: one socket never crosses; two full sockets 10/19; eight 70/79
    assert hl.uniform_cross_share(10, 10) == 0
    assert hl.uniform_cross_share(20, 10) == pytest.approx(10 / 19)
    assert hl.uniform_cross_share(80, 10) == pytest.approx(70 / 79)
    # a partial last socket: 12 cores as 10 + 2 -> ordered pairs within sockets 90 + 2 of 132
    assert hl.uniform_cross_share(12, 10) == pytest.approx(1 - 92 / 132)


def test_a_runs_board_gives_its_socket_size():
    assert hl.socket_cores_of({"gem5_options": {"board": "e7-8870"}}) == 10
    assert hl.socket_cores_of({"gem5_options": {}}) == 0          # the default board's crossbar
    assert hl.socket_cores_of({"gem5_options": {"no_such_option": 1}}) == 0


def test_a_record_may_keep_its_events_as_xz(tmp_path, fixture_result):
    """The same trace recompressed as xz (how long traces are kept in results/) reads the same."""
    import gzip
    import lzma
    import shutil
    run = tmp_path / "run"
    shutil.copytree(FIX, run)
    events = run / "m5out" / "hotlines.events.gz"
    with gzip.open(events, "rb") as f, lzma.open(run / "m5out" / "hotlines.events.xz", "wb") as g:
        g.write(f.read())
    events.unlink()
    symbols = linenames.parse_nm((FIX / "symbols.txt").read_text())
    offsets = [int(x, 16) for x in json.loads((FIX / "percpu.json").read_text())["__per_cpu_offset"]]
    again = hl.analyse(run, top=10, namer=linenames.Namer(symbols, offsets))
    assert again["checks"] == fixture_result["checks"] and again["checks"][0]["traced_fwd_getx"] > 0
