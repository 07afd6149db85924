"""Read a guest console log: boot marker, per-case results, kernel problems.

Pure functions over text, shared by every backend that boots a kernel.
"""

import json
import re
from dataclasses import dataclass, field

# Lines a healthy kernel never prints.  Each maps to a short reason.
KERNEL_PROBLEMS = [
    (re.compile(r"Kernel panic - not syncing"), "kernel panic"),
    (re.compile(r"\bOops\b|general protection fault"), "kernel oops"),
    (re.compile(r"BUG: |kernel BUG at"), "kernel BUG"),
    (re.compile(r"WARNING: (CPU: |at )"), "kernel WARNING"),
    # lockdep and RCU-lockdep report headers (not the boot banners that mention lockdep)
    (re.compile(r"possible (recursive|circular) locking|inconsistent lock state|possible irq lock inversion"
                r"|suspicious RCU usage|bad unlock balance|DEBUG_LOCKS_WARN_ON|lock held when returning"),
     "lockdep report"),
    (re.compile(r"KASAN: "), "KASAN report"),
    (re.compile(r"Unable to mount root fs|No working init found"), "root file system or /init not usable"),
    (re.compile(r"rcu: INFO: rcu_\w+ (self-)?detected stall"), "RCU stall"),
    (re.compile(r"soft lockup|hard LOCKUP"), "lockup"),
    (re.compile(r"INFO: task \S+ blocked for more than \d+ seconds"), "hung task"),
]

# Reports from upstream kernel code that vmscale does not touch, each recognised by its header
# line and by what its report must show in the lines after it.  They are recorded (manifest
# `kernel_known_upstream`, printed by the run), not failed on: a design cannot cause or fix them.
KNOWN_UPSTREAM = [
    # 6.12's fair-server (dl_server) defer timer: dl_server_stop() cannot cancel the timer while
    # its callback waits for the rq lock, dl_server_start() re-arms it, and the callback's
    # hrtimer_forward_now() then finds it enqueued.  The WARN returns without forwarding and the
    # timer stays armed.  The window is the callback's wait for the rq lock, so it opens under
    # heavily oversubscribed TCG vCPUs (seen once, 32 vCPUs on 2 busy host CPUs, debug kernel).
    ("dl_server defer timer re-armed while its callback ran (upstream 6.12 scheduler)",
     re.compile(r"WARNING: CPU: \d+ PID: \d+ at kernel/time/hrtimer\.c:\d+ hrtimer_forward\b"),
     re.compile(r"\b(dl_task_timer|dl_server_timer)\+"), 40),
    # lockdep's report on printing that WARN from the timer callback under the rq lock (printk ->
    # console_owner while rq->__lock is held): its chain's newest link is report_bug() called
    # from hrtimer_forward().
    ("lockdep on printk under the rq lock, printing that dl_server warning (upstream)",
     re.compile(r"possible circular locking dependency detected"),
     re.compile(r"console_owner[\s\S]*\breport_bug\+\S*\n(?:.*\n){0,5}?.*\bhrtimer_forward\+"), 200),
]


def known_upstream(lines: list) -> dict:
    """{line index: what it is} for the header lines of KNOWN_UPSTREAM reports in `lines`."""
    out = {}
    for i, line in enumerate(lines):
        for name, header, body, span in KNOWN_UPSTREAM:
            if header.search(line) and body.search("\n".join(lines[i + 1:i + 1 + span]) + "\n"):
                out[i] = name
    return out


# show_signal_msg(): "comm[pid]: segfault at ADDR ip ... error N ..." (debug.exception-trace=1)
SEGFAULT = re.compile(r"(\S+)\[(\d+)\]: segfault at ([0-9a-f]+)")


