"""The generated run script, executed by a real shell against a fake /proc/sys tree."""

import os
import shutil
import subprocess

from vmscale import console, guest_script, image


# What a fake workload starts with: the harness's way of reporting, each line to stdout and,
# when the run script names a recap file ($VMSCALE_RECAP), appended to it.
FAKE = '#!/bin/sh\nout() { echo "$1"; [ -z "$VMSCALE_RECAP" ] || echo "$1" >> "$VMSCALE_RECAP"; }\n'


def _in_tmp(text, tmp_path, prog):
    """The script with its guest paths moved under tmp_path."""
    return (text.replace("/proc/sys", str(tmp_path / "proc/sys")).replace("/bin/local", str(prog))
            .replace(guest_script.STATE_DIR, str(tmp_path / "state")))


def test_script_runs_in_sh_and_parses(tmp_path):
    # The script writes /proc/sys/...; run it in a private copy with paths rewritten.
    sysdir = tmp_path / "proc/sys/vm"
    sysdir.mkdir(parents=True)
    (sysdir / "vmscale_fault").write_text("stock\n")
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0,\\"args\\":\\"$*\\"}"\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "rwlock", {"threads": 2}, {"vm/vmscale_fault": "rwlock"}),
             guest_script.Case(2, "local", "bogus", {"threads": 2}, {"vm/nonexistent": "x"})]
    text = _in_tmp(guest_script.render(cases), tmp_path, prog)
    out = subprocess.run(["sh", "-c", text], capture_output=True, text=True).stdout
    con = console.parse(out)
    assert (sysdir / "vmscale_fault").read_text().strip() == "rwlock"
    assert con.cases[1].sysctls == {"vm/vmscale_fault": "rwlock"}
    assert con.cases[1].result["args"] == "threads=2"
    assert con.cases[2].rc == 98 and con.cases[2].result is None


def test_upstream_values_pass_on_a_kernel_without_the_switch(tmp_path):
    # An unpatched kernel lacks vm/vmscale_lazy_mm: "atomic" is what it does anyway, so the case
    # runs; "refcache" is a variant it cannot provide, so the case fails with rc 98.
    (tmp_path / "proc/sys/vm").mkdir(parents=True)
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0}"\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "stock", {}, {"vm/vmscale_lazy_mm": "atomic"}),
             guest_script.Case(2, "local", "refcache", {}, {"vm/vmscale_lazy_mm": "refcache"})]
    text = _in_tmp(guest_script.render(cases), tmp_path, prog)
    con = console.parse(subprocess.run(["sh", "-c", text], capture_output=True, text=True).stdout)
    assert con.cases[1].rc == 0 and con.cases[1].result["ok"]
    assert con.cases[2].rc == 98 and con.cases[2].result is None


def test_kernel_messages_inside_marker_lines_are_repaired_from_the_recap(tmp_path):
    # The kernel writes to the same UART as the script; a message can land inside one of
    # our lines (a CI run lost "VMSCALE-CASE-END" that way).  Garble every live marker
    # of case 1 and the result of case 2 as a printk would: the recap must restore them.
    (tmp_path / "proc/sys/kernel").mkdir(parents=True)
    (tmp_path / "proc/sys/kernel/printk").write_text("7\t4\t1\t7\n")
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0,\\"ops\\":$#}"\nexit 3\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "stock", {"a": 1}),
             guest_script.Case(2, "local", "stock", {"a": 1, "b": 2})]
    out = subprocess.run(["sh", "-c", _in_tmp(guest_script.render(cases), tmp_path, prog)],
                         capture_output=True, text=True).stdout
    # the console level was lowered for the recap and given back afterwards
    assert (tmp_path / "proc/sys/kernel/printk").read_text().split() == ["7", "4", "1", "7"]
    splice = "clocksource: Switched to clocksource tsc\n"
    live, recap = out.split("VMSCALE-RECAP-BEGIN")
    live = (live.replace("VMSCALE-CASE-END 1", "VMSCALE-CASE-E" + splice + "ND 1")
            .replace('VMSCALE-RESULT {"ok":true,"errors":0,"ops":2}', 'VMSCALE-RESULT {"ok":tr' + splice + 'ue}'))
    broken = console.parse(live)
    assert broken.cases[1].rc is None and broken.cases[2].result is None
    assert console.case_failure(broken.cases[1]) == "the guest never finished this case"

    con = console.parse(live + "VMSCALE-RECAP-BEGIN" + recap)
    assert con.cases[1].rc == 3 and con.cases[1].recovered == ["rc"]
    assert con.cases[2].result == {"ok": True, "errors": 0, "ops": 2} and con.cases[2].recovered == ["result"]
    assert con.cases[2].rc == 3 and con.script_ended
    assert console.case_failure(con.cases[1]) == "workload exited rc=3"


