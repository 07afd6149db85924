"""What a curve's own counters say changed between the largest core count a model was fitted on
and each count it is judged at: the numbers a study gives where every method misses.

A blocking CPU model (TimingSimpleCPU) pays each L1 miss in full and retires about one
instruction per cycle, so a held-out point's extra cycles per operation split, roughly, into
  misses x (miss latency there - miss latency at the fitted count)   the distances and queues
  + misses' growth x the fitted latency                              new sharing or evictions
  + instructions' growth                                             spinning, IPIs handled
The rest is what none of these counters holds: mostly a core halted while its thread sleeps (on a
lock's wait queue, or idle while others run), or waiting on an IPI's delivery.  Where the board is known, the latency's growth is
split into what its distances predict (the sockets and hotboard methods' R_bank) and the rest
(queueing in directories and links).  Shoot-down IPIs received per operation are the guest's own
count (vmstat nr_tlb_remote_flush_received), the work a broadcast shoot-down adds per core, less
the shoot-downs of the threads' exit: the harness's vmstat delta spanned them until its threads
waited for the process's exit (session 35), and every record before that at 10 cores and more
sends 2N - 1 of them whatever its rounds (local under per-core RadixVM sends exactly those; fault
2N - 1 plus one per thread and round).
"""
from __future__ import annotations

import math

from vmscale_model import hotstations
from vmscale_model.methods import _num


def roi_ipis(row: dict) -> float:
    """Shoot-down IPIs received in the ROI: the run's count scaled by the share of shoot-downs sent
    that are not the 2N - 1 of the threads' exit (outside the ROI, inside vmstat's delta; a lower
    bound below 10 cores, where some of those find no other CPU to interrupt).  A row whose threads
    waited for the process's exit (threads_end = parked, the harness since session 35) has none."""
    recv, sent = _num(row, "vmstat.nr_tlb_remote_flush_received"), _num(row, "vmstat.nr_tlb_remote_flush")
    n = _num(row, "threads")
    if not math.isfinite(n):
        n = _num(row, "cores")
    if not (math.isfinite(recv) and math.isfinite(sent) and math.isfinite(n)):
        return math.nan
    exits = 0 if row.get("threads_end") == "parked" else 2 * n - 1
    return recv * max(sent - exits, 0) / sent if sent > 0 else 0.0


def point(rows: list) -> dict:
    """The per-operation counters of one core count (the mean over its rows)."""
    def mean(f):
        vals = [v for v in (f(r) for r in rows) if math.isfinite(v)]
        return sum(vals) / len(vals) if vals else math.nan

    def per_op(f):
        return mean(lambda r: f(r) / _num(r, "ops") if _num(r, "ops") > 0 else math.nan)

    cycles = mean(lambda r: _num(r, "window_cycles_per_op"))
    if not math.isfinite(cycles):
        cycles = mean(lambda r: _num(r, "cycles_per_op"))
    return {"cycles": cycles,
            "insts": mean(lambda r: _num(r, "gem5.roi_insts_per_op")),
            "misses": mean(lambda r: _num(r, "gem5.l1d_demand_misses_per_op")),
            "latency": mean(lambda r: _num(r, "gem5.ruby_miss_latency_mean")),
            "llc_evictions": mean(lambda r: _num(r, "gem5.llc_evictions_per_op")),
            "ipis": per_op(roi_ipis)}


def busiest_line(trace: list, train_max: int):
    """The traced line with the most demand (visits x hand-off) at the largest traced count not
    above train_max: (cores, hotstations' station), or None."""
    counts = sorted({int(float(r["cores"])) for r in trace if r.get("cores") and int(float(r["cores"])) <= train_max})
    if not counts:
        return None
    st = hotstations.stations([r for r in trace if r.get("cores") and int(float(r["cores"])) == counts[-1]])
    return (counts[-1], st[0]) if st else None


