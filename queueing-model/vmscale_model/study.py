"""A scaling study: every curve of a result table fitted on its small core counts and
judged on the large ones it was not fitted to, by every method of vmscale_model.methods
(the contended-line model fitted freely, the USL fitted to the same points, the model from
gem5's counters, and the hot-line model where a trace of the case is given), each through
the same interface: its errors at the held-out counts, its 5-95% band where it has one, and
the core count where it puts the peak, beside the measured peak.

A curve measured at two ROI sizes (operations per thread) at each core count is judged
three ways over: at each size, and on the slope between them, the steady-state cost per
operation with every cost that does not grow with the ROI taken out (cold caches after a
restore, the threads' start and finish skew, per-thread set-up inside the ROI).

Pure: rows in, dicts out.  The CLI (`vmscale model study`) does the files.
"""

import math

import numpy as np

from vmscale_model import drift
from vmscale_model import fit as fitlib
from vmscale_model import methods as methodslib

# Workload parameters that change what a curve measures without changing its ROI size (fault:
# thread 0's mapping share; pages per MADV_DONTNEED round, i.e. shoot-downs per fault).  Where a
# table holds several values of one, each value is its own curve (here and in vmscale.rows' labels).
SHAPE_PARAMS = ("params.mmap_pct", "params.pages")


def varying_shapes(rows: list) -> dict:
    """workload -> the SHAPE_PARAMS that take more than one value in its rows (a parameter that
    only tells two workloads apart, such as fault's 64 pages and local's 1, names no curve)."""
    by = {}
    for r in rows:
        by.setdefault(r.get("workload"), []).append(r)
    return {w: [k for k in SHAPE_PARAMS if len({r.get(k) for r in rs if r.get(k) not in (None, "")}) > 1]
            for w, rs in by.items()}


def shape_parts(row: dict, shapes: dict) -> list:
    """'name=value' of each shape parameter that varies within the row's workload (varying_shapes)."""
    return [f"{k.split('.', 1)[1]}={row[k]}" for k in shapes.get(row.get("workload"), [])
            if row.get(k) not in (None, "")]


def curves(rows: list) -> dict:
    """(workload, variant, backend, board) -> the successful rows of that curve.

    board is gem5's non-default options ('gem5.board', e.g. 'l2_assoc=64'; '' for the default
    board and for other backends): points from different boards never join one curve.  Where
    the table varies a shape parameter, the variant carries its value ('stock mmap_pct=50')."""
    out = {}
    shapes = varying_shapes(rows)
    for r in rows:
        if str(r.get("ok", "True")) in ("False", "false", "0"):
            continue
        variant = " ".join([r["kernel_variant"]] + shape_parts(r, shapes))
        key = (r["workload"], variant, r.get("backend", ""), r.get("gem5.board") or "")
        out.setdefault(key, []).append(r)
    return out


def roi_size(r):
    """Operations per thread in a row's ROI, or None when the row does not say."""
    threads = _num(r, "threads")
    if not threads > 0:
        threads = _num(r, "cores")
    k = _num(r, "ops") / threads
    return k if math.isfinite(k) and k > 0 else None


def roi_key(r):
    """What makes two rows' ROIs the same: the workload's parameters where the row has them (`global`'s
    operations per thread grow with the cores by design: its threads each fault a region of 16 pages per
    thread), else the operations per thread."""
    params = tuple(sorted((k, v) for k, v in r.items() if k.startswith("params.") and v not in ("", None)))
    return params or roi_size(r)


# Counters whose per-op slope comes from their totals (the miss latency is a mean: taken as is).
SLOPE_COUNTS = {"gem5.l1_fwd_getx_per_op": "gem5.l1_fwd_getx", "gem5.l1_fwd_gets_per_op": "gem5.l1_fwd_gets"}