def test_the_recap_never_overrides_the_live_copy_or_its_kernel_problems(tmp_path):
    text = "\n".join([
        "VMSCALE-SCRIPT-BEGIN cpus=2 kernel=6.12",
        "VMSCALE-CASE-BEGIN 1 stock local",
        "WARNING: CPU: 1 PID: 7 at mm/memory.c:1 foo",
        'VMSCALE-RESULT {"ok":true,"errors":0,"ops":5}',
        "VMSCALE-CASE-END 1 rc=0",
        "VMSCALE-RECAP-BEGIN",
        "VMSCALE-SCRIPT-BEGIN cpus=2 kernel=6.12",
        "VMSCALE-CASE-BEGIN 1 stock local",
        'VMSCALE-RESULT {"ok":true,"errors":0,"ops":6}',
        "VMSCALE-CASE-END 1 rc=1",
        "VMSCALE-CASE-BEGIN 2 stock fault",
        'VMSCALE-RESULT {"ok":true,"errors":0,"ops":7}',
        "VMSCALE-CASE-END 2 rc=0",
        "VMSCALE-RECAP-END",
        "Kernel panic - not syncing: late",
        "VMSCALE-SCRIPT-END"])
    con = console.parse(text)
    assert con.cases[1].result["ops"] == 5 and con.cases[1].rc == 0 and not con.cases[1].recovered
    assert console.case_failure(con.cases[1]) == "kernel WARNING"
    assert con.cases[2].recovered == ["case"] and con.cases[2].result["ops"] == 7
    assert [r for r, _ in con.problems] == ["kernel WARNING", "kernel panic"]


def test_a_frame_map_garbled_live_is_read_whole_from_the_recap(tmp_path):
    # physmap=1 prints ~850 map lines live (a CI run found 5 of them damaged by kernel
    # messages); the script recaps the block, and vmscale.physmap keeps the clean copy.
    from vmscale import physmap
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out VMSCALE-PHYSMAP-BEGIN\n'
                    'i=0; while [ $i -lt 40 ]; do out "$(printf "frames %x 1 anon 0 - 0" $((4096 + i)))"; i=$((i + 1)); done\n'
                    'out VMSCALE-PHYSMAP-END\nout "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0}"\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "stock", {"physmap": 1}),
             guest_script.Case(2, "local", "rcu", {"physmap": 1})]
    out = subprocess.run(["sh", "-c", _in_tmp(guest_script.render(cases), tmp_path, prog)],
                         capture_output=True, text=True).stdout
    live, recap = out.split("VMSCALE-RECAP-BEGIN")
    live = live.replace("frames 1004 1 an", "frames 1004 1 an" + "hrtimer: interrupt took 123 ns\n", 1)
    assert physmap.from_console(live)[1].damaged == 2
    maps = physmap.from_console(live + "VMSCALE-RECAP-BEGIN" + recap)
    assert sorted(maps) == [1, 2]
    for pm in maps.values():
        assert pm.damaged == 0 and [f.pfn for f in pm.frames] == list(range(4096, 4096 + 40))
    assert console.parse(out).cases[2].result == {"ok": True, "errors": 0}


def test_the_interrupt_summary_counts_the_cpus_that_took_each_ipi(tmp_path):
    """VMSCALE-INTERRUPTS: for LOC/RES/CAL/TLB, how many CPUs took one and how many in all,
    read by busybox-compatible awk from /proc/interrupts as the kernel formats it (here four
    CPUs; CPU 3 never took a TLB shootdown, and device rows with other names are ignored).
    Kept in the recap, so a kernel message in the live line loses nothing."""
    irq = tmp_path / "interrupts"
    irq.write_text(
        "            CPU0       CPU1       CPU2       CPU3       \n"
        "   4:        120          0          0          0   IO-APIC   4-edge      ttyS0\n"
        " LOC:       5012       4870       4791       4702   Local timer interrupts\n"
        " RES:         33         12          9          4   Rescheduling interrupts\n"
        " CAL:        101         87         90         75   Function call interrupts\n"
        " TLB:         17          5          2          0   TLB shootdowns\n"
        " ERR:          0\n")
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0}"\n')
    prog.chmod(0o755)
    text = _in_tmp(guest_script.render([guest_script.Case(1, "local", "stock")]), tmp_path, prog)
    out = subprocess.run(["sh", "-c", text.replace("/proc/interrupts", str(irq))],
                         capture_output=True, text=True).stdout
    want = {"LOC": (4, 19375), "RES": (4, 58), "CAL": (4, 353), "TLB": (3, 24)}
    assert console.parse(out).interrupts == want
    live, recap = out.split("VMSCALE-RECAP-BEGIN")
    garbled = live.replace("VMSCALE-INTERRUPTS LOC", "VMSCALE-INTE[   12.5] rcu: stallRRUPTS LOC")
    assert console.parse(garbled + "VMSCALE-RECAP-BEGIN" + recap).interrupts == want


