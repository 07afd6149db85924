"""The lock stations a model carried past its fitted core counts, beside a profile made there.

`hotlocks` (hotcarried.Carried) carries each lock's takings per operation v, hold h and hand-off
to a waiter g from the profiles at or below the fitted counts to N cores along the board's
transfer path.  A profile made at a held-out N (holds.csv rows at N, never an input) measures the
same three, so a miss at N can be read as which of them the carrying got wrong.  Beside each, the
lock's share of the machine's time held, X v h, and busy with hold and hand-off, X v (h + g), at
the curve's measured window throughput X(N) (operations per cycle of the machine): a carried
station over 1 there could not have run at the measured rate, and one the profile shows below the
carried share is where the model queues too long.

Pure: rows in, rows out (the CLI reads the files).
"""

from vmscale_model import hotcarried, methods


def measured(hold_rows: list, n: int, transfer) -> dict:
    """{lock: (takings per operation, mean hold, mean hand-off)} of the profile at n cores: the
    same aggregation by lock as the model's (hotcarried.locks, given that count alone)."""
    at_n = [r for r in hold_rows if int(float(r["cores"])) == n and r.get("kind") != "ipi"]
    return {k["name"]: (k["visits_at_top"], k["service"], k["handoff"]) for k in hotcarried.locks(at_n, n, transfer)}


def check(rows: list, trace_rows: list, hold_rows: list, board, train_max: int = 20, top: int = 0) -> list:
    """One row per held-out core count (a measured point above train_max, or a profile there) and
    lock of the fitted model: {cores, lock, measured_x, model_x, carried: (v, h, g),
    profiled: (v, h, g) or None, carried_held, carried_busy, profiled_held, profiled_busy}.
    rows: one curve's rows (window_ops_per_cycle); trace_rows and hold_rows: its case's
    hotlines.csv and holds.csv rows; board: its vmscale_gem5 Board."""
    fitted = [r for r in rows if int(float(r["cores"])) <= train_max]
    c = hotcarried.Carried(fitted, trace_rows, board.miss_cycles, board.transfer_cycles, top,
                           [r for r in hold_rows if int(float(r["cores"])) <= train_max])
    if not c.locks:
        raise methods.NoModel(f"no lock holds profiled at or below {train_max} cores")
    hotcarried.anchor(c)       # as the study's hotlocks
    x_meas = {int(float(r["cores"])): float(r["window_ops_per_cycle"]) for r in rows
              if int(float(r["cores"])) > train_max and methods._num(r, "window_ops_per_cycle") > 0}
    profiled_at = {int(float(r["cores"])) for r in hold_rows if int(float(r["cores"])) > train_max}
    out = []
    for n in sorted(set(x_meas) | profiled_at):
        x = x_meas.get(n, float("nan"))
        prof = measured(hold_rows, n, board.transfer_cycles) if n in profiled_at else {}
        model_x = float(c.throughput([n])[0])
        for k in c.locks:
            # the hand-off with every other core waiting, as the profiles that read its growth were
            v, h, g = k["visits"], c.hold(k, n), c.handoff(k, n) + k.get("per_waiter", 0.0) * (n - 1)
            p = prof.get(k["name"])
            out.append({"cores": n, "lock": k["name"], "measured_x": x, "model_x": model_x,
                        "carried": (v, h, g), "profiled": p,
                        "carried_held": x * v * h, "carried_busy": x * v * (h + g),
                        "profiled_held": x * p[0] * p[1] if p else float("nan"),
                        "profiled_busy": x * p[0] * (p[1] + p[2]) if p else float("nan")})
    return out


def render(check_rows: list, min_share: float = 0.01) -> str:
    """The check as text: per held-out count, the model's error, then each lock busy at least
    min_share of the time (carried or profiled), carried beside profiled."""
    lines = []
    for n in sorted({r["cores"] for r in check_rows}):
        at = [r for r in check_rows if r["cores"] == n]
        x, mx = at[0]["measured_x"], at[0]["model_x"]
        err = f"model {mx / x - 1:+.1%} against the measured throughput" if x == x else "no measured point"
        lines.append(f"{n} cores: {err}")
        for r in at:
            if not max(r["carried_busy"], r["profiled_busy"] if r["profiled"] else 0.0) >= min_share:
                continue
            v, h, g = r["carried"]
            s = (f"  {r['lock']}: carried {v:.4f}/op x (hold {h:,.0f} + hand-off {g:,.0f}) cycles, "
                 f"held {r['carried_held']:.1%}, busy {r['carried_busy']:.1%} at the measured rate")
            if r["profiled"]:
                pv, ph, pg = r["profiled"]
                s += (f"; profiled {pv:.4f}/op x ({ph:,.0f} + {pg:,.0f}), held {r['profiled_held']:.1%}, "
                      f"busy {r['profiled_busy']:.1%}")
            lines.append(s)
    return "\n".join(lines) + "\n"


def line(check_rows: list, top: int = 2) -> str:
    """The verdict's line: at each count a profile measured, the busiest locks' carried and profiled
    (takings per operation, hold, hand-off) and busy shares at the measured rate; '' without one."""
    def demand(r):      # busy at the measured rate; without a point there, the carried cycles per operation
        b = max(r["carried_busy"], r["profiled_busy"])
        return b if b == b else r["carried"][0] * (r["carried"][1] + r["carried"][2])

    def busy(r):
        if r["carried_busy"] != r["carried_busy"]:
            return "(no point of this curve there)"
        return f"busy {r['carried_busy']:.0%} carried, {r['profiled_busy']:.0%} profiled"

    parts = []
    for n in sorted({r["cores"] for r in check_rows if r["profiled"]}):
        at = sorted((r for r in check_rows if r["cores"] == n and r["profiled"]), key=lambda r: -demand(r))[:top]
        parts.append(f"at {n}: " + "; ".join(
            f"{r['lock']} {busy(r)} "
            f"({r['carried'][0]:.3g}/{r['profiled'][0]:.3g} per op, hold {r['carried'][1]:,.0f}/{r['profiled'][1]:,.0f}, "
            f"hand-off {r['carried'][2]:,.0f}/{r['profiled'][2]:,.0f})" for r in at))
    return ("  locks where profiled past the fit (carried/profiled, never an input) " + "; ".join(parts)) if parts else ""
