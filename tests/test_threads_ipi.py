"""The receivers' side of shoot-downs from a profiled ROI's sampled symbols (vmscale.threads.ipi_row)."""

from collections import Counter

import pytest

from vmscale import threads


def _cpu(**ticks):
    return {"insts": Counter({k: 1 for k in ticks}), "ticks": Counter(ticks)}


def test_handler_time_per_ipi_scales_the_sampled_windows_to_the_roi():
    # 2 CPUs, each 500 ps of every 1,000 ps traced; 1 ps per cycle
    sy = {0: _cpu(flush_tlb_func=300, user=5000, do_user_addr_fault=700),
          1: _cpu(sysvec_call_function=100, native_apic_mem_eoi=100, smp_call_function_many_cond=900)}
    row = threads.ipi_row(sy, received=4, ops=2, window_ticks=500, tick_per_cycle=1.0, period_ticks=1000)
    # handler ticks 500 sampled -> 1,000 in the ROI, over 4 IPIs; the initiator's wait is not the handler's
    assert row["kind"] == "ipi" and row["hold_cycles"] == pytest.approx(250.0)
    assert row["holds_per_op"] == pytest.approx(2.0) and row["holds"] == 4


def test_none_without_ipis_or_samples():
    sy = {0: _cpu(user=100)}
    assert threads.ipi_row(sy, 4, 2, 500, 1.0, 1000) is None
    assert threads.ipi_row({0: _cpu(flush_tlb_func=100)}, 0, 2, 500, 1.0, 1000) is None