def slope_rows(rows: list) -> tuple:
    """One row per core count measured at two ROI sizes: the steady-state cost per operation.

    With per-thread cycles C = F + c k at k operations per thread, c = (C2 - C1) / (k2 - k1)
    from the smallest and the largest size (means over repeats), and F = C1 - c k1 is the
    ROI's fixed part, reported as `roi_fixed_cycles`; the row's window throughput becomes
    threads / c, the steady state's.  Returns (rows, notes): core counts
    measured at one size only, or whose slope is not positive, are left out with a note.
    """
    by = {}
    for r in rows:
        by.setdefault(int(float(r["cores"])), {}).setdefault(roi_size(r), []).append(r)
    out, notes = [], []
    for n in sorted(by):
        sizes = sorted(k for k in by[n] if k is not None)
        if len(sizes) < 2:
            notes.append(f"{n} cores: one ROI size only")
            continue
        small, big = by[n][sizes[0]], by[n][sizes[-1]]
        k1, k2 = sizes[0], sizes[-1]
        c1 = np.mean([_num(r, "cycles_per_op") for r in small]) * k1
        c2 = np.mean([_num(r, "cycles_per_op") for r in big]) * k2
        slope = (c2 - c1) / (k2 - k1)
        if not slope > 0:
            notes.append(f"{n} cores: per-thread cycles do not grow with the ROI ({c1:.0f} at {k1:g}, "
                         f"{c2:.0f} at {k2:g} ops)")
            continue
        # the steady state of the window throughput too: otherwise the larger ROI's window (kept
        # from big[0]) is what fit.prepare() would read, and the slope curve would be that ROI's
        threads = _num(big[0], "threads")
        threads = threads if threads > 0 else float(n)
        row = dict(big[0], cycles_per_op=float(slope), roi_fixed_cycles=float(c1 - slope * k1),
                   roi_sizes=f"{k1:g}/{k2:g}", window_cycles_per_op=float(slope),
                   window_ops_per_cycle=float(threads / slope))
        ops1 = np.mean([_num(r, "ops") for r in small])
        ops2 = np.mean([_num(r, "ops") for r in big])
        for per_op, total in SLOPE_COUNTS.items():
            t1 = np.mean([_num(r, total) for r in small])
            t2 = np.mean([_num(r, total) for r in big])
            row[per_op] = float((t2 - t1) / (ops2 - ops1)) if math.isfinite(t1 + t2) else math.nan
        out.append(row)
    return out, notes


def steady_check(r: dict, srows: list) -> None:
    """Each method's error against the steady state (slope rows) at a held-out count of a judged
    one-size curve, kept as r["steady"]: a short ROI's window can sit above or below the steady
    state (fault's: the last round's frees fall after it), and one slope point there says which
    way and by how much, long before the slope has a curve of its own."""
    if "methods" not in r:
        return
    held = {int(c): i for i, c in enumerate(r["held_cores"])}
    at = {}
    for s in srows:
        n = int(float(s["cores"]))
        if n not in held:
            continue
        x = float(s["window_ops_per_cycle"])
        window = r["throughput"][r["cores"].index(n)]
        at[str(n)] = {"throughput": x, "window_error": window / x - 1, "sizes": s.get("roi_sizes", ""),
                 "error": {name: m["predicted"][held[n]] / x - 1 for name, m in r["methods"].items()
                           if m.get("predicted") and np.isfinite(m["predicted"][held[n]])}}
    if at:
        r["steady"] = at


def steady_line(r: dict) -> str:
    """The verdict's line for r["steady"], or ""."""
    parts = []
    for n, a in sorted(r.get("steady", {}).items(), key=lambda kv: int(kv[0])):
        cells = "  ".join(f"{name} {100 * e:+.0f}%" for name, e in a["error"].items())
        parts.append(f"at {n} cores (ops {a['sizes']}): the measured point is {100 * a['window_error']:+.1f}% off it; {cells}")
    return ("  steady state, by the slope between ROI sizes, " + "; ".join(parts)) if parts else ""


def _num(r, key):
    try:
        v = float(r.get(key))
    except (TypeError, ValueError):
        return math.nan
    return v


def band_grid(top: int) -> np.ndarray:
    """Core counts to draw a band over: powers of two and their midpoints up to 4x the data."""
    g = sorted({int(round(2 ** (k / 2))) for k in range(0, 2 * int(math.log2(max(top, 1) * 4)) + 1)})
    return np.array(g)


def errors(pred, measured) -> list:
    return [float(p / m - 1) for p, m in zip(pred, measured)]