def test_workloads_start_with_a_full_size_descriptor_table(tmp_path):
    """Under the guest's busybox sh the workload inherits a descriptor at the top of the 1024
    limit, so its fd table never grows (and never waits a grace period) while its threads
    open files; a shell without multi-digit descriptors (dash) runs the script all the same."""
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'fd=$(grep FDSize /proc/self/status | tr -dc 0-9)\n'
                    'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0,\\"fdsize\\":$fd}"\n')
    prog.chmod(0o755)
    text = _in_tmp(guest_script.render([guest_script.Case(1, "local", "stock")]), tmp_path, prog)
    busybox = str(image.find_busybox())
    out = subprocess.run([busybox, "sh", "-c", text], capture_output=True, text=True).stdout
    assert console.parse(out).cases[1].result["fdsize"] == guest_script.FD_RESERVE + 1 == 1024
    if shutil.which("dash"):
        out = subprocess.run(["dash", "-c", text], capture_output=True, text=True).stdout
        con = console.parse(out)
        assert con.cases[1].result["fdsize"] == 64 and con.script_ended


def test_the_real_harness_reports_to_the_recap_itself(tmp_path, workloads_built):
    """The harness appends its result line to the file the script names ($VMSCALE_RECAP), with
    no tee or grep in the case, and sends the console only a short line (under gem5 the UART
    cost ~14 ms of simulated time per case for the whole one): the result is the recap's."""
    prog = workloads_built / "local"
    cases = [guest_script.Case(1, "local", "stock", {"threads": 1, "iters": 3}),
             guest_script.Case(2, "local", "stock", {"threads": 1, "iters": 4})]
    # m5 mode (as /init passes it under gem5): the harness's own recap path; with no m5 tool
    # here the recap falls back to the console
    env = dict(os.environ, VMSCALE_M5="inst")
    out = subprocess.run(["sh", "-c", _in_tmp(guest_script.render(cases), tmp_path, prog)],
                         capture_output=True, text=True, env=env).stdout
    live, recap = out.split("VMSCALE-RECAP-BEGIN")
    assert live.count("VMSCALE-RESULT ") == 0 and recap.count("VMSCALE-RESULT ") == 2
    assert live.count("VMSCALE-RESULT-IN-RECAP ok=true ops=") == 2
    assert all(c.result is None for c in console.parse(live).cases.values())
    con = console.parse(out)
    # sent there on purpose: not a line the console lost
    assert [con.cases[i].recovered for i in (1, 2)] == [[], []] and con.cases[1].result["ok"]
    assert [con.cases[i].result["params"]["iters"] for i in (1, 2)] == ["3", "4"]


def test_a_case_runs_no_process_but_its_workload(tmp_path):
    """Under gem5 every process a case starts costs ~2 ms of simulated time (a fork, an exec,
    cold caches: a 2-core run spent 0.03 s per case and 0.04 s after the last, most of its host
    time, in the script's own cat, tee, grep and sed).  Every command the script may run through
    PATH is a wrapper that logs it: in m5 mode a run of 4 cases runs exactly what a run of 1
    case runs; elsewhere (QEMU, hosts) each case's pipeline runs tee, cat, grep and sed, and
    waits for every process holding the workload's output."""
    bindir = tmp_path / "path"
    bindir.mkdir()
    log = tmp_path / "execs.log"
    for name in ("cat", "tee", "grep", "sed", "awk", "nproc", "uname", "m5", "stty", "timeout", "sleep",
                 "rm", "mkdir", "tr", "head", "tail", "wc", "cut", "env", "printf", "test", "expr"):
        real = shutil.which(name) or "/bin/false"
        (bindir / name).write_text(f'#!/bin/sh\necho {name} >> {log}\nexec {real} "$@"\n')
        (bindir / name).chmod(0o755)
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0}"\n')
    prog.chmod(0o755)
    (tmp_path / "proc/sys/vm").mkdir(parents=True)
    (tmp_path / "proc/sys/vm/vmscale_fault").write_text("stock\n")
    runs = {}
    for n in (1, 4):
        cases = [guest_script.Case(i, "local", "stock", {"iters": 2}, {"vm/vmscale_fault": "rwlock"})
                 for i in range(1, n + 1)]
        log.write_text("")
        out = subprocess.run([shutil.which("sh"), "-c", _in_tmp(guest_script.render(cases), tmp_path, prog)],
                             capture_output=True, text=True,
                             env={"PATH": str(bindir), "HOME": str(tmp_path), "VMSCALE_M5": "inst"}).stdout
        con = console.parse(out)
        assert all(con.cases[i].rc == 0 and con.cases[i].result["ok"] for i in range(1, n + 1)), out
        runs[n] = sorted(log.read_text().split())
    assert runs[4] == runs[1], runs
    log.write_text("")
    cases = [guest_script.Case(i, "local", "stock", {"iters": 2}) for i in (1, 2)]
    subprocess.run([shutil.which("sh"), "-c", _in_tmp(guest_script.render(cases), tmp_path, prog)],
                   capture_output=True, text=True, env={"PATH": str(bindir), "HOME": str(tmp_path)})
    assert log.read_text().split().count("tee") == 2


