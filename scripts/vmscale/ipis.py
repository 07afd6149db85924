"""Call-function IPIs on a profiled ROI's sampled time line: how long each took, and what it interrupted.

A TLB shoot-down's targets each take a call-function IPI and run the flush in its handler.  Where that
time goes depends on what the IPI interrupted: a CPU's own work (its operation waits), its own
shoot-down's wait for acknowledgements (the initiator's measured wait already holds it: the kernel's
radix_shootdown_cycles spans it), or the idle loop (no operation waits).  Counting the handler's
symbols (threads.IPI_HANDLER) misses both that split and the entry code and the queue's walk
(llist_reverse_order: a pass over the senders' remote csd lines) that no handler-only symbol names.

So each CPU's trace is read as episodes: an episode starts at the interrupt's entry (ENTRY, when none
is open: the stub's first instruction) and ends at the first instruction after the return path (RETURN) that is not on it: the
interrupted code resuming.  The instruction before the entry names what was interrupted.  An episode
cut by a sampling window's edge is counted for its time (the traced part: an entry with no return,
or a return with no entry, whose time from the window's start is then the episode's), not for what
it interrupted.  Pure: trace lines in, per-ROI tallies out.
"""

from collections import Counter

from vmscale.lockholds import roi_of
from vmscale_gem5.profile import TRACE_LINE

ENTRY = frozenset({"asm_sysvec_call_function", "asm_sysvec_call_function_single"})
# x86-64 entry code's interrupt return (6.12 arch/x86/entry/entry_64.S): error_return, then the kernel's
# or user mode's restore and the iret
RETURN = frozenset({"error_return", "common_interrupt_return", "restore_regs_and_return_to_kernel",
                    "swapgs_restore_regs_and_return_to_usermode", "native_irq_return_iret", "native_iret"})
# a shoot-down's own send-and-wait (6.12 flush_tlb_mm_range -> native_flush_tlb_multi ->
# on_each_cpu_cond_mask -> smp_call_function_many_cond, which spins in csd_lock_wait with interrupts on)
SHOOTDOWN_WAIT = frozenset({"smp_call_function_many_cond", "on_each_cpu_cond_mask", "native_flush_tlb_multi",
                            "flush_tlb_mm_range", "should_flush_tlb", "llist_add_batch",
                            "default_send_IPI_mask_sequence_phys", "default_send_IPI_mask_allbutself_phys",
                            "native_send_call_func_ipi", "x2apic_send_IPI_mask", "__x2apic_send_IPI_mask",
                            "_find_next_bit", "_find_next_and_bit"})
IDLE = frozenset({"default_idle", "pv_native_safe_halt", "native_safe_halt", "default_idle_call", "arch_cpu_idle",
                  "cpuidle_idle_call", "do_idle", "poll_idle", "mwait_idle", "acpi_idle_do_entry"})
UNKNOWN = "?"       # an episode whose entry fell before its window


def episodes(lines, rois: list, window_ticks: int) -> list:
    """Exec-trace lines -> per ROI {"ticks": every episode's traced ticks, "episodes": episodes with an
    entry seen, "whole": of those, ended in the window, "interrupted": Counter(symbol -> ticks of whole
    episodes that interrupted it)} for rois [(begin, end) ticks]; a gap in a CPU's lines of window_ticks
    or more (or a ROI's edge) is a window's edge."""
    out = [{"ticks": 0, "episodes": 0, "whole": 0, "interrupted": Counter()} for _ in rois]
    state = {}      # cpu -> [tick, roi, symbol, open episode: (start tick, interrupted) or None,
    #                        returning, ticks since the window's start with no entry seen (None after one)]
    for line in lines:
        m = TRACE_LINE.match(line)
        if not m:
            continue
        tick, cpu, pc, sym = int(m[1]), int(m[2] or 0), m[3], m[4]
        # the stub's first instruction (gem5 prints no offset there): it also runs on the way out
        entry = sym in ENTRY and line[m.end(4):m.end(4) + 1] != "+"
        i = roi_of(tick, rois)
        if i is None:
            continue
        if not sym:
            sym = "user" if int(pc, 16) < 1 << 47 else f"kernel:{pc}"
        s = state.get(cpu)
        if s is None or s[1] != i or not 0 <= tick - s[0] < window_ticks:
            if s is not None and s[3] is not None:       # cut by the window's end: its traced part
                out[s[1]]["ticks"] += s[0] - s[3][0]
            s = state[cpu] = [tick, i, sym, None, sym in RETURN, 0 if not entry else None]
            if entry:
                s[3], s[5] = (tick, UNKNOWN), None
                out[i]["episodes"] += 1
            continue
        prev_tick, _, prev, ep, returning, lead = s
        if ep is None and entry:
            ep, returning, lead = (tick, prev), False, None
            out[i]["episodes"] += 1
        elif ep is not None:
            if returning and sym not in RETURN:         # the interrupted code resumes
                out[i]["ticks"] += tick - ep[0]
                if ep[1] != UNKNOWN:    # (an entry on a window's first line: what it interrupted is not seen)
                    out[i]["whole"] += 1
                    out[i]["interrupted"][ep[1]] += tick - ep[0]
                ep, returning = None, False
            else:
                returning = returning or sym in RETURN
        elif lead is not None:      # no entry yet in this window: an episode's tail ends in a return?
            lead += tick - prev_tick
            if prev in RETURN and sym not in RETURN:
                out[i]["ticks"] += lead
                lead = None
            elif sym not in RETURN and prev not in RETURN and prev not in _HANDLER_TAIL:
                lead = None         # ordinary code first: the window did not open inside a handler
        s[:] = [tick, i, sym, ep, returning, lead]
    for s in state.values():
        if s[3] is not None:
            out[s[1]]["ticks"] += s[0] - s[3][0]
    return out


# Symbols an episode's tail runs before its return (a window that opens on one of them may have opened
# inside a handler); anything else first means it did not.
_HANDLER_TAIL = frozenset({"flush_tlb_func", "__flush_smp_call_function_queue", "llist_reverse_order",
                           "generic_smp_call_function_single_interrupt", "__sysvec_call_function",
                           "__sysvec_call_function_single", "sysvec_call_function", "sysvec_call_function_single",
                           "irq_exit_rcu", "irqentry_exit", "idle_cpu", "native_apic_mem_eoi",
                           "asm_sysvec_call_function", "asm_sysvec_call_function_single", "irq_enter_rcu",
                           "irqentry_enter", "native_flush_tlb_one_user", "native_flush_tlb_local",
                           "flush_tlb_one_user", "switch_mm_irqs_off", "error_entry", "sync_regs"})


def split(interrupted: Counter) -> dict:
    """Shares of whole episodes' time by what they interrupted: 'wait' (the CPU's own shoot-down),
    'idle', 'work' (the rest: its operation, a lock spin it holds a place in); empty with none."""
    total = sum(interrupted.values())
    if total <= 0:
        return {}
    wait = sum(v for k, v in interrupted.items() if k in SHOOTDOWN_WAIT)
    idle = sum(v for k, v in interrupted.items() if k in IDLE)
    return {"wait": wait / total, "idle": idle / total, "work": (total - wait - idle) / total}
