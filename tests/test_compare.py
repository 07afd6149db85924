"""`vmscale compare`: the numbers in compare.csv, worked out by hand from two small tables."""

import csv

import pytest

from conftest import vmscale

FIELDS = ["workload", "kernel_variant", "cores", "ok", "cycles_per_op"]


def _table(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        w.writerows(rows)
    return path


def test_speedups_ratios_and_scaling_error_by_hand(tmp_path):
    # A (say gem5): 100 cycles/op at 1 core; two repetitions at 4 cores, 200 and 300 -> 250;
    # a failed row at 4 cores (cycles 1) that must not count; a point B lacks (8 cores).
    a = _table(tmp_path / "a.csv", [("fault", "stock", 1, "True", 100), ("fault", "stock", 4, "True", 200),
                                    ("fault", "stock", 4, "True", 300), ("fault", "stock", 4, "False", 1),
                                    ("fault", "stock", 8, "True", 900)])
    # B (say native): 50 at 1 core, 100 at 4 cores.
    # and a curve that starts at 2 cores in both: speedups over 2 cores
    a = _table(tmp_path / "a.csv", list(csv.reader(open(a)))[1:] + [("local", "rcu", 2, "True", 10),
                                                                     ("local", "rcu", 8, "True", 20)])
    b = _table(tmp_path / "b.csv", [("fault", "stock", 1, "True", 50), ("fault", "stock", 4, "True", 100),
                                    ("local", "rcu", 2, "True", 30), ("local", "rcu", 8, "True", 40)])
    r = vmscale("compare", a, b, "--out", tmp_path / "cmp")
    assert r.returncode == 0, r.stderr
    every = list(csv.DictReader(open(tmp_path / "cmp" / "compare.csv")))
    rows = {int(x["cores"]): x for x in every if x["workload"] == "fault"}
    assert sorted(rows) == [1, 4]
    four = rows[4]
    assert float(four["a_cycles_per_op"]) == pytest.approx(250)
    assert float(four["b_cycles_per_op"]) == pytest.approx(100)
    assert float(four["ideal_speedup"]) == pytest.approx(4)
    assert float(four["cycles_ratio_a_over_b"]) == pytest.approx(2.5)
    # speedup of throughput over 1 core: A (4/250)/(1/100) = 1.6; B (4/100)/(1/50) = 2.0
    assert float(four["a_speedup"]) == pytest.approx(1.6)
    assert float(four["b_speedup"]) == pytest.approx(2.0)
    assert float(four["scaling_error"]) == pytest.approx(-0.2)
    assert float(rows[1]["a_speedup"]) == pytest.approx(1.0) and float(rows[1]["scaling_error"]) == 0
    # local/rcu from 2 cores: A (8/20)/(2/10) = 2.0, B (8/40)/(2/30) = 3.0, ideal 8/2 = 4
    eight = next(x for x in every if x["workload"] == "local" and x["cores"] == "8")
    assert float(eight["a_speedup"]) == pytest.approx(2.0) and float(eight["b_speedup"]) == pytest.approx(3.0)
    assert float(eight["ideal_speedup"]) == pytest.approx(4.0)
    assert float(eight["scaling_error"]) == pytest.approx(-1 / 3)
    assert (tmp_path / "cmp" / "speedup.png").stat().st_size > 5000


def test_tables_with_nothing_in_common_are_refused(tmp_path):
    a = _table(tmp_path / "a.csv", [("fault", "stock", 1, "True", 100)])
    b = _table(tmp_path / "b.csv", [("fault", "rcu", 1, "True", 100)])
    r = vmscale("compare", a, b, "--out", tmp_path / "cmp")
    assert r.returncode != 0 and "share no (workload, variant, cores) point" in r.stderr
    r = vmscale("compare", a, tmp_path / "missing.csv", "--out", tmp_path / "cmp")
    assert r.returncode != 0 and "no such table" in r.stderr