def test_under_gem5_the_recap_leaves_by_m5_writefile_and_is_put_back_in_the_console(tmp_path):
    """In m5 mode the recap is written to the host (m5 writefile) instead of the UART, and the
    console names it; console.inline_recap puts it back, so a garbled live line is repaired as
    when the recap came over the console.  A fake m5 does what the guest's does: `mode` and
    `writefile FILE NAME` (into m5out)."""
    m5out = tmp_path / "m5out"
    m5out.mkdir()
    bindir = tmp_path / "path"
    bindir.mkdir()
    (bindir / "m5").write_text(f'#!/bin/sh\ncase "$1" in mode) echo inst;; writefile) cp "$2" "{m5out}/$3";; esac\n')
    (bindir / "m5").chmod(0o755)
    for name in ("stty", "timeout"):            # the UART drain: nothing to drain here
        (bindir / name).write_text("#!/bin/sh\nexit 0\n")
        (bindir / name).chmod(0o755)
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0,\\"ops\\":7}"\n')
    prog.chmod(0o755)
    text = _in_tmp(guest_script.render([guest_script.Case(1, "local", "stock")]), tmp_path, prog)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "VMSCALE_M5": "inst"}
    out = subprocess.run(["sh", "-c", text], capture_output=True, text=True, env=env).stdout
    assert f"VMSCALE-RECAP-FILE {guest_script.RECAP_FILE}" in out and out.count("VMSCALE-RESULT") == 1
    garbled = out.replace('"ok":true,"errors":0,"ops":7', '"ok":tr[ 9.1] x\nue', 1)
    assert console.parse(garbled).cases[1].result is None
    whole = console.inline_recap(garbled, m5out)
    assert whole.count("VMSCALE-RESULT") == 2 and "VMSCALE-RECAP-FILE" not in whole
    con = console.parse(whole)
    assert con.cases[1].result["ops"] == 7 and con.cases[1].recovered == ["result"] and con.script_ended
    assert console.inline_recap(garbled, tmp_path / "elsewhere") == garbled     # no file: left as it was


def test_integer_sysctls_are_read_whole(tmp_path):
    # proc_dointvec answers only a read at offset 0 and the shell's `read` takes a byte per
    # read(2): a CI run saw watchdog_thresh=6 for 60.  The host's own /proc/sys files, read by
    # the script as the guest's busybox sh runs it, must come back whole.
    real = "/proc/sys/kernel/pid_max"
    want = open(real).read().strip()
    (tmp_path / "proc/sys/kernel").mkdir(parents=True)
    os.symlink(real, tmp_path / "proc/sys/kernel/pid_max")   # rewritten by _in_tmp, still the real file
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text(FAKE + 'out "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0}"\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "stock", {}, {"kernel/pid_max": want})]   # writes what it holds
    text = _in_tmp(guest_script.render(cases), tmp_path, prog)
    # the header reads the real detector sysctls (no rewrite for kernel/watchdog_thresh: it is not under tmp)
    text = text.replace(str(tmp_path / "proc/sys/kernel/watchdog_thresh"), "/proc/sys/kernel/watchdog_thresh")
    shell = [str(image.find_busybox()), "sh"] if shutil.which("busybox") else ["sh"]
    out = subprocess.run(shell + ["-c", text], capture_output=True, text=True).stdout
    con = console.parse(out)
    assert con.cases[1].sysctls == {"kernel/pid_max": want}
    if os.path.exists("/proc/sys/kernel/watchdog_thresh"):
        thresh = open("/proc/sys/kernel/watchdog_thresh").read().strip()
        assert f"watchdog_thresh={thresh} " in out
