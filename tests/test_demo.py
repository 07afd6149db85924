"""The README's main job, `vmscale demo`, end to end on the native backend at small core counts."""

import csv
import json
import os

from conftest import REPO, vmscale
from vmscale import demo


def test_demo_on_the_native_backend_writes_what_it_promises(tmp_path):
    cores = "1,2" if len(os.sched_getaffinity(0)) >= 2 else "1"
    # a build tree of its own, as on a fresh checkout (the session's may be held by a background
    # kernel build, and the demo builds the workloads first)
    r = vmscale("demo", "--backend", "native", "--cores", cores, "--out", tmp_path / "demo", timeout=1800,
                env={"VMSCALE_BUILD": str(tmp_path / "build")})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    out = tmp_path / "demo"
    rows = list(csv.DictReader(open(out / "table.csv")))
    assert sorted((x["workload"], int(x["cores"])) for x in rows) == sorted(
        (w, int(c)) for w in ("local", "fault") for c in cores.split(","))
    assert all(x["ok"] == "True" and x["errors"] == "0" and float(x["cycles_per_op"]) > 0 for x in rows)
    for w in ("local", "fault"):
        assert (out / f"scaling-{w}.png").stat().st_size > 10_000
    # the model stage: the shipped cycle-level curves, each fitted on <= train_max cores and
    # judged above by every method (a separate test ran the same stage again: 80 s of CI)
    for name, train_max in demo.GEM5_TABLES.items():
        assert (REPO / "results" / name / "table.csv").is_file(), f"results/ must ship {name}, which the demo fits"
        model = out / "model" / name
        study = json.loads((model / "study.json").read_text())
        judged = {k: v for k, v in study.items() if "skipped" not in v}
        assert any("/stock" in k for k in judged), name
        for key, v in judged.items():
            assert v["train_cores"] and max(v["train_cores"]) <= train_max < min(v["held_cores"]), key
            assert {"line", "usl", "counters"} <= set(v["methods"]), key
            for method in ("line", "usl"):
                assert len(v["methods"][method]["error"]) == len(v["held_cores"]), (key, method)
            # a curve on a sockets board is also carried past its sockets by the board's distances
            if "board=e7-8870" in key:
                assert len(v["methods"]["sockets"]["error"]) == len(v["held_cores"]), key
        assert (model / "report" / "report.md").is_file(), name
        assert f"fitted on <= {train_max} cores" in r.stdout
    assert (out / "model" / "gem5-e7-8870-to-80c" / "report" / "twin-fault.png").is_file()   # Bonsai 16-17
    assert "-> best " in r.stdout and "grid.png" in r.stdout          # a line per curve, one figure
    name, workload, source, target = demo.INTERCONNECT
    ic = json.loads((out / "model" / name / "interconnect.json").read_text())
    assert f"{workload}/stock" in ic and len(ic[f"{workload}/stock"]["hops"]["error"]) >= 4
    assert "== done" in r.stdout
