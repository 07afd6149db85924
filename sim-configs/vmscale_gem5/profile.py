"""Where a gem5 boot spends its host time: read a `vmscale_fs.py --profile` output directory.

The profile has two parts, both sampled once per --progress period:
- stats.txt: one cumulative dump per period, so per-CPU committed instructions per period
  (an atomic CPU costs host time per instruction: busy CPUs are what a boot pays for);
- the Exec trace (--debug-file): a short window of every CPU's instructions, with the
  kernel symbol gem5 resolved from vmlinux, at the start of each period.

    python -m vmscale_gem5.profile M5OUT [--trace trace.out.gz] [--top 3]
"""

import argparse
import gzip
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from vmscale_gem5 import stats as statslib

TRACE_LINE = re.compile(r"^\s*(\d+): board\.processor\.cores(\d*)\.core: (?:T\d+ : )?(0x[0-9a-f]+)"
                        r"(?: @([\w.$]+)(?:\+\d+)?)?")
INSTS = re.compile(r"^board\.processor\.cores(\d*)\.core\.commitStats0\.numInsts$")


def parse_trace(lines, period_ticks: int) -> dict:
    """{window start tick: {cpu: Counter(symbol)}}; user-mode PCs count as 'user'."""
    out = defaultdict(lambda: defaultdict(Counter))
    for line in lines:
        m = TRACE_LINE.match(line)
        if not m:
            continue
        tick, cpu, pc, sym = int(m.group(1)), int(m.group(2) or 0), m.group(3), m.group(4)
        if not sym:
            sym = "user" if int(pc, 16) < 1 << 47 else f"kernel:{pc}"
        out[tick - tick % period_ticks][cpu][sym] += 1
    return out


def insts_per_period(dumps: list) -> list:
    """[(simulated seconds at the end of the period, {cpu: instructions in the period})]."""
    rows, prev = [], {}
    for d in dumps:
        now = {int(m.group(1) or 0): v for k, v in d.items() if (m := INSTS.match(k))}
        rows.append((d.get("simSeconds"), {c: v - prev.get(c, 0) for c, v in now.items()}))
        prev = now
    return rows


def busy_cpus(per_cpu: dict, period_insts_when_busy: float) -> int:
    """CPUs that executed at least half as many instructions as a CPU that never idles."""
    return sum(1 for v in per_cpu.values() if v >= period_insts_when_busy / 2)


def table(dumps: list, windows: dict, clock_hz: float, period_s: float, top: int = 3) -> list:
    """One row per period: instructions, busy CPUs, and the hottest symbols traced there."""
    full = clock_hz * period_s / 2.5   # an atomic CPU retires about one instruction per 2-3 cycles
    rows = []
    for sim_s, per_cpu in insts_per_period(dumps):
        start = int(round((sim_s - period_s) * 1e12))
        syms = Counter()
        for counter in windows.get(start, {}).values():
            # each CPU's window counts once, shared among its symbols
            total = sum(counter.values())
            for s, n in counter.items():
                syms[s] += n / total
        rows.append({"sim_s": round(sim_s, 4), "insts": int(sum(per_cpu.values())),
                     "busy_cpus": busy_cpus(per_cpu, full),
                     "hot": [(s, round(v, 2)) for s, v in syms.most_common(top)]})
    return rows


def _lines_until_cut(f):
    """The lines of a trace that may still be written (or was cut by a kill): all that is whole."""
    try:
        yield from f
    except EOFError:
        return


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m vmscale_gem5.profile", description=__doc__.splitlines()[0])
    p.add_argument("m5out")
    p.add_argument("--trace", default="trace.out.gz")
    p.add_argument("--period", type=float, default=0.01, help="the run's --progress")
    p.add_argument("--clock", type=float, default=3e9)
    p.add_argument("--top", type=int, default=3)
    a = p.parse_args(argv)
    d = Path(a.m5out)
    dumps = statslib.parse_file(d / "stats.txt")
    trace = d / a.trace
    opener = gzip.open if trace.suffix == ".gz" else open
    with opener(trace, "rt", errors="replace") as f:
        windows = parse_trace(_lines_until_cut(f), int(a.period * 1e12))
    print(f"{'sim s':>7} {'Minsts':>8} {'busy':>4}  hottest symbols (CPUs' share of the traced window)")
    for r in table(dumps, windows, a.clock, a.period, a.top):
        hot = ", ".join(f"{s} {v:g}" for s, v in r["hot"])
        print(f"{r['sim_s']:7.3f} {r['insts'] / 1e6:8.1f} {r['busy_cpus']:4d}  {hot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
