"""The README's main job, `vmscale demo`, end to end on the native backend at small core counts."""

import csv
import json
import os

from conftest import vmscale


def test_demo_on_the_native_backend_writes_what_it_promises(workloads_built, tmp_path):
    cores = "1,2" if len(os.sched_getaffinity(0)) >= 2 else "1"
    r = vmscale("demo", "--backend", "native", "--cores", cores, "--out", tmp_path / "demo", timeout=1800)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    out = tmp_path / "demo"
    rows = list(csv.DictReader(open(out / "table.csv")))
    assert sorted((x["workload"], int(x["cores"])) for x in rows) == sorted(
        (w, int(c)) for w in ("local", "fault") for c in cores.split(","))
    assert all(x["ok"] == "True" and x["errors"] == "0" and float(x["cycles_per_op"]) > 0 for x in rows)
    for w in ("local", "fault"):
        assert (out / f"scaling-{w}.png").stat().st_size > 10_000
    # the model stage: the shipped cycle-level curves, judged where they were not fitted
    study = json.loads((out / "model" / "gem5-scaling" / "study.json").read_text())
    judged = [k for k, v in study.items() if "skipped" not in v]
    assert judged and all(len(m["error"]) == len(study[k]["held_cores"])
                          for k in judged for m in study[k]["methods"].values() if "skipped" not in m)
    assert all({"line", "usl", "counters"} <= set(study[k]["methods"]) for k in judged)
    assert (out / "model" / "gem5-scaling" / "report" / "report.md").is_file()
    assert "== done" in r.stdout