def peak(cores, throughput) -> int:
    """The core count of the highest throughput."""
    return int(np.asarray(cores)[int(np.argmax(throughput))])


def judge_method(method, rows, data, train_max: int, train_min: int) -> dict:
    """One method on one curve: fitted on [train_min, train_max] (an anchored method may also
    read the 1-core point), judged at every core count above."""
    known = [r for r in rows if int(float(r["cores"])) <= train_max]
    train = [r for r in known if int(float(r["cores"])) >= train_min]
    out = {"label": method.label}
    try:
        model = method.fit(known if getattr(method, "anchored", False) else train)
    except methodslib.NoModel as e:
        return dict(out, skipped=str(e))
    held = data.cores > train_max
    fitted = (data.cores <= train_max) & (data.cores >= train_min)
    measured = data.throughput[held]
    p = model.predict(data.cores[held])
    out.update(params=model.params, describe=method.describe(model.params), predicted=p.throughput.tolist(),
               error=errors(p.throughput, measured),
               train_error=errors(model.predict(data.cores[fitted]).throughput, data.throughput[fitted]))
    if p.low is not None:
        out["band"] = {"low": p.low.tolist(), "high": p.high.tolist(),
                       "inside": [bool(a <= m <= b) for a, m, b in zip(p.low, measured, p.high)]}
    # The method's curve to 4x the data, for the figure; its peak over the measured core counts.
    grid = band_grid(int(data.cores.max()))
    g = model.predict(grid)
    out["curve"] = {"cores": grid.tolist(), "throughput": g.throughput.tolist()}
    if g.low is not None:
        out["curve"].update(low=g.low.tolist(), high=g.high.tolist())
    out["peak_cores"] = peak(data.cores, own_curve(method, model, data, train_max))
    return out


def own_curve(method, model, data, train_max: int):
    """The throughput a method claims at every measured core count, for its peak: a carried method's
    curve begins at the largest fitted count, where its work outside the queues is anchored (a
    constant that stands for that count's cost, not a smaller one's), so below that count the
    measured points stand and the method says whether the peak lies beyond them."""
    own = model.predict(data.cores).throughput
    if getattr(method, "carried", False):
        own = np.where(data.cores < train_max, data.throughput, own)
    return own


def judge(rows: list, train_max: int, law: str = "crossbar", train_min: int = 1, methods=None) -> dict:
    """One curve: every method fitted on core counts in [train_min, train_max], judged above.

    train_min = 2 leaves out the 1-core point, where the line never moves (no coherence at
    all); anchored methods (the counters, the hot lines) still take Z from that point."""
    data = fitlib.prepare(rows)
    train = (data.cores <= train_max) & (data.cores >= train_min)
    held = data.cores > train_max
    out = {"cores": data.cores.tolist(), "throughput": data.throughput.tolist(),
           "train_cores": data.cores[train].tolist(), "held_cores": data.cores[held].tolist(),
           "peak_cores": peak(data.cores, data.throughput)}
    if not held.any():
        out["skipped"] = f"no core count above {train_max} to check the fit on"
        return out
    out["methods"] = {m.name: judge_method(m, rows, data, train_max, train_min)
                      for m in (methods if methods is not None else methodslib.default(law))}
    return out


