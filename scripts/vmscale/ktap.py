"""KUnit results in a guest console (KTAP, as the kernel prints them at boot).

KUnit runs built-in suites at boot when the command line has `kunit.enable=1`; each suite
prints `# Subtest: NAME`, one `ok N case` / `not ok N case` line per case (`# SKIP` marks a
skip) and, after `# Totals:`, a suite line.  User-space kselftests print TAP too, so only the
lines between KUnit's `KTAP version 1` header and the start of /init are read.
"""

import re
from dataclasses import dataclass, field

_RESULT = re.compile(r"^(\s*)(not ok|ok) (\d+) ([\w.\-]+)(.*)$")
_SUBTEST = re.compile(r"^\s*# Subtest: ([\w.\-]+)")
_INFO = re.compile(r"^\s*# ([\w.\-]+): (.*)$")


@dataclass
class Suite:
    name: str
    ok: bool = None
    cases: dict = field(default_factory=dict)     # case -> "pass" | "fail" | "skip"
    messages: list = field(default_factory=list)  # "# case: ..." diagnostic lines


def _strip(line: str) -> str:
    # printk may prefix a timestamp: "[    1.234567]     ok 1 x"
    return re.sub(r"^\[\s*\d+\.\d+\]\s?", "", line.rstrip("\r\n"))


def parse(text: str) -> dict:
    """Suites by name, from the KUnit section of a console log ({} if KUnit did not run)."""
    suites, current, inside = {}, None, False
    for raw in text.splitlines():
        line = _strip(raw)
        if "KTAP version 1" in line and not inside:
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("VMSCALE-") or ("Run /" in line and "as init process" in line):
            inside = False  # user space from here on: its TAP is not KUnit's
            continue
        m = _SUBTEST.match(line)
        if m:
            current = suites.setdefault(m.group(1), Suite(m.group(1)))
            continue
        m = _RESULT.match(line)
        if m:
            indent, verdict, _, name, rest = m.groups()
            status = "skip" if "# SKIP" in rest else ("pass" if verdict == "ok" else "fail")
            if indent and current is not None:
                current.cases[name] = status
            elif name in suites:
                suites[name].ok = status != "fail"
            continue
        m = _INFO.match(line)
        if m and current is not None:
            current.messages.append(f"{m.group(1)}: {m.group(2)}")
    return suites


def failures(suites: dict) -> list:
    """One line per failed suite or case; a suite that never finished counts as failed."""
    out = []
    for s in suites.values():
        bad = [c for c, v in s.cases.items() if v == "fail"]
        if bad:
            out.append(f"KUnit {s.name}: {', '.join(bad)} failed")
        elif s.ok is None:
            out.append(f"KUnit {s.name}: no result line (did the suite hang or crash?)")
        elif not s.ok:
            out.append(f"KUnit {s.name}: suite failed")
    return out
