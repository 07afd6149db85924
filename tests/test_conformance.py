"""Third-party conformance (stress-ng's VM stressors, each with --verify) under every kernel
design at 8 vCPUs, in one boot.  A design may fail only what stock fails too, or what the
README lists as refused with a clear errno (today nothing that these stressors do)."""

import json

import pytest

from conftest import vmscale

pytestmark = pytest.mark.qemu
VARIANTS = ["stock", "rwlock", "rcu", "radixvm", "radixvm-percore", "pagecache-locked"]
# Refused by design, with the errno the README's table of region semantics gives.
REFUSED = {}


def test_stress_ng_vm_stressors_under_every_design(qemu_ready, tmp_path):
    out = tmp_path / "sng"
    r = vmscale("run", "--backend", "qemu", "--cores", 8, "--workload", "stressng",
                "--kernel-variant", ",".join(VARIANTS), "--out", out, "--timeout", 2400)
    rows = {row["kernel_variant"]: row for row in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert set(rows) == set(VARIANTS), (r.stdout[-2000:], r.stderr)
    assert json.loads((out / "manifest.json").read_text())["kernel_problems"] == []
    failed = {v: {name for name, rc in row["exit_codes"].items() if rc not in (0, 3, 4)} for v, row in rows.items()}
    stock = failed["stock"]
    assert rows["stock"]["ops"] >= 10, rows["stock"]   # the stressors ran, and most pass on stock
    for v in VARIANTS:
        assert failed[v] - stock <= REFUSED.get(v, set()), (v, failed[v], rows[v]["exit_codes"])
        # every stressor ran to a verdict under every design
        assert set(rows[v]["exit_codes"]) == set(rows["stock"]["exit_codes"]), v
