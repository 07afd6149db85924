"""The kept 64-vCPU debug-kernel conformance run (results/qemu-debug-conformance/64vcpu, made by
its make.sh) holds what the README says of it: every case of the five designs the issue names
ran on 64 online CPUs of the debug kernel with no kernel report, and its verdicts pass the same
checks as the runs the test suite makes (tests/conformance.py) against today's selftests.expect."""

import json

from conformance import REPO, check_selftests, check_stressng, rows_of

RUN = REPO / "results" / "qemu-debug-conformance" / "64vcpu"
DESIGNS = ["stock", "rwlock", "rcu", "radixvm", "radixvm-percore"]


def test_the_64_vcpu_debug_run_passes_todays_checks():
    manifest = json.loads((RUN / "manifest.json").read_text())
    assert manifest["kernel_flavor"] == "debug" and manifest["cores"] == 64
    assert manifest["kernel_problems"] == [] and manifest["exit_code"] == 0
    rows = [json.loads(line) for line in (RUN / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * len(DESIGNS) and all(r["ok"] and r["booted_cpus"] == 64 for r in rows)
    params = dict(p.split("=", 1) for p in manifest["params"])
    tests = params["selftests.tests"].split(",")
    counts = check_selftests(rows_of(RUN, "selftests"), tests)
    assert counts["stock"] == (14, 6, 15, 0) and counts["radixvm"] == counts["radixvm-percore"] == (9, 6, 20, 0)
    assert check_stressng(rows_of(RUN, "stressng"), DESIGNS) == dict.fromkeys(DESIGNS, 15)
    stress = rows_of(RUN, "stress")
    assert set(stress) == set(DESIGNS) and all(r["errors"] == 0 and r["ops"] > 0 for r in stress.values())
