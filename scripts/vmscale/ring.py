"""A ring of threads that hand items on (`pipeline`): each thread's time per item, busy and waiting,
from a hot-line trace (`--gem5 hotlines=1`).

Thread c puts the page it made in box[c+1] and takes the next from box[c] (guest-workloads/pipeline.c);
the boxes are consecutive lines, one each, so the trace shows every put and every take as a store miss
on a box.  Between c's put and its take c only spins on box[c], waiting for c-1 (`wait_in`); between its
first read of box[c+1] after making a page and its put, it spins for c+1 to empty it (`wait_out`).  The
rest of an iteration is work (`busy`).  A box holds one page, so in steady state every thread goes at
the pace of the slowest: the ring's period is that thread's busy time, and who is slowest is decided by
what its own pages cost it -- the misses on its neighbour's page, across a socket link or not.

Pure functions of the trace's events; `vmscale ring` reads a run directory.
"""

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass

from vmscale_gem5 import hotlines as trace
from vmscale_model import ring as model_ring

LINE = 64


@dataclass
class Miss:
    start: int
    end: int
    request: str


def misses(events, begin: int, end: int) -> dict:
    """(core, line) -> [Miss] for the misses that began in [begin, end], in order."""
    open_, out = {}, defaultdict(list)
    for ev in events:
        request = trace.REQUESTS.get((ev.event, ev.next))
        if request and ev.state in trace.STABLE:
            open_[(ev.core, ev.line)] = (ev.tick, request)
        elif ev.state not in trace.STABLE and ev.next in trace.STABLE and (ev.core, ev.line) in open_:
            tick, request = open_.pop((ev.core, ev.line))
            if begin <= tick <= end:
                out[(ev.core, ev.line)].append(Miss(tick, ev.tick, request))
    return out


def find_boxes(transfers, n: int):
    """The first box's line: box[c] moves between c-1 and c only, and box[c] = box[0] + 64 c.  Each
    line that moved most between some c-1 and c votes for its box[0]; None if no base has n votes."""
    if n < 2:
        return None
    pairs = defaultdict(Counter)
    for t in transfers:
        if t.requester >= 0:
            pairs[t.line][frozenset((t.owner, t.requester))] += 1
    votes = Counter()
    for line, counts in pairs.items():
        pair, _ = counts.most_common(1)[0]
        if len(pair) != 2:
            continue
        a, b = sorted(pair)
        c = b if (b - a) == 1 else (a if (a, b) == (0, n - 1) else None)    # c is the later of the two
        if c is not None:
            votes[line - LINE * c] += 1
    if not votes:
        return None
    base, count = votes.most_common(1)[0]
    return base if count == n else None


def first_put(miss_map: dict, base: int, n: int, c: int):
    """The tick thread c's first page was in its successor's box (its first put ended), or None."""
    puts = [m for m in miss_map.get((c, base + LINE * ((c + 1) % n)), []) if m.request in ("GETX", "UPGRADE")]
    return puts[0].end if puts else None


def iterations(miss_map: dict, base: int, n: int, c: int) -> list:
    """Thread c's iterations after its first: (period, wait_in, wait_out) in ticks, each from the
    start of one take to the next's."""
    box_in, box_out = base + LINE * c, base + LINE * ((c + 1) % n)
    stores = ("GETX", "UPGRADE")
    takes = [m for m in miss_map.get((c, box_in), []) if m.request in stores]
    puts = [m for m in miss_map.get((c, box_out), []) if m.request in stores]
    reads = [m for m in miss_map.get((c, box_out), []) if m.request == "GETS"]
    out = []
    for put in puts:
        nxt = next((t for t in takes if t.start > put.end), None)
        prev = [t for t in takes if t.end < put.start]
        if nxt is None or not prev:
            continue
        first_read = next((r for r in reads if prev[-1].end < r.start < put.start), None)
        wait_out = put.start - first_read.start if first_read else 0
        out.append((nxt.start - prev[-1].start, nxt.start - put.end, wait_out))
    return out


