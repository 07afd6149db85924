"""The kept 64-vCPU debug-kernel conformance run (results/qemu-debug-conformance/64vcpu, made by
its make.sh) holds what the README says of it: every case of the five designs the issue names
ran on 64 online CPUs of the debug kernel with no kernel report, and its verdicts pass the same
checks as the runs the test suite makes (tests/conformance.py) against the selftests.expect the
run was made with (kept beside it: git show <its vmscale_commit>:guest-workloads/selftests.expect).
What the region has gained since (kernel 0026-0032: mlock, mseal, protection keys) shows in
today's list, not in this record's."""

import json
import subprocess

import pytest

from conformance import REPO, check_selftests, check_stressng, rows_of

RUN = REPO / "results" / "qemu-debug-conformance" / "64vcpu"
DESIGNS = ["stock", "rwlock", "rcu", "radixvm", "radixvm-percore"]


def test_the_64_vcpu_debug_run_passes_the_checks_of_its_time():
    manifest = json.loads((RUN / "manifest.json").read_text())
    assert manifest["kernel_flavor"] == "debug" and manifest["cores"] == 64
    assert manifest["kernel_problems"] == [] and manifest["exit_code"] == 0
    rows = [json.loads(line) for line in (RUN / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * len(DESIGNS) and all(r["ok"] and r["booted_cpus"] == 64 for r in rows)
    params = dict(p.split("=", 1) for p in manifest["params"])
    tests = params["selftests.tests"].split(",")
    counts = check_selftests(rows_of(RUN, "selftests"), tests, RUN / "selftests.expect")
    assert counts["stock"] == (14, 6, 15, 0) and counts["radixvm"] == counts["radixvm-percore"] == (9, 6, 20, 0)
    assert check_stressng(rows_of(RUN, "stressng"), DESIGNS) == dict.fromkeys(DESIGNS, 15)
    stress = rows_of(RUN, "stress")
    assert set(stress) == set(DESIGNS) and all(r["errors"] == 0 and r["ops"] > 0 for r in stress.values())


def test_the_kept_expect_list_is_the_one_the_run_was_made_with():
    commit = json.loads((RUN / "manifest.json").read_text())["vmscale_commit"]
    then = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:guest-workloads/selftests.expect"],
                          capture_output=True, text=True)
    if then.returncode != 0:    # a shallow clone without that commit
        pytest.skip(f"the repository's history lacks {commit}: {then.stderr.strip()}")
    assert (RUN / "selftests.expect").read_text() == then.stdout
