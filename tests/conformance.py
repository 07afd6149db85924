"""Verdicts of the third-party conformance suites (the kernel's mm selftests, stress-ng's VM
stressors) over the rows of one run, shared by the 8-vCPU tests and the 32-vCPU debug-kernel
one: a design may fail only what stock fails too, or what is listed as refused by design."""

import json
import warnings
from pathlib import Path

from conftest import REPO
VARIANTS = ["stock", "rwlock", "rcu", "radixvm", "radixvm-percore", "pagecache-locked", "radixvm-parsec"]
# stress-ng stressors refused by design, with the errno the README's table of region semantics
# gives (today nothing these stressors do).
STRESSNG_REFUSED = {}


def rows_of(run_dir: Path, workload: str) -> dict:
    """{variant: row} of one workload's cases in a run directory."""
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return {r["kernel_variant"]: r for r in rows if r["workload"] == workload}


EXPECT = REPO / "guest-workloads" / "selftests.expect"


def expected_selftest_failures(path: Path = EXPECT) -> dict:
    """selftests.expect (today's, or the one a kept run was made with): {(mode, test): status}."""
    out = {}
    for line in path.read_text().splitlines():
        words = line.split("#")[0].split()
        if words:
            out[(words[0], words[1])] = int(words[2])
    return out


def selftest_mode(variant: str) -> str:
    return variant if variant == "radixvm-percore" else "radixvm" if variant.startswith("radixvm") else "stock"


def check_selftests(rows: dict, tests: list, expect_file: Path = EXPECT) -> dict:
    """Every test passes or skips, or fails with the status selftests.expect (today's, or
    @expect_file) gives it for every design or for the region; every listed failure is seen as
    listed.  Returns the counts per variant ({variant: (passed, skipped, expected failures,
    retried)}) for the record."""
    expect = expected_selftest_failures(expect_file)
    stock = rows["stock"]["exit_codes"]
    counts = {}
    for variant, row in rows.items():
        mode = selftest_mode(variant)
        assert row["mode"] == mode and set(row["exit_codes"]) == set(tests), (variant, row["mode"])
        for t, rc in row["exit_codes"].items():
            want = expect.get((mode, t), expect.get(("radixvm", t)) if mode == "radixvm-percore" else None)
            want = expect.get(("all", t)) if want is None else want
            if want is not None:
                assert rc == want, (variant, t, rc, "listed as", want)
            else:
                assert rc in (0, 4), (variant, t, rc)
        assert row["unexpected_passes"] == [] and row["errors"] == 0, (variant, row["unexpected_passes"])
        assert row["ops"] + row["skipped"] + row["expected_failures"] == len(tests)
        for t in row["retried"]:
            warnings.warn(f"selftest {t} under {variant} passed only on its retry (a flake)")
        counts[variant] = (row["ops"], row["skipped"], row["expected_failures"], len(row["retried"]))
    # What fails in every design fails under stock, the unpatched paths, too.
    for (mode, t), want in expect.items():
        if mode == "all" and t in tests:
            assert stock[t] == want, (t, stock[t])
    # The region's differences are differences: stock passes or skips those tests.
    for (mode, t), want in expect.items():
        if mode in ("radixvm", "radixvm-percore") and t in tests and mode in rows:
            assert stock[t] in (0, 4) and rows[mode]["exit_codes"][t] == want, t
    return counts


def check_stressng(rows: dict, variants: list) -> dict:
    """Every stressor ran to a verdict under every design, and a design fails only what stock
    fails or what it refuses by design.  Returns {variant: stressors passed}."""
    assert set(rows) == set(variants), sorted(rows)
    failed = {v: {name for name, rc in row["exit_codes"].items() if rc not in (0, 3, 4)} for v, row in rows.items()}
    assert rows["stock"]["ops"] >= 10, rows["stock"]   # the stressors ran, and most pass on stock
    for v in variants:
        assert failed[v] - failed["stock"] <= STRESSNG_REFUSED.get(v, set()), (v, failed[v], rows[v]["exit_codes"])
        assert set(rows[v]["exit_codes"]) == set(rows["stock"]["exit_codes"]), v
    return {v: rows[v]["ops"] for v in variants}
