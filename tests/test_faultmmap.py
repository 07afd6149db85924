"""Bonsai Figure 18's twin: fault cost while thread 0 maps, relative to each design's own base."""

import json

import pytest

from vmscale import faultmmap, report
from vmscale.errors import VmscaleError
from vmscale.rows import curve_labels


def _row(variant, pct, per_fault, thread0=None, threads=4, faults=100):
    cycles = [thread0 or per_fault * faults] + [per_fault * faults] * (threads - 1)
    return {"workload": "fault", "kernel_variant": variant, "backend": "gem5", "gem5.board": "board=e7-8870",
            "cores": str(threads), "threads": str(threads), "ok": "True", "ops": str(threads * faults),
            "params.mmap_pct": str(pct), "thread_cycles": json.dumps(cycles),
            "window_cycles_per_op": str(per_fault * 1.05), "cycles_per_op": str(per_fault)}


def test_the_faulting_threads_cost_is_normalised_to_the_designs_own_base():
    rows = [_row("rwlock", 0, 50_000), _row("rwlock", 50, 150_000, thread0=10**9),
            _row("rcu", 0, 48_000), _row("rcu", 50, 49_000, thread0=10**9),
            _row("stock", 50, 60_000)]                       # no base: nothing to normalise to
    rel = faultmmap.relative(rows)
    (key, by), = rel.items()
    assert key == (4, "board=e7-8870") and set(by) == {"rwlock", "rcu"}
    # thread 0's own cycles (its mappings) are not a fault's cost
    assert by["rwlock"][50.0]["cost"] == pytest.approx(150_000)
    assert by["rwlock"][50.0]["relative"] == pytest.approx(3.0)
    assert by["rcu"][50.0]["relative"] == pytest.approx(49 / 48)
    assert by["rwlock"][0.0]["relative"] == 1.0
    md = faultmmap.markdown(rel)
    assert "| rwlock | 1.00x (50,000) [1.00] | 3.00x (150,000) [3.00] |" in md
    assert "29x" in md and "not our data" in md


def test_one_mmap_pct_is_not_a_figure_18():
    assert faultmmap.relative([_row("rwlock", 0, 50_000), _row("rcu", 0, 48_000)]) == {}


def test_a_row_without_per_thread_cycles_is_refused():
    r = _row("rwlock", 0, 50_000)
    r["thread_cycles"] = ""
    with pytest.raises(VmscaleError, match="per-thread cycles"):
        faultmmap.faulting_cost(r)


def test_curves_of_different_mmap_pct_are_never_averaged():
    rows = [_row("rwlock", 0, 50_000), _row("rwlock", 50, 150_000)]
    a, b = curve_labels(rows, with_backend=False)
    assert a != b and "mmap_pct=0" in a and "mmap_pct=50" in b
    # one value in a table: labels as before
    assert curve_labels(rows[:1], with_backend=False) == ["rwlock (board=e7-8870)"]


def test_the_report_has_the_twin_with_its_figure(tmp_path):
    rows = [_row(v, p, c) for v, p, c in (("rwlock", 0, 50_000), ("rwlock", 25, 90_000),
                                           ("rcu", 0, 48_000), ("rcu", 25, 48_500))]
    table = tmp_path / "t.csv"
    import csv
    keys = sorted({k for r in rows for k in r})
    with open(table, "w", newline="") as f:
        w = csv.DictWriter(f, keys)
        w.writeheader()
        w.writerows(rows)
    md = report.report(table, tmp_path / "r").read_text()
    assert "### Bonsai Figure 18" in md and "| rwlock | 1.00x (50,000) [1.00] | 1.80x (90,000) [1.80] |" in md
    assert (tmp_path / "r" / "twin-fault-mmap.png").stat().st_size > 10_000


def test_several_core_counts_give_the_growth_with_the_machine(tmp_path):
    rows = []
    for threads, ratio in ((10, 2.0), (20, 3.0), (40, 5.0)):
        rows += [_row("rwlock", 0, 50_000, threads=threads), _row("rwlock", 50, 50_000 * ratio, threads=threads),
                 _row("rcu", 0, 48_000, threads=threads), _row("rcu", 50, 48_000 * 1.1, threads=threads)]
    rows.append(_row("stock", 0, 52_000, threads=10))
    rows.append(_row("stock", 50, 53_000, threads=10))   # one core count: in its table, not in the growth
    rel = faultmmap.relative(rows)
    grown = faultmmap.by_cores(rel)
    assert list(grown) == [("board=e7-8870", 50.0)]
    assert grown[("board=e7-8870", 50.0)]["rwlock"] == pytest.approx({10: 2.0, 20: 3.0, 40: 5.0})
    assert grown[("board=e7-8870", 50.0)]["stock"] == pytest.approx({10: 53 / 52})
    md = faultmmap.markdown(rel)
    assert "| rwlock | 2.00x | 3.00x | 5.00x |" in md and "| stock | 1.02x | - | - |" in md
    assert faultmmap.plot(rel, str(tmp_path / "f"))
    assert (tmp_path / "f.png").stat().st_size > 10_000


def test_one_core_count_has_no_growth_table():
    rel = faultmmap.relative([_row("rwlock", 0, 50_000), _row("rwlock", 50, 150_000)])
    assert faultmmap.by_cores(rel) == {} and "by core count" not in faultmmap.markdown(rel)