def thread_rows(events, n: int, begin: int, end: int, period_ticks: int, ops_per_thread: float,
                socket_cores: int = 0) -> list:
    """One row per thread: per item, in cycles, its steady period, waits and busy time, and what its
    misses were: lines taken from its predecessor and its successor (how many, mean latency) and
    the rest.  [] when the trace holds no ring of boxes."""
    roi = [ev for ev in events if begin <= ev.tick <= end]
    moved = trace.transfers(roi)
    base = find_boxes(moved, n)
    if base is None:
        return []
    mm = misses(roi, begin, end)
    per_core = defaultdict(lambda: [0, 0])
    for (core, _line), ms in mm.items():
        per_core[core][0] += len(ms)
        per_core[core][1] += sum(m.end - m.start for m in ms)
    link = defaultdict(lambda: [0, 0])          # (owner, requester) -> [moves, latency ticks]
    for t in moved:
        if t.requester >= 0 and t.latency >= 0:
            link[(t.owner, t.requester)][0] += 1
            link[(t.owner, t.requester)][1] += t.latency
    cyc = 1.0 / period_ticks
    rows = []
    for c in range(n):
        its = iterations(mm, base, n, c)
        if not its:
            continue
        period = statistics.mean(p for p, _, _ in its) * cyc
        wait_in = statistics.mean(w for _, w, _ in its) * cyc
        wait_out = statistics.mean(w for _, _, w in its) * cyc
        pred, succ = link[((c - 1) % n, c)], link[((c + 1) % n, c)]
        total, stall = per_core[c]
        first = first_put(mm, base, n, c)
        taken = sum(v[0] for (o, r), v in link.items() if r == c)
        taken_ticks = sum(v[1] for (o, r), v in link.items() if r == c)
        rows.append({
            "cpu": c, "iterations": len(its), "first_put_cycles": (first - begin) * cyc,
            "busy_iterations": [(p - wi - wo) * cyc for p, wi, wo in its],
            "take_cycles": [(m.start - begin) * cyc for m in mm.get((c, base + LINE * c), [])
                            if m.request in ("GETX", "UPGRADE")],
            "period_cycles": period, "wait_in_cycles": wait_in,
            "wait_out_cycles": wait_out, "busy_cycles": period - wait_in - wait_out,
            "pred_moves_per_op": pred[0] / ops_per_thread,
            "pred_latency_cycles": pred[1] / pred[0] * cyc if pred[0] else float("nan"),
            "pred_cross_socket": bool(socket_cores) and (c - 1) % n // socket_cores != c // socket_cores,
            "succ_moves_per_op": succ[0] / ops_per_thread,
            "succ_latency_cycles": succ[1] / succ[0] * cyc if succ[0] else float("nan"),
            "other_moves_per_op": (taken - pred[0] - succ[0]) / ops_per_thread,
            "misses_per_op": (total - taken) / ops_per_thread,
            "miss_latency_cycles": (stall - taken_ticks) / (total - taken) * cyc if total > taken else float("nan"),
            "stall_cycles_per_op": stall * cyc / ops_per_thread,
        })
    return rows


WARM = 3       # iterations after a thread's first page still warming up (the first is about 2x the rest)


def variation(rows: list) -> dict:
    """The threads' busy times after the warm-up: their spread (cv of busy over its thread's mean),
    the mean correlation between two threads' series, and the period of the ring simulated from
    them drawn independently, beside the slowest thread's mean.  {} when too few iterations."""
    import numpy as np
    n = min((len(r.get("busy_iterations", [])) for r in rows), default=0)
    if n < WARM + 8:
        return {}
    m = np.array([r["busy_iterations"][WARM:n] for r in rows])
    means = m.mean(axis=1)
    res = (m / means[:, None]).ravel()
    corr = np.corrcoef(m) if len(m) > 1 else np.ones((1, 1))
    k = len(corr)
    return {"cv": float(res.std()), "correlation": float((corr.sum() - k) / (k * k - k)) if k > 1 else 0.0,
            "slowest_mean_cycles": float(means.max()),
            "independent_period_cycles": model_ring.simulated_period(means, res)}


