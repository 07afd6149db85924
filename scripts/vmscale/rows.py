"""Result rows: one tidy dict per (run, variant, workload), the same for every backend."""

import platform
import socket
import time


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
    return row
