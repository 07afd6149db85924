"""Published real-machine scaling beside our curves: cited, its own columns and panel, ratios both sides."""

import csv

import pytest

from conftest import REPO, vmscale
from vmscale import fidelity, realmachines, report
from vmscale.errors import VmscaleError

TO80 = REPO / "results" / "gem5-e7-8870-to-80c" / "table.csv"
O3 = REPO / "results" / "gem5-e7-8870-o3" / "table.csv"


def _rows(*paths):
    return [r for p in paths for r in csv.DictReader(open(p, newline=""))]


def test_every_published_series_is_cited_and_its_ratios_are_its_rates_over_one_thread():
    for entry in realmachines.PUBLISHED:
        assert entry["source"] and entry["machine"] and entry["benchmark"]
        assert 0 < entry["cores"] <= entry["hw_threads"]
        for label, (ours, rates) in entry["series"].items():
            assert ours in (None, "stock", "rwlock", "rcu"), label
            r = realmachines.ratios(rates)
            assert r[1] == 1 and all(r[n] == pytest.approx(rates[n] / rates[1]) for n in rates)
    with pytest.raises(VmscaleError, match="one thread"):
        realmachines.ratios({4: 2.0, 8: 3.0})


def test_our_ratio_is_throughput_at_n_over_one_core_from_the_window_cost():
    _, pts = fidelity.points(_rows(TO80))
    mine = realmachines.ours(pts, "fault")
    cost = {n: c for (w, v, cpu, n), c in pts.items() if (w, v, cpu) == ("fault", "stock", "timing")}
    assert mine[("stock", "timing")][40] == pytest.approx(40 * cost[1] / cost[40])
    # a curve without a one-core point has no ratio
    no_one = {k: c for k, c in pts.items() if k[3] != 1}
    with pytest.raises(VmscaleError, match="one-core point"):
        realmachines.ours(no_one, "fault")


def test_the_command_writes_both_tables_apart_and_the_report_carries_them(tmp_path):
    r = vmscale("realscale", TO80, O3, "--out", tmp_path / "x")
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "x" / "realscale.md").read_text()
    assert "Published, not our data" in md and "87fsaqouyd" in md and "Ice Lake" in md
    assert "| cores | rcu (o3) |" in md and "stock (timing)" in md
    rows = list(csv.DictReader(open(tmp_path / "x" / "realscale.csv")))
    assert {r["source"] for r in rows} == {"published", "vmscale"}
    assert all(r["machine"] for r in rows if r["source"] == "published")
    assert (tmp_path / "x" / "realscale.png").stat().st_size > 10_000
    path = report.report(TO80, tmp_path / "r")
    text = path.read_text()
    assert "realscale-fault.png" in text and "per-VMA locks, one VMA" in text
    assert (tmp_path / "r" / "realscale-fault.png").is_file()


def test_bad_input_is_refused_with_the_reason(tmp_path):
    r = vmscale("realscale", TO80, "--workload", "refcount", "--out", tmp_path / "a")
    assert r.returncode == 2 and "no published real-machine scaling" in r.stderr
    r = vmscale("realscale", tmp_path / "none.csv", "--out", tmp_path / "b")
    assert r.returncode == 2 and "no such table" in r.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_shipped_record_is_the_commands_output(tmp_path):
    shipped = REPO / "results" / "real-machine-fault"
    r = vmscale("realscale", TO80, O3, "--out", tmp_path / "x")
    assert r.returncode == 0, r.stderr
    assert (shipped / "realscale.csv").read_text() == (tmp_path / "x" / "realscale.csv").read_text()
    assert (shipped / "realscale.md").read_text() == (tmp_path / "x" / "realscale.md").read_text()
