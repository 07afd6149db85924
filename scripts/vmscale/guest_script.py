"""The run script the guest executes after boot: one case per (variant, workload).

Pure text generation; the console parser (console.py) reads the markers it prints.
"""

import shlex
from dataclasses import dataclass, field

from vmscale.variants import UPSTREAM_VALUES


@dataclass
class Case:
    case_id: int
    workload: str
    variant: str
    args: dict = field(default_factory=dict)
    sysctls: dict = field(default_factory=dict)

    def argv(self) -> list:
        return [f"/bin/{self.workload}"] + [f"{k}={v}" for k, v in self.args.items()]


def render(cases: list) -> str:
    # The script reports the CPUs itself: after a gem5 restore, /init's boot line is not in the log.
    lines = ["#!/bin/sh", "# vmscale run script (generated)",
             'echo "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$(uname -r)"',
             # The detector timeouts the kernel actually took (watchdogs.py chose them).
             'wd() { [ -r "$1" ] && cat "$1" || echo -; }',
             'echo "VMSCALE-WATCHDOG rcu_cpu_stall_timeout=$(wd /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout)'
             ' watchdog_thresh=$(wd /proc/sys/kernel/watchdog_thresh)'
             ' hung_task_timeout_secs=$(wd /proc/sys/kernel/hung_task_timeout_secs)"']
    for c in cases:
        lines.append(f"echo 'VMSCALE-CASE-BEGIN {c.case_id} {c.variant} {c.workload}'")
        lines.append("rc=0")
        for path, value in c.sysctls.items():
            # A missing switch means the kernel lacks the variant (fail the case, not the
            # boot), unless the value is what an unpatched kernel does anyway.
            missing = "" if value in UPSTREAM_VALUES else " else rc=98;"
            lines.append(f"if [ -w /proc/sys/{path} ]; then echo {shlex.quote(value)} > /proc/sys/{path} || rc=97;"
                         f"{missing} fi")
            lines.append(f"[ -r /proc/sys/{path} ] && echo \"VMSCALE-SYSCTL {path}=$(cat /proc/sys/{path})\"")
        lines.append(f"[ $rc = 0 ] && {{ {' '.join(shlex.quote(a) for a in c.argv())}; rc=$?; }}")
        lines.append(f"echo \"VMSCALE-CASE-END {c.case_id} rc=$rc\"")
    lines.append("echo VMSCALE-SCRIPT-END")
    return "\n".join(lines) + "\n"