PACE_BIN, SPELL = 4, 1.2   # a bin of the ROI is 4 periods; a bin whose period is 1.2x the median is a spell


def pace(rows: list) -> dict:
    """The ring's pace through the ROI, from every thread's takes: the window where every thread runs
    (the last first take to the first last take) in bins of PACE_BIN periods, each bin's period (n
    bins' cycles over its takes), their median (the steady pace) and the spells, bins SPELL times
    slower; lost, the cycles the spells took beyond the steady pace.  A stall of one thread holds up
    all of them, so the spells are what a ring loses to its threads' stalls.  {} without enough bins."""
    takes = [r.get("take_cycles") or [] for r in rows]
    if not rows or not all(takes):
        return {}
    n = len(rows)
    start, end = max(t[0] for t in takes), min(t[-1] for t in takes)
    period = statistics.mean(r["period_cycles"] for r in rows)
    width = PACE_BIN * period
    bins = int((end - start) // width) if width > 0 else 0
    if bins < 4:
        return {}
    counts = [0] * bins
    for t in (x for ts in takes for x in ts if start <= x < start + bins * width):
        counts[int((t - start) // width)] += 1
    periods = [n * width / k if k else float("inf") for k in counts]
    steady = statistics.median(periods)
    slow = [i for i, p in enumerate(periods) if p > SPELL * steady]
    spells = [(start + i * width, periods[i]) for i in slow]
    lost = sum(width - counts[i] * steady / n for i in slow)
    items = sum(counts) / n
    return {"bin_cycles": width, "bins": bins, "steady_period_cycles": steady, "spells": spells,
            "lost_cycles": lost, "lost_per_item_cycles": lost / items if items else float("nan"),
            "window_cycles": bins * width}


def summary(rows: list) -> dict:
    """The ring's pace: the slowest thread's busy time against the mean period, and who it is."""
    if not rows:
        return {}
    slow = max(rows, key=lambda r: r["busy_cycles"])
    return {"threads": len(rows), "period_cycles": statistics.mean(r["period_cycles"] for r in rows),
            "slowest_cpu": slow["cpu"], "slowest_busy_cycles": slow["busy_cycles"],
            "slowest_wait_cycles": slow["wait_in_cycles"] + slow["wait_out_cycles"],
            "mean_busy_cycles": statistics.mean(r["busy_cycles"] for r in rows),
            "last_first_put_cycles": max(r["first_put_cycles"] for r in rows),
            "slowest_pred_cross_socket": slow["pred_cross_socket"]}


COLUMNS = ["case", "kernel_variant", "workload", "cores", "cpu", "iterations", "first_put_cycles", "period_cycles", "wait_in_cycles",
           "wait_out_cycles", "busy_cycles", "pred_moves_per_op", "pred_latency_cycles", "pred_cross_socket",
           "succ_moves_per_op", "succ_latency_cycles", "other_moves_per_op", "misses_per_op",
           "miss_latency_cycles", "stall_cycles_per_op"]


def analyse(run_dir) -> list:
    """Each traced pipeline ROI of a run directory -> its threads' rows (with case, variant, cores)."""
    from vmscale import hotlines as reader
    from vmscale.errors import VmscaleError
    run = reader.read_run(run_dir)
    done = [dict(r, case_id=i) for i, r in enumerate(run["rows"], 1) if r.get("ops") is not None]
    if len(run["rois"]) != len(done):
        raise VmscaleError(f"{run_dir}: {len(run['rois'])} traced ROI(s) for {len(done)} case(s) with results: "
                           "cannot tell which is whose")
    sockets = reader.socket_cores_of(run["manifest"])
    out = []
    for (b, e), evs, row in zip(run["rois"], trace.split_rois(run["events"], run["rois"]), done):
        n = int(row.get("threads") or run["manifest"]["cores"])
        for r in thread_rows(evs, n, b, e, run["period"], row["ops"] / n, sockets):
            out.append({"case": row["case_id"], "kernel_variant": row.get("kernel_variant"),
                        "workload": row.get("workload"), "cores": n, **r})
    if not out:
        raise VmscaleError(f"{run_dir}: no ROI with a ring of mailboxes (a traced `pipeline` run: --gem5 hotlines=1)")
    return out


ITERATION_COLUMNS = ["case", "kernel_variant", "workload", "cores", "cpu", "iteration", "busy_cycles"]


def iteration_rows(rows: list) -> list:
    """One row per thread and iteration (after its first): its busy time, the spread the ring's
    waits come from (vmscale_model.ring simulates the ring from it)."""
    return [{"case": r["case"], "kernel_variant": r["kernel_variant"], "workload": r["workload"],
             "cores": r["cores"], "cpu": r["cpu"], "iteration": i, "busy_cycles": b}
            for r in rows for i, b in enumerate(r.get("busy_iterations", []), 1)]


def to_csv(rows: list, columns: list = COLUMNS) -> str:
    import csv
    import io
    f = io.StringIO()
    w = csv.DictWriter(f, columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return f.getvalue()


def render(rows: list) -> str:
    out = []
    for case in sorted({r["case"] for r in rows}):
        rs = [r for r in rows if r["case"] == case]
        s, v = summary(rs), variation(rs)
        out.append(f"case {case} {rs[0]['kernel_variant']}/{rs[0]['workload']} at {rs[0]['cores']} cores: period "
                   f"{s['period_cycles']:,.0f} cycles an item; the slowest thread cpu{s['slowest_cpu']} busy "
                   f"{s['slowest_busy_cycles']:,.0f} (waiting {s['slowest_wait_cycles']:,.0f}), the mean busy "
                   f"{s['mean_busy_cycles']:,.0f}; its predecessor "
                   f"{'on another socket' if s['slowest_pred_cross_socket'] else 'on its socket'}; the last thread's "
                   f"first page handed on {s['last_first_put_cycles']:,.0f} cycles into the ROI")
        if v:
            out.append(f"  after {WARM} warm-up iterations: busy times spread {100 * v['cv']:.1f}% (cv), two threads' "
                       f"series correlate {v['correlation']:.2f}; a ring of these times drawn independently paces at "
                       f"{v['independent_period_cycles']:,.0f}, the slowest's mean {v['slowest_mean_cycles']:,.0f}")
        p = pace(rs)
        if p:
            where = ", ".join(f"{b / 1e6:.2f}M ({q:,.0f})" for b, q in p["spells"][:8]) or "none"
            out.append(f"  its pace through the ROI, in {p['bins']} bins of {p['bin_cycles']:,.0f} cycles: steady "
                       f"{p['steady_period_cycles']:,.0f} an item (the bins' median); spells {SPELL}x slower at "
                       f"{where}: {p['lost_cycles']:,.0f} cycles lost, {p['lost_per_item_cycles']:,.0f} an item "
                       f"({100 * p['lost_cycles'] / p['window_cycles']:.1f}% of the bins)")
        out.append("   cpu  iters   period     busy  wait_in wait_out   pred moves x lat  succ x lat  misses x lat")
        for r in rs:
            out.append(f"  {r['cpu']:4d} {r['iterations']:6d} {r['period_cycles']:8,.0f} {r['busy_cycles']:8,.0f} "
                       f"{r['wait_in_cycles']:8,.0f} {r['wait_out_cycles']:8,.0f}   {r['pred_moves_per_op']:6.1f} x "
                       f"{r['pred_latency_cycles']:4.0f}{'*' if r['pred_cross_socket'] else ' '} "
                       f"{r['succ_moves_per_op']:5.1f} x {r['succ_latency_cycles']:4.0f} "
                       f"{r['misses_per_op']:6.1f} x {r['miss_latency_cycles']:4.0f}")
    out.append("(cycles per item; * the predecessor on another socket)")
    return "\n".join(out)
