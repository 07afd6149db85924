"""The shipped gem5 record of PARSEC's reclamation against RCU (results/gem5-reclaim/): its model
study is what the command computes from its table, and the README's reading of it holds, row by
row, from the runs' own result lines (no gem5 needed)."""

import csv
import json

import pytest

from conftest import REPO, vmscale

RECORD = REPO / "results" / "gem5-reclaim"
CORES = [1, 2, 4, 8, 16, 32]
OPS = 2000      # per thread, scripts/sweeps/gem5-reclaim*.toml


def _rows():
    rows = [json.loads(line) for f in sorted((RECORD / "jobs").glob("*/results.jsonl"))
            for line in f.read_text().splitlines()]
    return {(r["kernel_variant"], r["cores"]): r for r in rows}


@pytest.mark.parametrize("train_max,out", [(8, "study-8"), (16, "study")])
def test_the_shipped_study_is_what_the_command_computes(tmp_path, train_max, out):
    r = vmscale("model", "study", RECORD / "table.csv", "--train-max", train_max, "--out", tmp_path / out)
    assert r.returncode == 0, r.stderr
    fresh = json.loads((tmp_path / out / "study.json").read_text())
    shipped = json.loads((RECORD / out / "study.json").read_text())
    assert fresh.keys() == shipped.keys() == {"reclaim/stock/gem5", "reclaim/parsec/gem5"}
    for k in fresh:
        assert fresh[k]["held_cores"] == shipped[k]["held_cores"]
        assert fresh[k]["methods"].keys() == shipped[k]["methods"].keys() >= {"line", "usl"}
        for how, m in fresh[k]["methods"].items():
            assert m.get("error") == pytest.approx(shipped[k]["methods"][how].get("error"), rel=1e-6), (k, how)


def test_the_readmes_reading_of_the_record_holds():
    rows = _rows()
    assert set(rows) == {(v, n) for v in ("stock", "parsec") for n in CORES}
    for (variant, n), row in rows.items():
        assert row["ok"] and row["ops"] == n * OPS and row["booted_cpus"] == n
        assert row["params"]["smr"] == ("parsec" if variant == "parsec" else "rcu")
        assert row["parsec_totals"]["tsc_usable"] == 1          # parsec.tsc=trust on gem5
    for n in CORES:
        rcu, parsec = rows[("stock", n)], rows[("parsec", n)]
        # RCU freed nothing retired in the ROI (each CPU's first publication retires nothing)
        assert rcu["pending_at_roi_end"] == n * (OPS - 1)
        assert rcu["vmstat"]["parsec_retired"] == 0
        # PARSEC freed as it went: at most its scan threshold (32) queued per CPU, plus the last
        assert parsec["pending_at_roi_end"] <= 33 * n
        assert parsec["vmstat"]["parsec_retired"] >= n * (OPS - 1)
        assert parsec["vmstat"]["parsec_rcu_fallback"] == 0
        # PARSEC pays for its frees inside the ROI: more instructions and cycles per op
        assert parsec["gem5.roi_insts"] > 1.5 * rcu["gem5.roi_insts"]
        assert parsec["cycles_per_op"] > rcu["cycles_per_op"]
    # its remote reads per op grow with the core count; none at one core
    reads = [rows[("parsec", n)]["vmstat"]["parsec_remote_reads"] / (n * OPS) for n in CORES]
    assert reads[0] == 0 and all(a < b for a, b in zip(reads, reads[1:])), reads
    # both curves grow alike to 16 cores and collapse alike at 32
    growth = {v: rows[(v, 16)]["cycles_per_op"] / rows[(v, 1)]["cycles_per_op"] for v in ("stock", "parsec")}
    assert all(1.4 < g < 1.7 for g in growth.values()), growth
    assert all(rows[(v, 32)]["cycles_per_op"] > 10 * rows[(v, 16)]["cycles_per_op"] for v in ("stock", "parsec"))
    with open(RECORD / "table.csv") as f:
        table = {(r["kernel_variant"], int(r["cores"])): float(r["cycles_per_op"]) for r in csv.DictReader(f)}
    assert table == {k: r["cycles_per_op"] for k, r in rows.items()}
