"""vmscale.ring on the shipped 20-core traces of `pipeline` (two sockets): the ring of mailboxes is
found, every thread goes at one pace, and the slowest is the one whose predecessor sits on the other
socket."""

from pathlib import Path

import pytest

from vmscale import ring
from vmscale_model import ring as model_ring
from vmscale.errors import VmscaleError

RECORD = Path(__file__).resolve().parents[1] / "results" / "gem5-e7-8870-pipeline-global"
PERCORE = RECORD / "020c-pipeline-radixvm-percore-hotlines"
SHARED = RECORD / "020c-pipeline-radixvm-hotlines"


@pytest.fixture(scope="module")
def percore():
    return ring.analyse(PERCORE)


def test_every_thread_has_its_box_and_one_pace(percore):
    assert [r["cpu"] for r in percore] == list(range(20))
    periods = [r["period_cycles"] for r in percore]
    # the boxes hold one page: no thread can run ahead of the ring for long
    assert max(periods) / min(periods) < 1.1
    for r in percore:
        assert r["iterations"] >= 35
        assert r["busy_cycles"] + r["wait_in_cycles"] + r["wait_out_cycles"] == pytest.approx(r["period_cycles"])


def test_the_slowest_thread_is_a_cross_socket_consumer_and_never_waits(percore):
    s = ring.summary(percore)
    assert s["slowest_pred_cross_socket"]
    assert s["slowest_cpu"] in (0, 10)
    assert s["slowest_wait_cycles"] < 0.02 * s["period_cycles"]
    assert s["slowest_busy_cycles"] == pytest.approx(s["period_cycles"], rel=0.03)
    # the threads on the predecessor's socket wait for it
    assert s["mean_busy_cycles"] < 0.95 * s["slowest_busy_cycles"]


def test_a_page_comes_from_the_predecessor_and_costs_more_across_the_socket_link(percore):
    on = [r["pred_latency_cycles"] for r in percore if not r["pred_cross_socket"]]
    across = [r["pred_latency_cycles"] for r in percore if r["pred_cross_socket"]]
    assert len(across) == 2
    for r in percore:       # a page's 64 lines, checked, written and checked again: most of its moves
        assert r["pred_moves_per_op"] > 100 > r["succ_moves_per_op"]
    assert min(across) > 1.2 * max(on)


def test_the_shared_table_design_is_a_ring_too():
    rows = ring.analyse(SHARED)
    s = ring.summary(rows)
    # every munmap here interrupts every CPU: the slowest is still one at the socket link
    assert len(rows) == 20 and s["slowest_cpu"] in (0, 9, 10, 19)


def test_a_run_without_a_ring_is_refused():
    other = RECORD.parent / "gem5-e7-8870-handover" / "010c-refcount-stock"     # one shared atomic, no boxes
    with pytest.raises(VmscaleError, match="ring of mailboxes"):
        ring.analyse(other)


def test_the_csv_holds_a_row_per_thread(percore):
    text = ring.to_csv(percore)
    assert text.splitlines()[0].startswith("case,kernel_variant,workload,cores,cpu")
    assert len(text.splitlines()) == 21


def test_the_first_page_is_handed_on_after_its_set_up(percore):
    # the ROI's fixed part: every thread's first mmap and fault, before the ring turns
    firsts = [r["first_put_cycles"] for r in percore]
    assert min(firsts) > 2 * min(r["busy_cycles"] for r in percore)
    assert ring.summary(percore)["last_first_put_cycles"] == max(firsts)


def test_the_iterations_are_the_threads_busy_time_and_vary_apart(percore):
    import numpy as np
    its = ring.iteration_rows(percore)
    by = {}
    for r in its:
        by.setdefault(r["cpu"], []).append(r["busy_cycles"])
    for r in percore:
        assert np.mean(by[r["cpu"]]) == pytest.approx(r["busy_cycles"])
    m = np.array([v[:35] for _, v in sorted(by.items())])
    # the first iteration after a thread's first page is a warm-up (about twice the rest) ...
    assert m[:, 0].mean() > 1.5 * m[:, ring.WARM:].mean()
    # ... after which the threads vary little and independently, and so a ring of them paces at its
    # slowest thread's mean: at 20 cores the variation adds no wait
    v = ring.variation(percore)
    assert v["cv"] < 0.1 and abs(v["correlation"]) < 0.2
    assert v["independent_period_cycles"] == pytest.approx(v["slowest_mean_cycles"], rel=0.02)


def test_a_ring_of_equal_threads_waits_for_their_variation():
    import numpy as np
    res = np.random.default_rng(0).uniform(0.8, 1.2, 1000)
    alone = model_ring.simulated_period([100.0], res)
    assert alone == pytest.approx(100, rel=0.02)
    # the ring goes at the pace of its worst draws, more so the more threads
    p4, p64 = model_ring.simulated_period([100.0] * 4, res), model_ring.simulated_period([100.0] * 64, res)
    assert 100 * 1.02 < p4 < p64 < 120
    # one slow thread sets the pace of all
    assert model_ring.simulated_period([100.0] * 7 + [150.0], np.ones(10)) == pytest.approx(150)


def test_the_pace_through_the_roi_finds_the_spells_a_stall_costs():
    # a ring of 4 threads at 100 cycles an item, all held up 300 cycles once: one spell, its 300 lost
    takes = [[c + 100.0 * i + (300 if i >= 20 else 0) for i in range(40)] for c in range(4)]
    rows = [{"period_cycles": 100.0, "take_cycles": t} for t in takes]
    p = ring.pace(rows)
    assert p["steady_period_cycles"] == pytest.approx(100)
    # (a stall may fall across two bins: both are spells then)
    assert 1 <= len(p["spells"]) <= 2 and p["lost_cycles"] == pytest.approx(300, rel=0.02)
    # without a stall there is none; without takes there is no pace
    steady = [{"period_cycles": 100.0, "take_cycles": [c + 100.0 * i for i in range(40)]} for c in range(4)]
    assert ring.pace(steady)["spells"] == [] and ring.pace(steady)["lost_cycles"] == 0
    assert ring.pace([{"period_cycles": 100.0, "take_cycles": []}]) == {}


def test_the_traced_20_core_ring_keeps_its_pace(percore):
    p = ring.pace(percore)
    # the shipped trace: no spell at 20 cores, and the steady pace is the threads' period
    assert p["spells"] == [] and p["bins"] >= 8
    assert p["steady_period_cycles"] == pytest.approx(ring.summary(percore)["period_cycles"], rel=0.05)
