"""Call-function IPI episodes on a sampled exec trace (vmscale.ipis) and the holds.csv row they make."""

from collections import Counter

import pytest

from vmscale import ipis, threads

KERNEL = "0xffffffff81000000"


def _trace(cpu: int, steps: list, user_pc: str = "0x401000") -> list:
    """gem5 Exec lines: (tick, symbol) per instruction of one CPU ('user' for a user-mode PC; 'name+0' for
    a symbol's first instruction, which gem5 prints without an offset)."""
    return [f"{t:>7}: board.processor.cores{cpu}.core: {user_pc} : mov" if s == "user"
            else f"{t:>7}: board.processor.cores{cpu}.core: {KERNEL} @{s[:-2]} : mov" if s.endswith("+0")
            else f"{t:>7}: board.processor.cores{cpu}.core: {KERNEL} @{s}+4 : mov" for t, s in steps]


WAITING = _trace(0, [(0, "smp_call_function_many_cond"), (10, "smp_call_function_many_cond"),
                     (20, "asm_sysvec_call_function+0"), (30, "error_entry"), (40, "asm_sysvec_call_function"),
                     (50, "sysvec_call_function"), (60, "llist_reverse_order"), (70, "flush_tlb_func"),
                     (80, "error_return"), (90, "restore_regs_and_return_to_kernel"), (95, "native_irq_return_iret"),
                     (100, "smp_call_function_many_cond"), (110, "smp_call_function_many_cond")])
WORKING = _trace(1, [(0, "user"), (10, "asm_sysvec_call_function+0"), (20, "flush_tlb_func"), (30, "error_return"),
                     (40, "swapgs_restore_regs_and_return_to_usermode"), (50, "user"), (60, "user")])
# a window opening inside a handler: its tail to the return is an episode's time, interrupting unknown (the
# entry stub runs on the way out too: not an entry)
OPENS_INSIDE = _trace(2, [(0, "flush_tlb_func"), (10, "asm_sysvec_call_function"), (20, "error_return"),
                          (30, "native_irq_return_iret"), (40, "user"), (50, "user")])
# an episode cut by its window's end (the next line 10,000 ticks on: another window)
CUT = _trace(3, [(0, "user"), (10, "asm_sysvec_call_function+0"), (20, "sysvec_call_function"),
                 (10_000, "user"), (10_010, "user")])
ORDINARY = _trace(4, [(0, "vr_fault"), (10, "flush_tlb_func"), (20, "error_return"), (30, "vr_fault")])


def _merged(*cpus):
    return sorted((l for c in cpus for l in c), key=lambda l: int(l.split(":")[0]))


def test_an_episode_runs_from_the_entry_to_the_interrupted_code_resuming():
    [e] = ipis.episodes(_merged(WAITING, WORKING), [(0, 20_000)], window_ticks=1_000)
    assert e["episodes"] == 2 and e["whole"] == 2
    assert e["interrupted"] == Counter({"smp_call_function_many_cond": 80, "user": 40})
    assert e["ticks"] == 120
    shares = ipis.split(e["interrupted"])
    assert shares["wait"] == pytest.approx(80 / 120) and shares["work"] == pytest.approx(40 / 120)
    assert shares["idle"] == 0.0


def test_a_window_edge_keeps_the_traced_time_not_what_was_interrupted():
    [e] = ipis.episodes(_merged(OPENS_INSIDE, CUT), [(0, 20_000)], window_ticks=1_000)
    # the tail 0-40 of one, 10-20 of the other; neither whole
    assert e["ticks"] == 40 + 10 and e["whole"] == 0 and e["episodes"] == 1 and not e["interrupted"]


def test_code_that_returns_from_nothing_is_not_an_episode():
    # a window opening in ordinary code: a later return path is not a handler's (no entry seen)
    [e] = ipis.episodes(ORDINARY, [(0, 20_000)], window_ticks=1_000)
    assert e["ticks"] == 0 and e["episodes"] == 0


def test_episodes_outside_a_roi_are_not_counted():
    a, b = ipis.episodes(_merged(WAITING, WORKING), [(0, 5), (200, 300)], window_ticks=1_000)
    assert a["ticks"] == b["ticks"] == 0


def test_the_ipi_row_takes_the_episodes_time_and_its_split():
    [e] = ipis.episodes(_merged(WAITING, WORKING), [(0, 20_000)], window_ticks=1_000)
    sy = {0: {"insts": Counter(flush_tlb_func=1), "ticks": Counter(flush_tlb_func=10)}}
    # every tick traced (window = period), 1 tick per cycle, 2 IPIs received over 4 operations
    row = threads.ipi_row(sy, received=2, ops=4, window_ticks=1_000, tick_per_cycle=1.0, period_ticks=1_000,
                          episodes=e)
    assert row["hold_cycles"] == pytest.approx(60.0) and row["work_share"] == pytest.approx(1 / 3)
    # without episodes: the handler's symbols only
    assert threads.ipi_row(sy, 2, 4, 1_000, 1.0, 1_000)["hold_cycles"] == pytest.approx(5.0)


def test_an_entry_on_a_windows_first_line_counts_its_time_not_what_it_interrupted():
    first = _trace(5, [(0, "asm_sysvec_call_function+0"), (10, "flush_tlb_func"), (20, "error_return"),
                       (30, "native_irq_return_iret"), (40, "user")])
    [e] = ipis.episodes(first, [(0, 20_000)], window_ticks=1_000)
    assert e["ticks"] == 40 and e["episodes"] == 1 and e["whole"] == 0 and not e["interrupted"]
