"""The run script the guest executes after boot: one case per (variant, workload).

Pure text generation; the console parser (console.py) reads the markers it prints.
"""

import re
import shlex
from dataclasses import dataclass, field

from vmscale.variants import upstream
from vmscale.workloads import SCRIPTS


@dataclass
class Case:
    case_id: int
    workload: str
    variant: str
    args: dict = field(default_factory=dict)
    sysctls: dict = field(default_factory=dict)

    def argv(self) -> list:
        return [f"/bin/{self.workload}"] + [f"{k}={v}" for k, v in self.args.items()]


# /proc/interrupts rows summarised at the end of a run (VMSCALE-INTERRUPTS).
IRQ_ROWS = ("LOC", "RES", "CAL", "TLB")

# The descriptor the run script holds open so that workloads start with a full-size fd table
# (RLIMIT_NOFILE's default soft limit is 1024).
FD_RESERVE = 1023

# Where the guest keeps each case's marker lines for the recap (tmpfs in the guest).
STATE_DIR = "/tmp/vmscale-run"

# The recap's name in gem5's m5out when it leaves by m5 writefile.
RECAP_FILE = "recap.txt"


def render(cases: list, left: bool = True) -> str:
    """The script.  Every marker line goes to the console as the case runs and into a
    per-case file; at the end the files are printed again (the recap) with the kernel's
    console quietened.  Kernel messages are written to the same UART as our output and
    can land inside one of our lines (seen: a 2-vCPU run under load lost a CASE-END to
    the asynchronous TSC calibration messages); the parser fills what the live copy
    lost from the recap."""
    d = STATE_DIR
    # The script reports the CPUs itself: after a gem5 restore, /init's boot line is not in the log.
    lines = ["#!/bin/sh", "# vmscale run script (generated)",
             f"d={d}; rm -rf $d; mkdir -p $d",
             # A process starts with room for 64 descriptors; when its threads open more, the
             # kernel grows the table and, the table being shared, waits an RCU grace period
             # (fs/file.c expand_fdtable) while every other opener sleeps.  At 64 and 128 cores
             # that put a grace period into refcount's ROI (threads opening /proc/refcache_bench
             # late finished 10-50x after the rest).  A descriptor held open at the top of the
             # 1024-entry limit makes every workload start with the whole table.  (The guest's
             # busybox sh takes multi-digit descriptors; a shell that does not skips this.)
             f"(eval 'exec {FD_RESERVE}</dev/null') 2>/dev/null && eval 'exec {FD_RESERVE}</dev/null'",
             'say() { echo "$2"; echo "$2" >> "$d/$1"; }',
             # Files are read with the shell's own `read`, not $(cat ...): under gem5 each
             # command substitution is a fork and an exec, ~2 ms of simulated time apiece.
             'get() { v=-; [ -r "$1" ] && read -r v < "$1"; }',
             # ...except an integer sysctl: proc_dointvec answers only a read at offset 0, and
             # `read` takes a byte per read(2), so it would see the first digit alone.  cat
             # reads it whole (a fork: the two detector sysctls per run, no case's switches).
             'getn() { v=-; [ -r "$1" ] && v=$(cat "$1"); }',
             'm5m=${VMSCALE_M5:-$(m5 mode 2>/dev/null)}',
             'get /proc/sys/kernel/osrelease',
             'say 0-head "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$v"',
             # The detector timeouts the kernel actually took (watchdogs.py chose them).
             'get /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout; w="rcu_cpu_stall_timeout=$v"',
             'getn /proc/sys/kernel/watchdog_thresh; w="$w watchdog_thresh=$v"',
             'getn /proc/sys/kernel/hung_task_timeout_secs; w="$w hung_task_timeout_secs=$v"',
             'say 0-head "VMSCALE-WATCHDOG $w"']
    for c in cases:
        n = c.case_id
        lines.append(f"say {n} 'VMSCALE-CASE-BEGIN {n} {c.variant} {c.workload}'")
        lines.append("rc=0")
        for path, value in c.sysctls.items():
            # A missing switch means the kernel lacks the variant (fail the case, not the
            # boot), unless the value is what an unpatched kernel does anyway.
            missing = "" if upstream(path, value) else " else rc=98;"
            lines.append(f"if [ -w /proc/sys/{path} ]; then echo {shlex.quote(value)} > /proc/sys/{path} || rc=97;"
                         f"{missing} fi")
            # vmscale's switches are strings (proc_dostring honours the offset): `read` takes them
            get = "getn" if re.fullmatch(r"-?\d+", value) else "get"
            lines.append(f"[ -r /proc/sys/{path} ] && {get} /proc/sys/{path} && say {n} \"VMSCALE-SYSCTL {path}=$v\"")
        argv = " ".join(shlex.quote(a) for a in c.argv())
        if c.workload in SCRIPTS:
            # A guest script's stdout goes through tee so that its result line can be recapped.
            lines.append(f"if [ $rc = 0 ]; then {{ {argv}; echo $? > $d/rc-{n}; }} | tee $d/out-{n};"
                         f" rc=$(cat $d/rc-{n} 2>/dev/null || echo 99);"
                         f" grep 'VMSCALE-RESULT ' $d/out-{n} >> $d/{n}; fi")
        else:
            # Under gem5 (m5 mode on) the harness appends its result line to $VMSCALE_RECAP itself
            # and writes its frame map to m5out/physmap-<case>.txt (VMSCALE_CASE): the case's
            # only process is the workload.  Elsewhere stdout goes through tee as it always did:
            # the pipeline also waits for every process that holds the workload's stdout, so a
            # case cannot start while the last one's children still run.  The frame map
            # (physmap=1: 28 KB of live console, where a kernel message is likeliest to land;
            # vmscale.physmap keeps the cleaner copy) is recapped too.
            lines.append(f'if [ $rc = 0 ]; then case "$m5m" in inst|addr) VMSCALE_RECAP=$d/{n} VMSCALE_CASE={n} {argv};'
                         f' rc=$?;; *) {{ {argv}; echo $? > $d/rc-{n}; }} | tee $d/out-{n};'
                         f" rc=$(cat $d/rc-{n} 2>/dev/null || echo 99);"
                         f" grep 'VMSCALE-RESULT ' $d/out-{n} >> $d/{n};"
                         f" sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-{n} >> $d/{n};; esac; fi")
        lines.append(f"say {n} \"VMSCALE-CASE-END {n} rc=$rc\"")
    # Which CPUs took which interrupts over the boot and run: for each /proc/interrupts row named
    # in IRQ_ROWS, the CPUs with a non-zero count and the total.  Local timer, rescheduling,
    # function-call and TLB-shootdown IPIs on every CPU are what an APIC mode must deliver
    # (the x2APIC tests read it); a line per boot, whatever the CPU count.
    lines += ["irqsum() { awk -v rows='" + " ".join(IRQ_ROWS) + "' '"
              'BEGIN { n = split(rows, r, " "); for (i = 1; i <= n; i++) want[r[i] ":"] = r[i] } '
              "NR == 1 { cpus = NF } "
              "($1 in want) { c = 0; t = 0; for (i = 2; i <= cpus + 1; i++) if ($i > 0) { c++; t += $i } "
              "printf \"%s=%d/%d \", want[$1], c, t }' /proc/interrupts 2>/dev/null; }",
              'say 0-tail "VMSCALE-INTERRUPTS $(irqsum)"']
    # What is left once every case has ended (QEMU and hosts only: under gem5 it would cost
    # simulated forks): every process but kernel threads (parent 2), every task not asleep,
    # and Refcache's and the RadixVM region's counters -- so that a leak check that failed says
    # whether a process kept its mm or the epochs stalled.  The console keeps it; nothing parses it.
    # Not even written into gem5's script (left=False): the script's text is in guest memory, and
    # a gem5 record re-made must get the same script as when it was recorded.
    if left:
        lines += ['case "$m5m" in inst|addr) ;; *) echo "VMSCALE-LEFT tasks=$(awk \'$1 != 2 && $4 != 2 || '
                  '$3 != "S" && $3 != "I" { printf "%s %s %s; ", $1, $2, $3 }\' /proc/[0-9]*/stat 2>/dev/null)'
                  ' refcache=$(tr "\\n" " " < /proc/refcache 2>/dev/null)'
                  ' radix=$(grep regions /proc/vmscale_radix 2>/dev/null | tr "\\n" " ")";; esac']
    # Quieten the console to emergencies for the recap, then restore the user's level.
    # Under gem5 the recap leaves by m5 writefile (outside simulated time): through the UART its
    # few KB cost a 2-core run tens of milliseconds of simulated time, a character and an
    # interrupt at a time.  The console then names the file (console.inline_recap reads it).
    files = "$d/0-head " + " ".join(f"$d/{c.case_id}" for c in cases) + " $d/0-tail"
    lines += ["echo VMSCALE-RECAP-BEGIN",
              f'case "$m5m" in inst|addr) cat {files} > $d/recap 2>/dev/null; '
              f'm5 writefile $d/recap {RECAP_FILE} > /dev/null 2>&1 && echo "VMSCALE-RECAP-FILE {RECAP_FILE}" || cat $d/recap;; *)',
              "p=; [ -r /proc/sys/kernel/printk ] && read -r p < /proc/sys/kernel/printk && echo 1 > /proc/sys/kernel/printk",
              f"cat {files} 2>/dev/null",
              '[ -n "$p" ] && echo "$p" > /proc/sys/kernel/printk;; esac',
              "echo VMSCALE-RECAP-END",
              "echo VMSCALE-SCRIPT-END",
              # Under gem5, /init's m5 exit ends the simulation at once: whatever the serial
              # driver has not yet sent (up to its 4 KiB buffer: the recap's tail) would be
              # lost.  Wait until the UART has sent it: stty sets the console's own settings
              # again with TCSADRAIN, which returns once the output is sent.  A fixed sleep
              # (0.3 s simulated) cost hours at 128 cores on Timing + Ruby; the sleep stays
              # only as the fallback, and a drain that has not ended in 2 s gives up.  QEMU
              # (m5 mode off) and hosts skip this.
              # /init passes the m5 mode it read before the checkpoint (VMSCALE_M5).
              'case "$m5m" in inst|addr) s=$(stty -F /dev/console -g 2>/dev/null) && '
              'timeout 2 stty -F /dev/console "$s" 2>/dev/null || sleep 0.3;; esac']
    return "\n".join(lines) + "\n"
