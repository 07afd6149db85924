"""Predictions past the simulated machine (vmscale_model.beyond), on the reference board's shipped
`local`/stock curve, its hot-line trace and its lock profiles: each interconnect carries the same
stations by its own distances."""

import glob
from pathlib import Path

from vmscale_model import beyond, fit as fitlib
from vmscale_model.cli import hold_rows, hotline_rows, main

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "results" / "gem5-e7-8870-warm" / "table.csv"


def _inputs():
    traces = [r for p in glob.glob(str(REPO / "results/gem5-e7-8870-local-hotlines/0*c-local-stock/hotlines.csv"))
              for r in hotline_rows(p)]
    holds = [r for p in glob.glob(str(REPO / "results/gem5-e7-8870-profiles/0*c-local-stock-warm/holds.csv"))
             for r in hold_rows(p)]
    return fitlib.load_table(TABLE, "local"), traces, holds


def test_each_interconnect_carries_the_traced_stations_by_its_own_distances():
    rows, traces, holds = _inputs()
    pred = beyond.predict(rows, traces, holds, 20, (40, 80), ("sockets", "crossbar"))
    got = {(p["variant"], p["method"], p["interconnect"], p["cores"]): p for p in pred}
    assert {v for v, *_ in got} == {"stock"}          # the only traced `local` case
    s80, x80 = got[("stock", "hotlocks", "sockets", 80)], got[("stock", "hotlocks", "crossbar", 80)]
    # a crossbar's transfer costs the same at any size; the sockets' path grows past two sockets
    assert x80["throughput"] > s80["throughput"]
    assert s80["low"] < s80["throughput"] < s80["high"]
    # the measured point belongs to the board it was measured on, not to a hypothetical one
    assert s80["measured"] > 0 and x80["measured"] != x80["measured"]
    usl = got[("stock", "usl", "any", 80)]
    assert usl["low"] != usl["low"] and usl["measured"] == s80["measured"]
    md = beyond.table_md(pred)
    assert "| local / stock (10 ops per thread) | hotlocks | crossbar |" in md and "measured" in md


def test_the_command_writes_the_table_and_a_figure_per_curve(tmp_path):
    traces = glob.glob(str(REPO / "results/gem5-e7-8870-local-hotlines/0*c-local-stock/hotlines.csv"))
    holds = glob.glob(str(REPO / "results/gem5-e7-8870-profiles/0*c-local-stock-warm/holds.csv"))
    rc = main(["beyond", str(TABLE), "--workload", "local", "--hotlines", *traces, "--holds", *holds,
               "--topology", "sockets", "--cores", "40,80", "--out", str(tmp_path)])
    assert rc == 0
    assert (tmp_path / "local-stock-10.png").is_file() and "hotlocks" in (tmp_path / "beyond.md").read_text()


def test_no_traced_curve_is_a_clear_error(tmp_path, capsys):
    other = glob.glob(str(REPO / "results/gem5-e7-8870-fault-hotlines/0*c-fault-stock/hotlines.csv"))
    rc = main(["beyond", str(TABLE), "--workload", "local", "--hotlines", *other, "--topology", "sockets",
               "--cores", "40", "--out", str(tmp_path)])
    assert rc != 0 and "hot-line trace" in capsys.readouterr().err


def test_its_figures_are_the_same_bytes_whatever_the_interpreter_s_hash_seed(tmp_path):
    """A record's make.sh re-makes its figures exactly: nothing in them follows set order."""
    import os
    import subprocess
    import sys
    traces = glob.glob(str(REPO / "results/gem5-e7-8870-local-hotlines/0*c-local-stock/hotlines.csv"))
    holds = glob.glob(str(REPO / "results/gem5-e7-8870-profiles/0*c-local-stock-warm/holds.csv"))
    # the two interpreters side by side: CI's machine has two CPUs
    procs = {seed: subprocess.Popen([sys.executable, "-m", "vmscale_model.cli", "beyond", str(TABLE), "--workload",
                                     "local", "--hotlines", *traces, "--holds", *holds, "--cores", "40,80",
                                     "--out", str(tmp_path / seed)],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    env={**os.environ, "PYTHONHASHSEED": seed})
             for seed in ("1", "2")}
    svgs, outs = [], {}
    try:
        for seed, p in procs.items():
            outs[seed] = p.communicate(timeout=600)[0]
    finally:
        for p in procs.values():
            p.kill()
    for seed, p in procs.items():
        assert p.returncode == 0, outs[seed][-2000:]
        svgs.append(sorted((f.name, f.read_bytes()) for f in (tmp_path / seed).glob("*.svg")))
    assert svgs[0] and svgs[0] == svgs[1]


def test_the_figure_draws_a_traced_method_from_its_anchor_up():
    """The shared atomic's hot lines are anchored at 20 cores, where its work outside the line costs 7x its
    one-core cost: drawn below 20 the line would be a tenth of the measured throughput there. The USL,
    fitted to every point, is drawn over all of them."""
    from vmscale_model import plot
    rows = fitlib.load_table(REPO / "results" / "gem5-e7-8870-to-80c" / "table.csv", "refcount")
    traces = [r for p in glob.glob(str(REPO / "results/gem5-e7-8870-handover/0*c-refcount-stock/hotlines.csv"))
              for r in hotline_rows(p)]
    pred = beyond.predict(rows, traces, [], 20, beyond.FIGURE_CORES, ("sockets",))
    series = dict(plot.beyond_series(pred, 20))
    assert list(series)[-1] == ("any", "usl")
    assert [p["cores"] for p in series[("any", "usl")]] == list(beyond.FIGURE_CORES)
    carried = series[("sockets", "hotboard")]
    assert carried and min(p["cores"] for p in carried) == 20
    # what was left out: the anchored model far below the measured one-core throughput
    one = next(p for p in pred if p["method"] == "hotboard" and p["cores"] == 1)
    assert one["throughput"] < 0.5 * one["measured"]
