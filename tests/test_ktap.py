"""KUnit results from a real guest console (tests/fixtures/kunit/), and the failures the runner
turns into a failed run."""

from pathlib import Path

from vmscale import ktap

LOG = (Path(__file__).parent / "fixtures" / "kunit" / "refcache-pass-8c.log").read_text()


def test_real_console_parses_to_five_passing_cases():
    suites = ktap.parse(LOG)
    assert set(suites) == {"refcache"}
    s = suites["refcache"]
    assert s.ok is True and len(s.cases) == 5 and set(s.cases.values()) == {"pass"}
    assert any(m.startswith("refcache_zero_bound: dropped in epoch") for m in s.messages)
    assert ktap.failures(suites) == []


def test_a_failed_case_is_named():
    text = LOG.replace("    ok 3 refcache_dirty_zero", "    not ok 3 refcache_dirty_zero").replace(
        "\nok 1 refcache", "\nnot ok 1 refcache")
    assert text != LOG
    assert ktap.failures(ktap.parse(text)) == ["KUnit refcache: refcache_dirty_zero failed"]


def test_a_suite_that_never_finished_fails():
    cut = LOG[:LOG.index("    ok 5 refcache_no_leak")]
    assert ktap.failures(ktap.parse(cut)) == ["KUnit refcache: no result line (did the suite hang or crash?)"]


def test_user_space_tap_after_init_is_not_kunit():
    text = LOG + "Run /init as init process\nVMSCALE-BOOTED\nTAP version 13\n    not ok 1 some_selftest\n"
    assert ktap.failures(ktap.parse(text)) == []


def test_no_kunit_no_suites():
    assert ktap.parse("Linux version 6.12\nRun /init as init process\n") == {}