@dataclass
class CaseOutput:
    case_id: int
    variant: str
    workload: str
    rc: int = None
    result: dict = None
    sysctls: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    recovered: list = field(default_factory=list)  # fields the live copy lost, taken from the recap
    result_in_recap: bool = False   # the harness sent its result line to the recap only (gem5)
    # Processes the kernel reported dead of an unhandled SIGSEGV during the case ("comm[pid] at
    # addr"): a program's own crash, or memory a kernel design lost.  Some are deliberate
    # (stress-ng's vm-segv), so they are shown, not failed on.
    segfaults: list = field(default_factory=list)


@dataclass
class Console:
    booted_cpus: int = None
    kernel_release: str = None
    script_began: bool = False
    script_ended: bool = False
    halted: bool = False
    cases: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)   # (reason, line) anywhere in the log
    known: list = field(default_factory=list)      # (what, line): KNOWN_UPSTREAM reports, not failed on
    errors: list = field(default_factory=list)     # VMSCALE-ERROR lines from /init
    watchdogs: dict = field(default_factory=dict)  # detector timeouts the guest reported
    # /proc/interrupts at the end of the script: row name -> (CPUs with a non-zero count, total)
    interrupts: dict = field(default_factory=dict)


def kernel_problems(line: str) -> list:
    return [reason for pattern, reason in KERNEL_PROBLEMS if pattern.search(line)]


def parse(text: str) -> Console:
    """The live part of the log, with what kernel messages garbled there filled in
    from the guest's recap (see guest_script.render)."""
    live, sep, recap = text.partition("VMSCALE-RECAP-BEGIN")
    con = _parse(live)
    if sep:
        _fill(con, _parse(recap.split("VMSCALE-RECAP-END", 1)[0], problems=False))
        con.script_ended = con.script_ended or "VMSCALE-SCRIPT-END" in recap
        con.halted = con.halted or "VMSCALE-HALT" in recap
        for reason, line in (p for l in recap.splitlines() for p in _problems(l)):
            con.problems.append((reason, line))
    return con


def _problems(line: str) -> list:
    line = line.replace("\r", "")
    return [(reason, line.strip()) for reason in kernel_problems(line)]


def _fill(con: Console, recap: Console) -> None:
    """Take from the recap only what the live copy lacks: the live copy is what the
    kernel messages of each case are attributed to."""
    if con.booted_cpus is None:
        con.booted_cpus, con.kernel_release = recap.booted_cpus, recap.kernel_release
    con.script_began = con.script_began or recap.script_began
    for key, value in recap.watchdogs.items():
        con.watchdogs.setdefault(key, value)
    con.interrupts = con.interrupts or recap.interrupts
    for case_id, r in recap.cases.items():
        live = con.cases.get(case_id)
        if live is None:
            r.recovered = ["case"]
            con.cases[case_id] = r
            continue
        if live.rc is None and r.rc is not None:
            live.rc = r.rc
            live.recovered.append("rc")
        if live.result is None and r.result is not None:
            live.result = r.result
            if not live.result_in_recap:     # under gem5 the harness sends it there on purpose
                live.recovered.append("result")
        for key, value in r.sysctls.items():
            if key not in live.sysctls:
                live.sysctls[key] = value
                live.recovered.append(f"sysctl {key}")


