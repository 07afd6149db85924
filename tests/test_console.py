from vmscale import console, guest_script


def test_parse_cases_results_and_sysctls():
    text = "\n".join([
        "[    0.5] Linux version 6.12.117",
        "VMSCALE-BOOTED cpus=4 kernel=6.12.117 m5=off",
        "VMSCALE-SCRIPT-BEGIN",
        "VMSCALE-CASE-BEGIN 1 rwlock local",
        "VMSCALE-SYSCTL vm/vmscale_fault=rwlock",
        'VMSCALE-RESULT {"workload":"local","ok":true,"errors":0,"ops":8}',
        "VMSCALE-CASE-END 1 rc=0",
        "VMSCALE-CASE-BEGIN 2 stock fault",
        "fault: thread 0: CORRUPT word 7",
        'VMSCALE-RESULT {"workload":"fault","ok":false,"errors":1,"ops":8}',
        "VMSCALE-CASE-END 2 rc=1",
        "VMSCALE-SCRIPT-END", "VMSCALE-HALT"])
    con = console.parse(text)
    assert con.booted_cpus == 4 and con.halted and con.script_ended
    assert con.cases[1].sysctls == {"vm/vmscale_fault": "rwlock"}
    assert console.case_failure(con.cases[1]) == ""
    # the reason names the workload's first report, so a user need not open the console
    assert console.case_failure(con.cases[2]) == ("content verification failed (1 errors); "
                                                  "first: fault: thread 0: CORRUPT word 7")


def test_kernel_problems_fail_the_case_they_happen_in():
    text = "\n".join([
        "VMSCALE-CASE-BEGIN 1 stock local",
        "[   12.0] BUG: unable to handle page fault for address: 0000000000000008",
        "[   12.1] Oops: 0002 [#1] SMP",
        'VMSCALE-RESULT {"workload":"local","ok":true,"errors":0}',
        "VMSCALE-CASE-END 1 rc=0",
        "[   13.0] WARNING: CPU: 1 PID: 1 at mm/memory.c:10 foo",
        "[   13.1] ======================================================",
        "[   13.2] WARNING: possible circular locking dependency detected"])
    con = console.parse(text)
    reasons = {r for r, _ in con.problems}
    assert {"kernel BUG", "kernel oops", "kernel WARNING", "lockdep report"} <= reasons
    assert "kernel oops" in console.case_failure(con.cases[1])


def test_debug_kernel_banners_are_not_problems():
    banners = ["Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar",
               "... MAX_LOCKDEP_SUBCLASSES:  8", "rcu: \tRCU lockdep checking is enabled.",
               "[Firmware Bug]: CPU 1: APIC ID mismatch. CPUID: 0x0000 APIC: 0x0001"]
    assert console.parse("\n".join(banners)).problems == []
    assert console.kernel_problems("WARNING: suspicious RCU usage") == ["lockdep report"]


def test_unfinished_and_unsupported_cases():
    con = console.parse("VMSCALE-CASE-BEGIN 1 rwlock local\nVMSCALE-CASE-END 1 rc=98\n"
                        "VMSCALE-CASE-BEGIN 2 stock local\n")
    assert "lacks variant rwlock" in console.case_failure(con.cases[1])
    assert "never finished" in console.case_failure(con.cases[2])
    assert not con.halted


def test_script_sets_sysctls_then_runs_each_case():
    cases = [guest_script.Case(1, "local", "rwlock", {"threads": 4, "iters": 10}, {"vm/vmscale_fault": "rwlock"}),
             guest_script.Case(2, "fault", "stock", {"threads": 4}, {"vm/vmscale_fault": "stock"})]
    text = guest_script.render(cases)
    lines = text.splitlines()
    first = lines.index("say 1 'VMSCALE-CASE-BEGIN 1 rwlock local'")
    body = "\n".join(lines[first:first + 6])
    assert "echo rwlock > /proc/sys/vm/vmscale_fault" in body
    assert "/bin/local threads=4 iters=10" in body
    assert body.index("vmscale_fault") < body.index("/bin/local")
    assert "echo VMSCALE-SCRIPT-END" in text.splitlines()[-2:]


def test_unhandled_segfaults_are_shown_with_their_case():
    # the kernel's show_signal_msg() lines, as a 6.12 guest printed them under stress-ng
    text = "\n".join([
        "VMSCALE-CASE-BEGIN 1 radixvm forkcopy",
        "[   31.4] forkcopy[212]: segfault at 100000001000 ip 0000000000401a2b sp 00007ffd3c1e8d40 error 6 in forkcopy",
        'VMSCALE-RESULT {"workload":"forkcopy","ok":true,"errors":0,"ops":8}',
        "VMSCALE-CASE-END 1 rc=0",
        "VMSCALE-CASE-BEGIN 2 stock forkcopy",
        'VMSCALE-RESULT {"workload":"forkcopy","ok":true,"errors":0,"ops":8}',
        "VMSCALE-CASE-END 2 rc=0"])
    con = console.parse(text)
    assert con.cases[1].segfaults == ["forkcopy[212] at 100000001000"]
    assert con.cases[2].segfaults == []
    # shown, not failed on: some programs segfault on purpose
    assert console.case_failure(con.cases[1]) == "" and con.problems == []


FIXTURE = "tests/fixtures/console/dl-server-hrtimer-32c-debug.log"


def test_known_upstream_scheduler_warning_is_recorded_not_failed():
    """A real console: 6.12's dl_server timer WARN and lockdep's report on printing it under the
    rq lock are upstream scheduler code; they are recorded, and the case still passes."""
    from pathlib import Path
    text = Path(FIXTURE).read_text()
    con = console.parse(text)
    assert con.problems == [] and console.case_failure(con.cases[3]) == ""
    assert [w.split(" (")[0] for w, _ in con.known] == ["lockdep on printk under the rq lock, printing that dl_server warning",
                                                       "dl_server defer timer re-armed while its callback ran"]
    assert "hrtimer_forward" in con.known[1][1] and "circular locking" in con.known[0][1]


def test_the_same_reports_without_their_upstream_signature_fail():
    from pathlib import Path
    text = Path(FIXTURE).read_text()
    # the WARN not from the dl_server timer: a kernel WARNING again (lockdep's report still names it)
    con = console.parse(text.replace("dl_task_timer", "vr_shootdown"))
    assert [r for r, _ in con.problems] == ["kernel WARNING"]
    assert console.case_failure(con.cases[3]) == "kernel WARNING"
    # a circular dependency that is not the printk of a hrtimer_forward WARN: both fail
    con = console.parse(text.replace("hrtimer_forward", "vr_fault"))
    assert sorted(r for r, _ in con.problems) == ["kernel WARNING", "lockdep report"]
    # the header alone, with no report after it, is never taken for the known one
    head = text.split("WARNING: possible circular")[0] + "WARNING: possible circular locking dependency detected\n"
    assert [r for r, _ in console.parse(head).problems] == ["lockdep report"]