def study(rows: list, train_max: int = 16, min_points: int = 5, law: str = "crossbar", train_min: int = 1,
          hotlines=None, boards=None, holds=None, rings=None) -> dict:
    """Every curve with at least min_points core counts, judged; the rest listed as too short.

    A curve with several ROI sizes becomes one curve per size (`.../ops=K`) and the slope
    curve (`.../slope`), so sizes are never averaged together.  hotlines: rows of a
    hotlines.csv; a curve whose case they trace is judged by the hot-line model too.  boards:
    board label -> an object with miss_cycles(n) and transfer_cycles(n), or None; a gem5 curve
    whose board it gives is judged by the fit carried by that board's distances too.  holds: rows
    of holds.csv files (`vmscale threads` of a profiled run); a traced case with holds on a board
    is judged with lock stations too (hotcarried.HotLocksOnBoard).  rings: rows of ring.csv files
    (`vmscale ring` of a traced pipeline); such a case on a board is judged as a ring too (ring.RingOnBoard)."""
    out = {}
    for (w, v, b, board), rs in sorted(curves(rows).items()):
        key = f"{w}/{v}" + (f"/{b}" if b else "") + (f"[{board}]" if board else "")
        methods = methodslib.default(law)
        def mine(rows_):    # a trace, profile or ring whose run names its board is one of that board's curves only
            return [r for r in rows_ or [] if r.get("workload") == w and r.get("kernel_variant") == v
                    and r.get("board", board) == board]
        trace, profiled = mine(hotlines), mine(holds)
        if trace:
            methods.append(methodslib.HotLines(trace))
        board_obj = boards(board) if boards and b == "gem5" else None
        if board_obj is not None:
            from vmscale_model import hotcarried, phases, sockets
            methods.append(sockets.BoardDistances(board_obj, law))
            methods.append(sockets.Distances(board_obj))
            if trace:
                methods.append(hotcarried.HotLinesOnBoard(trace, board_obj))
                if profiled:
                    methods.append(hotcarried.HotLocksOnBoard(trace, profiled, board_obj))
                    if w in phases.REARM:       # a workload whose threads run its rounds' phases in step
                        methods.append(hotcarried.HotPhasesOnBoard(trace, profiled, board_obj, w))
            threads = mine(rings)
            if threads:
                from vmscale_model import ring
                methods.append(ring.RingOnBoard(threads, board_obj, profiled))
        held = profiled if board_obj is not None and trace else []
        sizes = sorted({roi_size(r) for r in rs} - {None})
        if len(sizes) < 2 or len({roi_key(r) for r in rs}) < 2:
            out[key] = _judge_curve(rs, train_max, min_points, methods, train_min, board_obj, trace, held)
            continue
        for k in sizes:
            out[f"{key}/ops={k:g}"] = _judge_curve([r for r in rs if roi_size(r) == k], train_max, min_points,
                                                   methods, train_min, board_obj, trace, held)
        srows, notes = slope_rows(rs)
        for k in sizes:
            steady_check(out[f"{key}/ops={k:g}"], srows)
        out[f"{key}/slope"] = _judge_curve(srows, train_max, min_points, methods, train_min)
        if notes:
            out[f"{key}/slope"]["notes"] = notes
        if srows:
            out[f"{key}/slope"]["roi_fixed_cycles"] = {int(float(r["cores"])): r["roi_fixed_cycles"] for r in srows}
    return out


def study_table(table, train_max: int = 16, min_points: int = 5, law: str = "crossbar", train_min: int = 1,
                workload=None, hotlines=None, boards=None, holds=None, rings=None) -> dict:
    """study() of a table file (missing file, no rows and failed rows handled by load_table)."""
    return study(fitlib.load_table(table, workload), train_max, min_points, law, train_min, hotlines, boards, holds,
                 rings)


def _judge_curve(rows, train_max, min_points, methods, train_min, board=None, trace=None, held=()) -> dict:
    n = len({int(float(r["cores"])) for r in rows})
    if n < min_points:
        return {"skipped": f"{n} core counts (a curve needs {min_points})"}
    out = judge(rows, train_max, train_min=train_min, methods=methods)
    if "skipped" not in out and any(int(float(r["cores"])) > train_max for r in held):
        # the lock stations hotlocks carried, beside the profiles made past the fitted counts
        from vmscale_model import lockcheck     # it imports hotcarried, which imports this module
        try:
            text = lockcheck.line(lockcheck.check(rows, trace, held, board, train_max))
        except (methodslib.NoModel, ValueError):
            text = ""
        if text:
            out["locks_check"] = text
    if "skipped" not in out and board is not None and any(int(r["cores"]) > train_max for r in trace or ()):
        # the hot-line stations hotboard carried, beside a trace made past the fitted counts
        from vmscale_model import linecheck     # it imports hotcarried, which imports this module
        try:
            text = linecheck.line(linecheck.check(rows, trace, board, train_max))
        except (methodslib.NoModel, ValueError):
            text = ""
        if text:
            out["lines_check"] = text
    if "skipped" not in out:
        # the counters' own account of the held-out points, for where every method misses
        ex = drift.explain(rows, train_max, board, trace)
        if ex:
            out["drift"] = {"from": ex["from"], "at": {str(k): v for k, v in ex["at"].items()},
                            "line": drift.line(ex)}
    return out


