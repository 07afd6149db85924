"""The boot profiler's reading of gem5 output (pure: lines as gem5 v24 prints them)."""

from vmscale_gem5 import profile, stats

PERIOD = 10_000_000_000   # 10 ms in ticks

TRACE = """\
      0: board.pc.south_bridge.cmos.rtc: Real-time clock set to Sun Jan  1 00:00:00 2012
10000789533: board.processor.cores.core: 0xffffffff81b273d9 @memmap_init_range+201    : test	r13d
10000790532: board.processor.cores.core: 0xffffffff81b273dc @memmap_init_range+204    : jnz	0xffffffffffffff96
20000000100: board.processor.cores0.core: 0xffffffff81001000 @multi_cpu_stop+10    : pause
20000000200: board.processor.cores0.core: 0xffffffff81001004 @multi_cpu_stop+14    : cmp	eax, ebx
20000000300: board.processor.cores0.core: 0xffffffff81002000 @rcu_momentary_eqs+3    : mov	eax, 1
20000000150: board.processor.cores1.core: 0xffffffff81001000 @multi_cpu_stop+10    : pause
20000000250: board.processor.cores1.core: 0x401000    : mov	rax, 1
20000000350: board.processor.cores12.core: 0xffffffff81003000    : hlt
"""


def test_trace_windows_per_cpu_and_symbol():
    w = profile.parse_trace(TRACE.splitlines(), PERIOD)
    assert set(w) == {10_000_000_000, 20_000_000_000}
    assert w[10_000_000_000][0] == {"memmap_init_range": 2}
    second = w[20_000_000_000]
    assert second[0] == {"multi_cpu_stop": 2, "rcu_momentary_eqs": 1}
    assert second[1] == {"multi_cpu_stop": 1, "user": 1}
    assert second[12] == {"kernel:0xffffffff81003000": 1}


def _dump(sim_s, insts):
    text = [stats.BEGIN, f"simSeconds {sim_s} # s"]
    text += [f"board.processor.cores{c}.core.commitStats0.numInsts {n} # Count" for c, n in insts.items()]
    return "\n".join(text + [stats.END])


def test_instructions_per_period_from_cumulative_dumps():
    dumps = stats.parse("\n".join([_dump(0.01, {0: 100, 1: 0}), _dump(0.02, {0: 250, 1: 40})]))
    assert profile.insts_per_period(dumps) == [(0.01, {0: 100, 1: 0}), (0.02, {0: 150, 1: 40})]


def test_table_pairs_each_period_with_its_window():
    # 3 GHz, 10 ms: a never-idle atomic CPU retires ~12M instructions; busy means >= 6M
    dumps = stats.parse("\n".join([_dump(0.01, {0: 12e6, 1: 0, 12: 0}),
                                   _dump(0.02, {0: 24e6, 1: 0, 12: 0}),
                                   _dump(0.03, {0: 36e6, 1: 7e6, 12: 1e6})]))
    rows = profile.table(dumps, profile.parse_trace(TRACE.splitlines(), PERIOD), 3e9, 0.01, top=2)
    assert [r["busy_cpus"] for r in rows] == [1, 1, 2]
    assert [r["insts"] for r in rows] == [12_000_000, 12_000_000, 20_000_000]
    assert rows[0]["hot"] == []                              # nothing traced before 0.01 s
    assert rows[1]["hot"] == [("memmap_init_range", 1.0)]    # the window traced at 0.01 s
    # per-CPU shares at 0.02 s: cpu0 2/3 and cpu1 1/2 multi_cpu_stop; cpu12 all one PC
    assert rows[2]["hot"][0] == ("multi_cpu_stop", round(2 / 3 + 1 / 2, 2))
