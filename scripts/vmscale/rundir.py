"""Run directories: written under <name>.partial, renamed when complete.

A complete run directory holds manifest.json (status "complete"), results.jsonl and
results.csv (one tidy row per case) and the logs.  A run that dies leaves
<name>.partial (or <name>.failed with error.txt), never something that looks complete.
"""

import csv
import io
import json
import os
import shutil
import time
from pathlib import Path

from vmscale import paths
from vmscale.errors import VmscaleError
from vmscale.fileutil import atomic_write_text

# Columns first in every table, in this order; the rest follow sorted.
LEAD_COLUMNS = ["run_id", "backend", "kernel_variant", "workload", "cores", "threads", "ok",
                "failure", "ops", "ops_unit", "cycles", "cycles_per_op", "ops_per_mcycle", "window_ops_per_cycle",
                "window_cycles_per_op", "errors"]


def default_name(backend: str, cores: int, workloads: list) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{backend}-{cores}c-{'+'.join(workloads)}"


def is_complete(path) -> bool:
    """A run directory is complete once its manifest.json exists (written last, by rename)."""
    return (Path(path) / "manifest.json").is_file()


class RunDir:
    def __init__(self, out=None, name=None):
        final = Path(out) if out else paths.runs_dir() / name
        self.final = final.resolve()
        if is_complete(self.final):
            raise VmscaleError(f"run directory {self.final} already holds a complete run",
                               "choose another --out or remove it")
        self.path = self.final.with_name(self.final.name + ".partial")
        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(parents=True)
        self.run_id = self.final.name

    def file(self, name) -> Path:
        return self.path / name

    def complete(self, manifest: dict, rows: list):
        manifest = dict(manifest, status="complete", run_id=self.run_id,
                        finished_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        atomic_write_text(self.file("results.jsonl"), "".join(json.dumps(r) + "\n" for r in rows))
        atomic_write_text(self.file("results.csv"), rows_to_csv(rows))
        atomic_write_text(self.file("manifest.json"), json.dumps(manifest, indent=2) + "\n")
        if self.final.exists():
            shutil.rmtree(self.final)
        os.replace(self.path, self.final)
        return self.final

    def fail(self, manifest: dict, error: str):
        atomic_write_text(self.file("error.txt"), error + "\n")
        atomic_write_text(self.file("manifest.json.failed"),
                          json.dumps(dict(manifest, status="failed", error=error), indent=2) + "\n")
        failed = self.final.with_name(self.final.name + ".failed")
        shutil.rmtree(failed, ignore_errors=True)
        os.replace(self.path, failed)
        return failed


def flatten_row(row: dict) -> dict:
    """Nested dicts (params, vmstat, sysctls) become prefixed columns; lists become JSON."""
    flat = {}
    for key, value in row.items():
        if isinstance(value, dict):
            for k, v in value.items():
                flat[f"{key}.{k}"] = v
        elif isinstance(value, list):
            flat[key] = json.dumps(value)
        else:
            flat[key] = value
    return flat


def rows_to_csv(rows: list) -> str:
    flat = [flatten_row(r) for r in rows]
    keys = set().union(*(f.keys() for f in flat)) if flat else set()
    columns = [c for c in LEAD_COLUMNS if c in keys] + sorted(keys - set(LEAD_COLUMNS))
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for f in flat:
        writer.writerow(f)
    return buf.getvalue()


def load_rows(run_dir: Path, restat: bool = False) -> list:
    """A complete run's rows; `restat`: a gem5 run's ROI figures worked out again from the
    stats it kept, by the current parser."""
    run_dir = Path(run_dir)
    manifest = run_dir / "manifest.json"
    if not manifest.is_file():
        raise VmscaleError(f"{run_dir} is not a complete run directory (no manifest.json)")
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line]
    m = json.loads(manifest.read_text())
    if m.get("backend") == "gem5":
        # The board a row ran on, from the options in its manifest, by today's rule (runs made
        # before rows named their board, or before an observer such as hotlines=1 was left out).
        from vmscale.backends.gem5 import board_label
        for r in rows:
            if "gem5_options" in m or "gem5.board" not in r:
                r["gem5.board"] = board_label(m.get("gem5_options") or {})
        if restat:
            from vmscale.backends.gem5 import restat as gem5_restat
            rows = gem5_restat(run_dir, rows)
    return rows