def _parse(text: str, problems: bool = True) -> Console:
    con = Console()
    current = None
    lines = [raw.replace("\r", "") for raw in text.splitlines()]
    known = known_upstream(lines) if problems else {}
    for i, line in enumerate(lines):
        found = _problems(line) if problems else []
        if found and i in known:
            con.known.append((known[i], line.strip()))
            found = []
        for reason, stripped in found:
            con.problems.append((reason, stripped))
            if current:
                current.problems.append(reason)
        m = re.search(r"VMSCALE-BOOTED cpus=(\d+) kernel=(\S+)", line)
        if m:
            con.booted_cpus, con.kernel_release = int(m.group(1)), m.group(2)
            continue
        if "VMSCALE-SCRIPT-BEGIN" in line:
            con.script_began = True
            m = re.search(r"VMSCALE-SCRIPT-BEGIN cpus=(\d+) kernel=(\S+)", line)
            if m:
                con.booted_cpus, con.kernel_release = int(m.group(1)), m.group(2)
        elif "VMSCALE-WATCHDOG " in line:
            con.watchdogs = {k: v for k, v in re.findall(r"(\w+)=(\S+)", line.split("VMSCALE-WATCHDOG ", 1)[1])
                             if v != "-"}
        elif "VMSCALE-INTERRUPTS " in line:
            con.interrupts = {k: (int(c), int(t)) for k, c, t in re.findall(r"(\w+)=(\d+)/(\d+)", line)}
        elif "VMSCALE-SCRIPT-END" in line:
            con.script_ended = True
        elif "VMSCALE-HALT" in line:
            con.halted = True
        elif "VMSCALE-ERROR" in line:
            con.errors.append(line.split("VMSCALE-ERROR", 1)[1].strip())
        m = re.search(r"VMSCALE-CASE-BEGIN (\d+) (\S+) (\S+)", line)
        if m:
            current = CaseOutput(int(m.group(1)), m.group(2), m.group(3))
            con.cases[current.case_id] = current
            continue
        if current is None:
            continue
        m = re.search(r"VMSCALE-CASE-END (\d+) rc=(\d+)", line)
        if m and int(m.group(1)) == current.case_id:
            current.rc = int(m.group(2))
            current = None
            continue
        m = re.search(r"VMSCALE-SYSCTL (\S+?)=(\S*)", line)
        if m:
            current.sysctls[m.group(1)] = m.group(2)
            continue
        # (the substring first: on a result line's kilobytes of JSON with no space, the pattern's
        # leading \S+ backtracks from every position, quadratic in the line)
        m = SEGFAULT.search(line) if "segfault at" in line else None
        if m:
            current.segfaults.append(f"{m.group(1)}[{m.group(2)}] at {m.group(3)}")
        if "VMSCALE-RESULT-IN-RECAP " in line:
            current.result_in_recap = True
            continue
        if "VMSCALE-RESULT " in line:
            try:
                current.result = json.loads(line.split("VMSCALE-RESULT ", 1)[1])
            except json.JSONDecodeError:
                current.lines.append(line)  # interleaved with a kernel message
            continue
        current.lines.append(line)
    return con


def case_failure(case: CaseOutput) -> str:
    """Why a case failed, in a few words, or '' when it passed."""
    if case.rc is None:
        return "the guest never finished this case"
    if case.rc == 97:
        return "the guest could not set the variant's sysctl"
    if case.rc == 98:
        return f"the kernel lacks variant {case.variant} (no sysctl): build with the vmscale patches"
    if case.problems:
        return ", ".join(sorted(set(case.problems)))
    if case.result is None:
        tail = "; ".join(case.lines[-3:])
        return f"workload exited rc={case.rc} without a result line: {tail}"
    if not case.result.get("ok", False):
        first = next((ln.strip() for ln in case.lines if "CORRUPT" in ln), None)
        why = f"content verification failed ({case.result.get('errors')} errors)"
        return f"{why}; first: {first}" if first else why
    if case.rc:
        return f"workload exited rc={case.rc}"
    return ""


def inline_recap(text: str, m5out) -> str:
    """A gem5 console whose recap left by m5 writefile (`VMSCALE-RECAP-FILE NAME`, written
    to m5out): the file's lines put in place of that line, so that the console log holds its
    recap as every other run's does.  A missing file leaves the line (the live copy stands)."""
    from pathlib import Path
    out = []
    for line in text.splitlines(keepends=True):
        if line.startswith("VMSCALE-RECAP-FILE "):
            name = line.split()[1] if len(line.split()) > 1 else ""
            path = Path(m5out) / name
            if "/" not in name and path.is_file():
                body = path.read_text(errors="replace")
                out.append(body if body.endswith("\n") else body + "\n")
                continue
        out.append(line)
    return "".join(out)
