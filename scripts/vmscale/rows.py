"""Result rows: one tidy dict per (run, variant, workload), the same for every backend."""

import platform
import socket
import time

from vmscale_model.fit import row_ops_per_thread


def make_row(*, run_id, backend, variant, workload, cores, result, failure, extra=None) -> dict:
    result = dict(result or {})
    row = {
        "run_id": run_id,
        "backend": backend,
        "kernel_variant": variant,
        "workload": workload,
        "cores": cores,
        "threads": result.pop("threads", None),
        "ok": not failure,
        "failure": failure,
        "host": socket.gethostname(),
        "host_machine": platform.machine(),
        "date": time.strftime("%Y-%m-%d"),
    }
    result.pop("workload", None)
    result.pop("ok", None)
    row.update(result)
    row.update(extra or {})
    row.update(window_figures(row))
    return row


def window_figures(row: dict) -> dict:
    """The window throughput (harness.c: ops all threads completed while all ran, per cycle of
    the machine) as a cost per op per thread, comparable with cycles_per_op, which is the mean
    over threads of each one's own cycles per op (`thread_mean_cycles_per_op`, its clear name)."""
    out = {}
    if row.get("cycles_per_op") is not None:
        out["thread_mean_cycles_per_op"] = row["cycles_per_op"]
    rate, threads = row.get("window_ops_per_cycle"), row.get("threads")
    if rate and threads:
        out["window_cycles_per_op"] = round(float(threads) / float(rate), 1)
    return out


def cost_metric(rows: list) -> tuple:
    """The cost per operation a figure of these rows plots: (column, its name for labels).
    The window figure (all threads running: the project's throughput) when every row has it,
    else the thread mean for all, so that one figure never mixes the two."""
    if rows and all(r.get("window_cycles_per_op") not in (None, "") for r in rows):
        return "window_cycles_per_op", "window: all threads running"
    return "cycles_per_op", "thread mean"


# a row's ROI size, one definition for the model's filters and the reports
ops_per_thread = row_ops_per_thread


def curve_labels(rows: list, with_backend: bool = True) -> list:
    """A legend label per row, naming what makes a curve: the variant, the backend, gem5's
    non-default board options, a shape parameter's value where a table holds several
    (vmscale_model.study.SHAPE_PARAMS), and the ops
    per thread when one curve was measured at several ROI sizes, so that plots never average
    points from different boards, workload shapes or ROI sizes."""
    from vmscale_model.study import shape_parts, varying_shapes
    shapes = varying_shapes(rows)

    def base(r):
        parts = [r["backend"]] if with_backend else []
        if r.get("gem5.board"):
            parts.append(r["gem5.board"])
        parts += shape_parts(r, shapes)
        return r["kernel_variant"] + (f" ({', '.join(parts)})" if parts else "")
    sizes = {}
    for r in rows:
        sizes.setdefault((r["workload"], base(r)), set()).add(ops_per_thread(r))
    out = []
    for r in rows:
        label = base(r)
        if len(sizes[(r["workload"], label)]) > 1 and ops_per_thread(r) is not None:
            label += f" [{ops_per_thread(r):g} ops/thread]"
        out.append(label)
    return out
