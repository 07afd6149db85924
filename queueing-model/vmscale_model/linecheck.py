"""The hot-line stations a model carried past its fitted core counts, beside a trace made there.

`hotboard` (hotcarried.Carried) queues an operation on each line the trace at the largest traced
count n_t not above the fitted ones saw move, with its visits per operation v and hand-off s, and
carries s to N cores along the board's transfer path (once per ownership change a visit holds).
A trace made at a held-out N (hotlines.csv rows at N, never an input) measures the same line's v
and hand-off there, and the lines that moved at N but not at n_t, so a miss at N can be read as
which line the carrying got wrong, or which line it never had.  Beside each, the line's share of
the machine's time busy, X v s, at the curve's measured window throughput X(N) (operations per
cycle of the machine); the work outside the lines, Z(N), is carried too and printed with them.

Pure: rows in, rows out (the CLI reads the files).
"""

import re

from vmscale_model import hotcarried, hotstations


# Parts of a line's name that differ between boots for the same role: a page's frame, a CPU's
# number (its per-CPU copy), a VMA's start (the region a run maps where the kernel places it); a
# kernel symbol's line keeps its address (one vmlinux, several lines).
_VARYING = ((re.compile(r"pfn 0x[0-9a-f]+"), "pfn *"), (re.compile(r"^((?:anon )?page) 0x[0-9a-f]+"), r"\1 *"),
            (re.compile(r"\[cpu\d+\]"), "[cpu*]"), (re.compile(r"vma@[0-9a-f]+"), "vma@*"))


def role(name: str, kind: str, line: str = "") -> str:
    """What a line is for, the same at every core count: its name without the frame or CPU it fell on
    (the file's 64 struct pages at 20 cores and the same file's at 80 are one role)."""
    if kind == "kernel" and line:
        return f"{name} @{line}"
    for pat, rep in _VARYING:
        name = pat.sub(rep, name)
    return name


def _roles(entries) -> dict:
    """{role: [lines, visits, demand, kind]} of (role, kind, visits, demand) entries."""
    out = {}
    for rl, kind, v, d in entries:
        a = out.setdefault(rl, [0, 0.0, 0.0, kind])
        a[0] += 1
        a[1] += v
        a[2] += d
    return out


def _ranked(rows: list, n: int, top: int) -> list:
    """hotstations.stations of the trace at n, each with its role: built a row at a time, so that each
    station keeps its own row's line address (a kernel symbol has several lines of one name), then
    ordered as hotstations.stations orders them (by demand, a stable sort of the rows' order)."""
    out = []
    for r in (r for r in rows if int(r["cores"]) == n):
        for s in hotstations.stations([r], top):
            out.append((s, role(s["name"], s["kind"], r.get("line", ""))))
    return sorted(out, key=lambda sr: -sr[0]["demand"])


def check(rows: list, trace_rows: list, board, train_max: int = 20, top: int = 0, at: tuple = ()) -> dict:
    """{traced_at, fitted, points: per core count N (a measured point above train_max, a trace there,
    or one of `at`): {cores, measured_x, model_x, think, traced, lines: [{line (its role), kind,
    carried: (lines, v, s, demand) or None, traced: (lines, v, s, demand) or None, carried_busy,
    traced_busy (a line's share of the time busy at the measured rate, X demand / lines)}]}}.  Lines are
    compared by role (role()), summed over the lines of one role: v the visits per operation, s the demand over v (a line held in runs (sockets.ownership_runs) has its
    demand per operation, not per visit, grow).
    rows: one curve's rows (window_ops_per_cycle); trace_rows: its case's hotlines.csv rows at every
    traced count; board: its vmscale_gem5 Board."""
    fitted = [r for r in rows if int(float(r["cores"])) <= train_max]
    c = hotcarried.Carried(fitted, trace_rows, board.miss_cycles, board.transfer_cycles, top)
    hotcarried.anchor(c)       # as the study's hotboard
    x_meas = {int(float(r["cores"])): float(r["window_ops_per_cycle"]) for r in rows
              if float(r.get("window_ops_per_cycle") or "nan") > 0}
    traced_at = {int(r["cores"]) for r in trace_rows if r.get("cores") and int(r["cores"]) > train_max}
    counts = {n for n in x_meas if n > train_max} | traced_at | set(at)
    fitted_roles = [rl for _, rl in _ranked(trace_rows, c.n_t, top)]
    out = {"traced_at": c.n_t, "fitted": sorted({int(float(r["cores"])) for r in fitted}), "points": []}
    for n in sorted(counts):
        x = x_meas.get(n, float("nan"))
        z, demands, _, _ = c.at(n)
        carried = _roles((rl, s["kind"], s["visits"], d) for s, rl, d in zip(c.stations, fitted_roles, demands))
        traced = _roles((rl, s["kind"], s["visits"], s["demand"]) for s, rl in _ranked(trace_rows, n, top)) \
            if n in traced_at else {}
        lines = [_line(rl, carried.get(rl), traced.get(rl), x) for rl in list(carried) + [t for t in traced
                                                                                        if t not in carried]]
        out["points"].append({"cores": n, "measured_x": x, "model_x": float(c.throughput([n])[0]),
                              "think": z, "traced": n in traced_at, "lines": lines})
    return out