def _inside(m) -> str:
    inside = m.get("band", {}).get("inside")
    return "" if inside is None else " (in band: " + ", ".join("yes" if i else "no" for i in inside) + ")"


def _pct(errs) -> str:
    return ", ".join(f"{100 * e:+.1f}%" for e in errs)


def best(r: dict):
    """The method whose worst held-out error is smallest: (name, that error), or None."""
    scored = [(max(abs(e) for e in m["error"]), name) for name, m in r.get("methods", {}).items()
              if m.get("error") and all(np.isfinite(m["error"]))]
    if not scored:
        return None
    worst, name = min(scored)
    return name, worst


def table(result: dict) -> str:
    """The README's table: per curve, each method's hold-out errors and parameters."""
    names = []
    for r in result.values():
        for name, m in r.get("methods", {}).items():
            if name not in names:
                names.append(name)
    labels = {name: next(r["methods"][name]["label"] for r in result.values() if name in r.get("methods", {}))
              for name in names}
    lines = ["| curve | core counts (fit / held out) | peak at | " + " | ".join(labels[n] for n in names)
             + " | best (its worst held-out error) |",
             "|---|---|---|" + "---|" * (len(names) + 1)]
    for key, r in result.items():
        if "skipped" in r:
            lines.append(f"| {key} | {r['skipped']} |" + " |" * (len(names) + 2))
            continue
        cols = [key, f"{','.join(map(str, r['train_cores']))} / {','.join(map(str, r['held_cores']))}",
                str(r["peak_cores"])]
        for name in names:
            m = r["methods"].get(name)
            if m is None:
                cols.append("")
            elif "skipped" in m:
                cols.append(f"- ({m['skipped']})")
            else:
                cols.append(f"{_pct(m['error'])}{_inside(m)}; peak {m['peak_cores']}; {m['describe']}")
        b = best(r)
        cols.append(f"{labels[b[0]]} ({100 * b[1]:.1f}%)" if b else "-")
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines) + "\n"


# a curve whose best method misses by more than this gets the counters' account (drift.line)
EXPLAIN_ABOVE = 0.15


def verdict(result: dict) -> str:
    """One line per judged curve: each method's errors at the held-out counts, the best method,
    and whether it beat the USL there; under a curve every method misses by more than
    EXPLAIN_ABOVE (the issue's goal at 8x), where its extra cycles per operation went; and under a
    curve with a lock profile or a hot-line trace made past its fitted counts, its locks or lines carried beside
    it (lockcheck, linecheck)."""
    lines, skipped = [], {}
    for key, r in result.items():
        if "skipped" in r:
            # one line per reason: a table of many ROI sizes has dozens of short curves
            skipped.setdefault(r["skipped"].split(" (")[0] if "core counts" in r["skipped"] else r["skipped"],
                               []).append(key)
            continue
        cells = []
        for name, m in r.get("methods", {}).items():
            if m.get("error") and all(np.isfinite(m["error"])):
                cells.append(f"{name} " + ",".join(f"{100 * e:+.0f}%" for e in m["error"]))
        b = best(r)
        usl = r.get("methods", {}).get("usl", {}).get("error")
        tail = "no method" if not b else f"best {b[0]} ({100 * b[1]:.1f}%)"
        if b and usl and all(np.isfinite(usl)) and b[0] != "usl":
            tail += f", USL {100 * max(abs(e) for e in usl):.1f}%"
        lines.append(f"{key} at {','.join(map(str, r['held_cores']))} cores: {'  '.join(cells)}  -> {tail}")
        if (not b or b[1] > EXPLAIN_ABOVE) and r.get("drift", {}).get("line"):
            lines.append(r["drift"]["line"])
        if r.get("locks_check"):
            lines.append(r["locks_check"])
        if r.get("lines_check"):
            lines.append(r["lines_check"])
        if r.get("steady"):
            lines.append(steady_line(r))
    for why, keys in skipped.items():
        lines.append(f"not judged ({why}): {len(keys)} curve(s), " + ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else ""))
    return "\n".join(lines) + "\n"

