"""The fidelity card: Timing vs O3 on one board, from the shipped tables."""

import csv

import pytest

from conftest import REPO, vmscale
from vmscale import fidelity
from vmscale.collect import replaced
from vmscale.errors import VmscaleError

TIMING = REPO / "results" / "gem5-e7-8870" / "table.csv"
O3 = REPO / "results" / "gem5-e7-8870-o3" / "table.csv"


def _rows(*paths):
    return [r for p in paths for r in csv.DictReader(open(p, newline=""))]


def _mean_cost(rows, workload, variant, cores, o3):
    xs = [float(r["window_cycles_per_op"]) for r in rows
          if r["workload"] == workload and r["kernel_variant"] == variant and int(r["cores"]) == cores
          and ("cpu=o3" in r["gem5.board"]) == o3 and r["ok"] == "True"]
    return sum(xs) / len(xs) if xs else None


def test_the_card_holds_each_models_costs_and_ratios_and_the_papers_figure(tmp_path):
    rows = _rows(TIMING, O3)
    board, pts = fidelity.points(replaced([_rows(TIMING), _rows(O3)]))
    assert board == "board=e7-8870"
    card = {(r["workload"], r["kernel_variant"]): r for r in fidelity.card(pts, 1, 10)}
    t1, t10 = (_mean_cost(rows, "fault", "stock", n, False) for n in (1, 10))
    r = card[("fault", "stock")]
    assert r["timing_1"] == pytest.approx(t1) and r["timing_ratio"] == pytest.approx(t10 / t1)
    assert r["o3_1"] == pytest.approx(_mean_cost(rows, "fault", "stock", 1, True))
    assert r["published_10"] == 7400 and "7,400" in r["published_what"]
    assert card[("refcount", "stock")]["published_what"] == ""      # the paper gives no absolute count
    r = vmscale("fidelity", TIMING, O3, "--out", tmp_path / "f")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "f" / "fidelity.md").read_text()
    assert "| fault | stock |" in md and "Balanced Trees" in md     # the cited source under the table
    assert (tmp_path / "f" / "fidelity.png").stat().st_size > 0
    assert len(list(csv.DictReader(open(tmp_path / "f" / "fidelity.csv")))) == len(card)


def test_rows_of_two_boards_or_of_no_pair_of_counts_are_refused(tmp_path):
    with pytest.raises(VmscaleError, match="[0-9]+ boards.*one board"):
        fidelity.points(replaced([_rows(TIMING), _rows(REPO / "results" / "gem5-scaling" / "table.csv")]))
    _, pts = fidelity.points(_rows(O3))
    with pytest.raises(VmscaleError, match="at both 2 and 64 cores"):
        fidelity.card(pts, 2, 64)
    for bad in ("10", "10,1", "a,b"):
        r = vmscale("fidelity", TIMING, "--cores", bad, "--out", tmp_path / "x")
        assert r.returncode == 2 and "--cores" in r.stderr and not (tmp_path / "x").exists()
    r = vmscale("fidelity", tmp_path / "none.csv", "--out", tmp_path / "y")
    assert r.returncode == 2 and "no such table" in r.stderr


def test_a_later_tables_point_replaces_an_earlier_ones():
    """A re-made record given after the one it supersedes: its points are the card's, not a mean."""
    old = _rows(TIMING)
    new = [dict(r, window_cycles_per_op=str(2 * float(r["window_cycles_per_op"]))) for r in old
           if r["workload"] == "fault" and r["kernel_variant"] == "stock" and r["ok"] == "True"]
    _, pts = fidelity.points(replaced([old, new]))
    key = ("fault", "stock", "timing", 1)
    assert pts[key] == pytest.approx(2 * _mean_cost(old, "fault", "stock", 1, False))
    assert pts[("fault", "rcu", "timing", 1)] == pytest.approx(_mean_cost(old, "fault", "rcu", 1, False))
    _, pts = fidelity.points(replaced([new, old]))
    assert pts[key] == pytest.approx(_mean_cost(old, "fault", "stock", 1, False))


def test_a_longer_roi_at_one_count_is_not_averaged_into_the_curve():
    """The warm record's fault has a 4-round curve (1-80) beside the 2-round one (1-160): the
    2-round curve's point at 80 is the 2-round one, and the report's ratios compare curves of one
    ROI size."""
    from vmscale.published import our_ratios
    rows = _rows(REPO / "results" / "gem5-e7-8870-warm" / "table.csv")
    fault = [r for r in rows if r["workload"] == "fault"]
    two = [r for r in fault if r["ops"] == str(128 * int(r["cores"]))]
    assert len(two) < len(fault)                  # the table has longer ROIs at some counts
    _, pts = fidelity.points(fault)
    for v in ("rcu", "rwlock"):
        (x,) = [float(r["window_cycles_per_op"]) for r in two if r["kernel_variant"] == v and r["cores"] == "80"]
        assert pts[("fault", v, "timing", 80)] == pytest.approx(x)
    text = our_ratios(fault)
    # the 2-round curves first (they reach 160), then the 4-round ones (1-80 since session 62), never one over the other
    first, _, rest = text.partition(" Curves of another ROI size, ")
    assert first.startswith("Ours (cycles per operation, window: all threads running) at 80 cores") and "256 ops" not in first
    assert rest.startswith("at 80 cores") and "128 ops" not in rest and "[256 ops/thread] / rcu" in rest
