"""Papers' stated numbers sit beside our figures, cited, and never enter our tables."""

import csv

from vmscale import plots, published, report


def _table(tmp_path, workload):
    path = tmp_path / "table.csv"
    rows = [{"workload": workload, "kernel_variant": v, "backend": "gem5", "cores": n, "ok": "True",
             "cycles_per_op": 7000 * (1 + k * n / 8), "ops_per_mcycle": 1, "kernel_release": "6.12"}
            for k, v in enumerate(["rcu", "rwlock"]) for n in (1, 2, 4, 8)]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return path


def test_every_published_point_is_cited_and_well_formed():
    for workload, p in published.PUBLISHED.items():
        assert p["source"] and p["machine"] and p["figure"] and p["claims"], workload
        for label, cores, value, rel in p["points"]:
            assert cores > 0 and value > 0 and rel in ("=", "~", ">"), (workload, label)
    # Bonsai's text: RCU at 80 cores, and lock-based designs more than ten times the 10-core cost
    assert ("pure RCU", 80, 8869, "=") in published.points("fault")


def test_the_report_puts_the_papers_numbers_beside_ours_not_in_them(tmp_path):
    table = _table(tmp_path, "fault")
    before = table.read_text()
    path = report.report(table, tmp_path / "r")
    text = path.read_text()
    assert "Published (Bonsai Figures 16-17" in text and "not our data" in text
    assert "| pure RCU | 80 | 8,869 |" in text
    assert (tmp_path / "r/twin-fault.png").stat().st_size > 10_000
    assert table.read_text() == before   # nothing written into our data
    # 8 cores: rcu 7000 x 1, rwlock 7000 x 2; growth from 2 cores: rcu 1x, rwlock 2 / 1.25 = 1.6x
    assert "at 8 cores: rwlock / rcu = 2.00" in text
    assert "rcu 1.00x from 2 to 8 cores; rwlock 1.60x from 2 to 8 cores" in text
    assert "8869" not in "".join(r["cycles_per_op"] for r in plots.read_table(table))


def test_no_twin_without_published_numbers(tmp_path):
    # stress: nothing published; local: the paper states claims but no number to plot
    table = _table(tmp_path, "stress")
    assert plots.twin_plot(table, str(tmp_path / "t"), "stress") == []
    assert published.markdown("stress") == ""
    table = _table(tmp_path, "local")
    assert plots.twin_plot(table, str(tmp_path / "t"), "local") == []
    text = published.markdown("local")
    assert "not our data" in text and "EuroSys 2013, sections 5.3 and 5.5" in text and "| design |" not in text


def test_curve_labels_keep_boards_and_roi_sizes_apart():
    from vmscale.rows import curve_labels
    rows = [{"workload": "refcount", "kernel_variant": "stock", "backend": "gem5", "cores": 2, "threads": 2, "ops": o,
             "gem5.board": b} for o, b in ((4000, ""), (8000, ""), (4000, "l2_assoc=64"))]
    assert curve_labels(rows) == ["stock (gem5) [2000 ops/thread]", "stock (gem5) [4000 ops/thread]",
                                  "stock (gem5, l2_assoc=64)"]
    assert curve_labels(rows[:1], with_backend=False) == ["stock"]


def test_figures_and_ratios_use_the_window_cost_when_every_row_has_it(tmp_path):
    """The project's throughput is the window's (all threads running); a thread mean differs from
    it where threads start or finish apart, so a figure must not plot the one under the other's name
    nor mix them."""
    from vmscale.rows import cost_metric
    rows = [{"workload": "refcount", "kernel_variant": v, "backend": "gem5", "cores": n, "threads": n,
             "cycles_per_op": c, "window_cycles_per_op": w}
            for v, n, c, w in (("stock", 1, 100, 100), ("stock", 8, 300, 600),
                               ("refcache", 1, 360, 360), ("refcache", 8, 370, 380))]
    assert cost_metric(rows)[0] == "window_cycles_per_op"
    text = published.our_ratios(rows)
    assert "window: all threads running" in text and "stock / refcache = 1.58" in text   # 600 / 380
    rows[-1]["window_cycles_per_op"] = ""   # one row without the window figure: thread means for all
    assert cost_metric(rows)[0] == "cycles_per_op"
    assert "thread mean" in published.our_ratios(rows) and "refcache / stock = 1.23" in published.our_ratios(rows)


def test_ratios_divide_curves_of_one_roi_size_only():
    """Two ROI sizes of one design are two curves: a ratio never sets one size's cost over
    another's (the warm record's local once read stock at 10 rounds over per-core at 40), and a
    design measured at one size only is compared at that size, though its label names none."""
    rows = [{"workload": "local", "kernel_variant": v, "backend": "gem5", "cores": n, "threads": n,
             "ops": k * n, "window_cycles_per_op": c * (2 if k == 10 else 1) * n}
            for v, c, sizes in (("stock", 100, (10, 40)), ("radixvm-percore", 1, (10, 40)), ("radixvm", 5, (40,)))
            for k in sizes for n in (1, 8)]
    text = published.our_ratios(rows)
    first, sep, rest = text.partition(" Curves of another ROI size, ")
    assert sep and "[10 ops/thread]" not in first and "[40 ops/thread]" not in rest
    assert "stock [40 ops/thread] / radixvm-percore [40 ops/thread] = 100.00" in first
    assert "radixvm / radixvm-percore [40 ops/thread] = 5.00" in first        # one size: no suffix
    assert "stock [10 ops/thread] / radixvm-percore [10 ops/thread] = 100.00" in rest
