"""TLB shoot-downs carried past the fitted core counts (vmscale_model.shootdowns): by hand, and on the
reference board's pageshare under RadixVM with a shared atomic count (fitted on 1-20 cores, judged at 40)."""

import csv
from pathlib import Path

import pytest

from vmscale_gem5.board import Board
from vmscale_model import fit as fitlib
from vmscale_model import shootdowns, study

REPO = Path(__file__).resolve().parent.parent
RECORD = REPO / "results" / "gem5-e7-8870-share-cache-reclaim-warm"


def _rows(points):
    """points: {cores: (targets per op, cycles per target)}, 100 ops each."""
    return [{"cores": str(n), "ops": "100", shootdowns.TARGETS: str(100 * t), shootdowns.CYCLES: str(100 * t * p)}
            for n, (t, p) in points.items()] + [{"cores": "1", "ops": "100", shootdowns.TARGETS: "0",
                                                 shootdowns.CYCLES: "0"}]


def far(n):         # one socket to 10 cores, then farther
    return 100.0 if n <= 10 else 300.0


def test_a_broadcast_grows_with_the_other_cpus_and_the_path_to_them():
    s = shootdowns.Carried(_rows({4: (3.0, 1000.0), 10: (9.0, 1000.0), 20: (19.0, 3000.0)}), far)
    assert s.broadcast and (s.n0, s.n1) == (20, 10) and s.slope == pytest.approx(2000 / 200)
    assert s.per_op(1) == 0.0
    assert s.per_op(20) == pytest.approx(19 * 3000)        # the measured count, unchanged
    assert s.per_op(40) == pytest.approx(39 * 3000)        # same path (far(40) == far(20)): the targets alone


def test_a_targeted_shootdown_keeps_its_targets():
    s = shootdowns.Carried(_rows({10: (2.0, 1000.0), 20: (2.0, 1500.0)}), far)
    assert not s.broadcast
    assert s.per_op(80) == pytest.approx(2 * 1500)


def test_no_shootdowns_add_nothing():
    s = shootdowns.Carried(_rows({}), far)
    assert not s and s.per_op(80) == 0.0 and s.describe() == ""


def test_pageshare_shootdowns_at_40_from_10_and_20_cores():
    """The shared-table RadixVM flushes every CPU on each munmap: the wait per operation at 40
    cores, carried from 10 and 20 by the reference board's distances, within 10% of the kernel's
    count there (a third of it in more targets, the rest in longer trips)."""
    rows = fitlib.load_table(RECORD / "table.csv", "pageshare")
    curve = [r for r in rows if r["kernel_variant"] == "radixvm-atomic"]
    board = Board.make("board=e7-8870")
    s = shootdowns.Carried([r for r in curve if int(r["cores"]) <= 20], board.transfer_cycles)
    assert s.broadcast and (s.n0, s.n1) == (20, 10) and s.slope > 0
    (t40, p40), = [v for n, v in shootdowns.measured(curve).items() if n == 40]
    assert s.per_op(40) == pytest.approx(t40 * p40, rel=0.10)


def test_the_hot_lines_with_shootdowns_judge_pageshare_at_40():
    """Without the shoot-downs the hot lines of the shared atomic over-predict 40 cores threefold
    (their think time is one core's, which has none); with them, within 20%."""
    rows = fitlib.load_table(RECORD / "table.csv", "pageshare")
    trace = list(csv.DictReader(open(RECORD / "020c-pageshare-radixvm-atomic-hotlines" / "hotlines.csv", newline="")))
    out = study.study(rows, train_max=20, hotlines=trace, boards=lambda label: Board.make(label) if label else None)
    key = next(k for k in out if k.startswith("pageshare/radixvm-atomic/"))
    j = out[key]["methods"]["hotboard"]
    assert out[key]["held_cores"][0] == 40
    assert "shoot-downs to every other CPU" in j["params"]["shootdowns"]
    assert abs(j["error"][0]) < 0.20, j["error"]


def _received(points):
    """points: {cores: IPIs received per op}, 100 ops each, with the shoot-downs' own columns."""
    return [{"cores": str(n), "ops": "100", shootdowns.RECEIVED: str(100 * q)} for n, q in points.items()] + [
        {"cores": "1", "ops": "100", shootdowns.RECEIVED: "0"}]


def _ipi(points):
    return [{"cores": str(n), "kind": "ipi", "site": "call-function-ipi", "hold_cycles": str(h)}
            for n, h in points.items()]


def test_the_receivers_handler_time_follows_the_other_cpus_and_the_path():
    r = shootdowns.Received(_received({10: 9.0, 20: 19.0}), _ipi({10: 800.0, 20: 1000.0}), far)
    assert r and r.broadcast and r.slope == pytest.approx(200 / 200)
    assert r.per_op(1) == 0.0
    assert r.per_op(20) == pytest.approx(19 * 1000)
    assert r.per_op(40) == pytest.approx(39 * 1000)       # same path: the IPIs alone
    assert r.per_op(10) == pytest.approx(9 * 800)         # below the top profile: the line through both


def test_no_profile_or_no_ipis_add_nothing():
    assert shootdowns.Received(_received({10: 9.0, 20: 19.0}), [], far).per_op(80) == 0.0
    assert shootdowns.Received(_received({}), _ipi({20: 900.0}), far).per_op(80) == 0.0
    # a profile past the fitted counts is never an input
    assert not shootdowns.Received(_received({10: 9.0, 20: 19.0}), _ipi({40: 900.0}), far)


def test_a_targeted_count_of_ipis_keeps_its_rate():
    r = shootdowns.Received(_received({10: 2.0, 20: 2.0}), _ipi({20: 1000.0}), far)
    assert not r.broadcast and r.per_op(80) == pytest.approx(2 * 1000)


def test_only_the_handler_time_that_interrupted_work_is_added():
    rows = _ipi({10: 800.0, 20: 1000.0})
    for r in rows:      # the top count's split is the one used
        r["work_share"] = "0.4" if int(float(r["cores"])) == 20 else "0.9"
    r = shootdowns.Received(_received({10: 9.0, 20: 19.0}), rows, far)
    assert r.work == pytest.approx(0.4) and r.per_op(40) == pytest.approx(39 * 1000 * 0.4)
    assert "40% of it interrupting work" in r.describe()
    # a row without the split (NaN, as holds.csv writes it) counts all of it
    for row in rows:
        row["work_share"] = "nan"
    assert shootdowns.Received(_received({10: 9.0, 20: 19.0}), rows, far).per_op(40) == pytest.approx(39 * 1000)


def test_a_broadcast_is_one_on_a_crossbar_too():
    # every count has the same path there: the wait per target stays, the targets still follow N - 1
    rows = [{"cores": n, "ops": 100 * n, shootdowns.TARGETS: 100 * n * (n - 1), shootdowns.CYCLES: 100 * n * (n - 1) * 500}
            for n in (2, 4, 10, 20)]
    sd = shootdowns.Carried(rows, lambda n: 7.0)
    assert sd.broadcast and sd.slope == 0
    assert sd.per_op(40) == pytest.approx(39 * 500) and sd.per_op(80) == pytest.approx(2 * sd.per_op(40) * 79 / 78)