def _line(rl, carried, traced, x) -> dict:
    def side(a):
        return (a[0], a[1], a[2] / a[1], a[2]) if a else None
    kind = (carried or traced)[3]
    c, t = side(carried), side(traced)
    return {"line": rl, "kind": kind, "carried": c, "traced": t,
            # a line's busy share, each of the role's lines alike (one queue per line, not per role)
            "carried_busy": x * c[3] / c[0] if c else float("nan"), "traced_busy": x * t[3] / t[0] if t else float("nan")}


def render(result: dict, top: int = 8) -> str:
    """The check as text: per count, the model's error, Z(N) and the lines' whole demand carried, then
    the `top` lines by carried or traced demand, carried beside traced."""
    lines = [f"stations from the trace at {result['traced_at']} cores; fitted on {result['fitted']} cores"]
    for p in result["points"]:
        x, mx = p["measured_x"], p["model_x"]
        err = f"model {mx / x - 1:+.1%} against the measured throughput" if x == x else "no measured point"
        carried = sum(ln["carried"][3] for ln in p["lines"] if ln["carried"])
        s = (f"{p['cores']} cores: {err}; carried {p['cores'] / mx:,.0f} cycles an operation: Z {p['think']:,.0f} "
             f"outside the lines, {carried:,.0f} of line demand")
        if p["traced"]:
            s += f"; traced there: {sum(ln['traced'][3] for ln in p['lines'] if ln['traced']):,.0f} of line demand"
        lines.append(s)
        ranked = sorted(p["lines"], key=lambda ln: -max(ln["carried"][3] if ln["carried"] else 0.0,
                                                       ln["traced"][3] if ln["traced"] else 0.0))
        for ln in ranked[:top]:
            parts = []
            for side in ("carried", "traced"):
                if ln[side]:
                    k, v, s_, d = ln[side]
                    busy = ln[f"{side}_busy"]
                    parts.append(f"{side} " + (f"{k} lines, " if k > 1 else "") + f"{v:.4f}/op x {s_:,.0f} = {d:,.1f} cycles"
                                 + (f" (busy {busy:.1%}" + (" each)" if k > 1 else ")") if busy == busy else ""))
                elif side == "traced" and p["traced"]:
                    parts.append("not in the trace here")
                elif side == "carried":
                    parts.append("not carried (moved only here)")
            lines.append(f"  {ln['line']} [{ln['kind']}]: " + "; ".join(parts))
    return "\n".join(lines) + "\n"


def line(result: dict, top: int = 2) -> str:
    """The verdict's line: at each count a trace was made past the fit, the lines' whole demand carried
    and traced, and the `top` lines by traced demand, carried/traced (visits per operation, cycles a
    visit); a role the fitted trace lacks is named as not carried; '' without such a trace."""
    parts = []
    for p in (p for p in result["points"] if p["traced"]):
        carried = sum(ln["carried"][3] for ln in p["lines"] if ln["carried"])
        traced = sum(ln["traced"][3] for ln in p["lines"] if ln["traced"])
        shown = sorted((ln for ln in p["lines"] if ln["traced"]), key=lambda ln: -ln["traced"][3])[:top]
        parts.append(f"at {p['cores']}: all lines {carried:,.0f}/{traced:,.0f} cycles an operation; " + "; ".join(
            f"{ln['line']} " + (f"{ln['carried'][1]:.3g}/{ln['traced'][1]:.3g} per op x "
                                f"{ln['carried'][2]:,.0f}/{ln['traced'][2]:,.0f}" if ln["carried"] else
                                f"not carried ({ln['traced'][1]:.3g} per op x {ln['traced'][2]:,.0f} traced)")
            for ln in shown))
    return ("  hot lines where traced past the fit (carried/traced, never an input) " + "; ".join(parts)) if parts else ""