def explain(rows: list, train_max: int, board=None, trace=None) -> dict:
    """Each held-out count's change from the largest fitted one, in cycles per operation:
    {"from": n0, "at": {n: {"cycles", "latency", "board_latency", "misses", "insts", "rest", "ipis", ...}}}.
    Empty when no fitted or no held-out count has the counters.  With a hot-line trace of the case
    and the board, each count also has 'line': the busiest traced line's visits per operation, the
    service a visit may take at the measured rate (n / (cycles x visits): a line served that long
    is busy all the time) and the hand-off the board's distances carry it to (traced + transfer
    path growth): where the measured rate leaves a visit about what the distances carry, the line
    is the bottleneck; where it leaves more, the line queued less than saturation.  Where the trace
    also has the held-out count, 'traced' is the line's hand-off measured there (judged, not used)."""
    by = {}
    for r in rows:
        by.setdefault(int(float(r["cores"])), []).append(r)
    fitted = [n for n in by if n <= train_max]
    if not fitted:
        return {}
    n0 = max(fitted)
    b = point(by[n0])
    if not all(math.isfinite(b[k]) for k in ("cycles", "misses", "latency")):
        return {}
    out = {"from": n0, "base": b, "at": {}}
    hot = busiest_line(trace, train_max) if trace and board is not None else None
    for n in sorted(k for k in by if k > train_max):
        h = point(by[n])
        if not all(math.isfinite(h[k]) for k in ("cycles", "misses", "latency")):
            continue
        d = {"cycles": h["cycles"] - b["cycles"],
             "latency": h["misses"] * (h["latency"] - b["latency"]),
             "misses": (h["misses"] - b["misses"]) * b["latency"],
             "insts": h["insts"] - b["insts"] if math.isfinite(h["insts"] + b["insts"]) else 0.0,
             "latency_from": b["latency"], "latency_to": h["latency"],
             "ipis_from": b["ipis"], "ipis_to": h["ipis"],
             "llc_from": b["llc_evictions"], "llc_to": h["llc_evictions"]}
        if board is not None:
            grow = board.miss_cycles(n)["l1_bank"] - board.miss_cycles(n0)["l1_bank"]
            d["board_latency"] = h["misses"] * grow
            d["board_per_miss"] = grow
        d["rest"] = d["cycles"] - d["latency"] - d["misses"] - d["insts"]
        if hot and h["cycles"] > 0:
            n_t, st = hot
            d["line"] = {"name": st["name"], "visits": st["visits"], "traced_at": n_t,
                         "allowed": h["cycles"] / (n * st["visits"]),
                         "carried": st["service"] + st["changes"] * max(0.0, board.transfer_cycles(n)
                                                                             - board.transfer_cycles(n_t))}
            # a trace of the same case at this held-out count (a check, never an input): its hand-off there
            there = [x for x in hotstations.stations([r for r in trace if r.get("cores")
                                                      and int(float(r["cores"])) == n]) if x["name"] == st["name"]]
            if there:
                d["line"]["traced"] = there[0]["service"]
        out["at"][n] = d
    return out


def _k(x: float) -> str:
    return f"{x / 1000:+.1f}k" if abs(x) >= 1000 else f"{x:+.0f}"


def line(ex: dict) -> str:
    """One readable line per held-out count: where the extra cycles per operation went."""
    if not ex or not ex.get("at"):
        return ""
    parts = []
    for n, d in ex["at"].items():
        lat = (f"miss latency {d['latency_from']:.0f}->{d['latency_to']:.0f} {_k(d['latency'])}")
        if "board_latency" in d:
            lat += f" (board distances {_k(d['board_latency'])})"
        s = (f"at {n}: {_k(d['cycles'])} cycles/op = {lat}, misses {_k(d['misses'])}, "
             f"instructions {_k(d['insts'])}, unaccounted {_k(d['rest'])}")
        if math.isfinite(d["ipis_to"]) and d["ipis_to"] > 0:
            s += f"; shoot-down IPIs received in the ROI {d['ipis_from']:.2f}->{d['ipis_to']:.2f}/op"
        if math.isfinite(d["llc_to"]) and d["llc_to"] >= 1:
            s += f"; LLC evictions {d['llc_from']:.1f}->{d['llc_to']:.1f}/op"
        if "line" in d:
            ln = d["line"]
            s += (f"; busiest traced line ({ln['name'].split(' ')[0]}, {ln['visits']:.2f} visits/op): the measured rate "
                  f"leaves {ln['allowed']:.0f} cycles a visit, the distances carry {ln['carried']:.0f} "
                  f"(utilisation {ln['carried'] / ln['allowed']:.2f} at that service)")
            if "traced" in ln:
                s += f", a trace at {n} cores measured {ln['traced']:.0f}"
        parts.append(s)
    return f"  why (from {ex['from']} cores) " + "; ".join(parts)
