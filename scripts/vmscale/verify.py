"""`vmscale verify`: does a record say what its raw files say, and does a re-run give it again?

For every complete run directory under a record (manifest.json + results.jsonl):
- the rows are worked out again from the raw files the run kept: the guest's figures from
  console.log (its VMSCALE-RESULT lines), gem5's ROI figures from m5out/stats.txt(.gz); every
  figure the record holds must come out the same;
- the manifest is a run's own (the fields `vmscale run` writes), and for gem5 the board gem5
  was given (m5out/gem5.cmd) is the board the manifest and every row name.
`rerun` re-runs one gem5 point of a record with the manifest's command and compares its
simulated cycles, naming what differs (kernel, image, gem5 binary) when they are not equal.
Findings are strings; an empty list is a pass.
"""

import gzip
import json
import math
import os
from concurrent.futures import ProcessPoolExecutor
import shlex
from pathlib import Path

from vmscale import console as consolelib
from vmscale.errors import VmscaleError

RUN_FIELDS = ("backend", "cores", "status", "run_id", "kernel", "workloads", "kernel_variants")
GEM5_FIELDS = ("gem5_version", "gem5_options", "checkpoint")
GUEST_FIGURES = ("ops", "cycles", "cycles_per_op", "errors")
# What the host machine did (gem5's host_inst_rate, host_seconds, ...): not a figure of the
# simulated machine, not what a record claims, and not the same twice.
HOST_FIGURES = ("gem5.host_",)


def run_dirs(root: Path) -> list:
    root = Path(root)
    if not root.exists():
        raise VmscaleError(f"{root}: no such directory")
    found = sorted(p.parent for p in root.rglob("manifest.json") if (p.parent / "results.jsonl").is_file())
    return found


def _same(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def check_rows(run_dir: Path, manifest: dict, rows: list) -> list:
    out = []
    text = _console(run_dir)
    if text is None:
        return [f"{run_dir}: no console.log(.gz) to work the rows out from (keep the console with the record)"]
    parsed = consolelib.parse(text)
    by_case = {(c.variant, c.workload): c for c in parsed.cases.values() if c.result}
    for r in rows:
        case = by_case.get((r.get("kernel_variant"), r.get("workload")))
        if case is None:
            if r.get("ok"):
                out.append(f"{run_dir.name}: row {r['kernel_variant']}/{r['workload']} has no result in console.log")
            continue
        for k in GUEST_FIGURES:
            if k in r and k in case.result and not _same(r[k], case.result[k]):
                out.append(f"{run_dir.name}: {r['kernel_variant']}/{r['workload']} {k} = {r[k]} in the row, "
                           f"{case.result[k]} in console.log")
    if manifest.get("backend") == "gem5":
        out += _check_gem5_rows(run_dir, rows)
    return out


def _check_gem5_rows(run_dir: Path, rows: list) -> list:
    from vmscale.backends import gem5
    kept = [run_dir / "m5out" / "stats.txt", run_dir / "m5out" / "stats.txt.gz"]
    if not any(p.is_file() for p in kept):
        return [f"{run_dir}: no m5out/stats.txt(.gz): the ROI figures cannot be checked "
                "(keep the stats dump with the record)"]
    try:
        again = gem5.restat(run_dir, rows)
    except VmscaleError as e:
        return [str(e)]
    out = []
    for r, a in zip(rows, again):
        for k, v in r.items():
            if k.startswith("gem5.") and k != "gem5.board" and not k.startswith(HOST_FIGURES) and k in a \
                    and not _same(v, a[k]):
                out.append(f"{run_dir.name}: {r['kernel_variant']}/{r['workload']} {k} = {v} in the row, "
                           f"{a[k]} from the stats dump")
    return out


def _console(run_dir: Path):
    if (run_dir / "console.log").is_file():
        return (run_dir / "console.log").read_text(errors="replace")
    if (run_dir / "console.log.gz").is_file():
        return gzip.open(run_dir / "console.log.gz", "rt", errors="replace").read()
    return None


def _cmd_board(cmd: list):
    """The Board gem5 was given, from its command line's vmscale_fs.py arguments."""
    from vmscale_gem5 import board as boardlib
    opts, words = {}, cmd[cmd.index(next(w for w in cmd if w.endswith("vmscale_fs.py"))) + 1:]
    for flag, value in zip(words, words[1:]):
        name = flag[2:].replace("-", "_") if flag.startswith("--") else None
        if name in boardlib.BY_NAME:
            opts[name] = value
    return boardlib.Board.make(opts)


def check_manifest(run_dir: Path, manifest: dict, rows: list) -> list:
    out = [f"{run_dir.name}: manifest lacks {k!r} (not written by `vmscale run`?)"
           for k in RUN_FIELDS if k not in manifest]
    if manifest.get("status") not in (None, "complete"):
        out.append(f"{run_dir.name}: manifest status {manifest.get('status')!r}")
    k = manifest.get("kernel") or {}
    # a native run names the host's running kernel by its release; a built one by its hashes
    for f in ("release",) if k.get("running") else ("vmlinux_sha256", "series_sha256", "patches"):
        if k and f not in k:
            out.append(f"{run_dir.name}: kernel manifest lacks {f!r}")
    if manifest.get("backend") != "gem5":
        return out
    out += [f"{run_dir.name}: manifest lacks {f!r}" for f in GEM5_FIELDS if f not in manifest]
    from vmscale.backends.gem5 import board_of
    try:
        board = board_of(manifest.get("gem5_options") or {})
    except VmscaleError as e:
        return out + [f"{run_dir.name}: {e}"]
    for r in rows:
        if r.get("gem5.board") is not None and r["gem5.board"] != board.label():
            out.append(f"{run_dir.name}: row {r['kernel_variant']}/{r['workload']} names board "
                       f"{r['gem5.board']!r}, the manifest {board.label()!r}")
    cmd_file = run_dir / "m5out" / "gem5.cmd"
    if not cmd_file.is_file():
        out.append(f"{run_dir.name}: no m5out/gem5.cmd: the board gem5 was given cannot be checked")
    else:
        ran = dict(_cmd_board(shlex.split(cmd_file.read_text())).values)
        # the values the run recorded (a preset may have been recalibrated since), else today's preset's
        named = dict(board.values, **(manifest.get("board_values") or {}))
        differ = sorted(k for k in ran if ran[k] != named.get(k))
        if differ:
            out.append(f"{run_dir.name}: gem5 was given another board than the manifest names ({board.label()!r}): "
                       + ", ".join(f"{k} {ran[k]} vs {named.get(k)}" for k in differ))
    return out


def verify(root: Path) -> dict:
    """{run directory or boot table: [findings]} for every run directory and boot-cost table under root."""
    dirs = run_dirs(root)
    boots = {str(t): check_boots(t) for t in sorted(Path(root).rglob("boot-cost.csv"))}
    boots.update({str(t): check_validation(t) for t in sorted(Path(root).rglob("validate.json"))})
    if len(dirs) < 2:
        return dict({str(d): verify_run(d) for d in dirs}, **boots)
    with ProcessPoolExecutor(max_workers=min(len(dirs), os.cpu_count() or 1)) as pool:
        return dict(zip(map(str, dirs), pool.map(verify_run, dirs)), **boots)


def check_boots(table: Path) -> list:
    """A boot-cost table (vmscale_gem5.bootcost) against the boots it keeps beside it (boot-<N>c/:
    the last leg's gem5.log and stats): each row's simulated seconds and instructions, and its
    host seconds where the boot was one leg (the earlier legs' logs are not kept)."""
    import csv
    from vmscale_gem5 import bootcost, stats as statslib
    out = []
    # A boot's logs are kept as boot-<N>c/ beside the table, or anywhere in the record (the
    # table's folder or its parent) under a name of the record's choosing: found by its
    # checkpoint, which gem5.cmd names (`-d .../<checkpoint>.partial/m5out`).
    kept = {}
    for cmd in list(table.parent.rglob("gem5.cmd")) + list(table.parent.parent.glob("*/gem5.cmd")):
        for word in cmd.read_text().split():
            if "/checkpoints/" in word:
                kept.setdefault(word.split("/checkpoints/")[1].split("/")[0].removesuffix(".partial"), cmd.parent)
    for row in csv.DictReader(open(table, newline="")):
        d = table.parent / f"boot-{row['cores']}c"
        d = d if (d / "gem5.log").is_file() else kept.get(row.get("checkpoint"), d)
        log = d / "gem5.log"
        if not log.is_file():
            out.append(f"not checked: the {row['cores']}-core boot ({row.get('checkpoint')}): its gem5.log is not "
                       "kept in the record")
            continue
        ends = bootcost.EXIT.findall(log.read_text(errors="replace"))
        if not ends or ends[-1][0] != "checkpoint":
            out.append(f"{d.name}/gem5.log: no checkpoint exit line")
            continue
        _, tick, secs = ends[-1]
        stats = d / "stats.txt.gz" if (d / "stats.txt.gz").is_file() else d / "stats.txt"
        text = (gzip.open(stats, "rt") if stats.suffix == ".gz" else open(stats)).read() if stats.is_file() else ""
        dumps = statslib.parse(text)
        figures = {"sim_seconds": (float(row["sim_seconds"]), int(tick) / 1e12),
                   "instructions": (float(row["instructions"]), float(dumps[-1].get("simInsts", math.nan)) if dumps
                                    else math.nan)}
        if row.get("legs") == "1":
            figures["host_seconds"] = (float(row["host_seconds"]), round(float(secs), 1))
        for k, (recorded, raw) in figures.items():
            if not math.isclose(recorded, raw, rel_tol=1e-9, abs_tol=1e-9):
                out.append(f"{d.name}: {k} {recorded} in {table.name}, {raw} in its gem5 output")
    return out


def check_validation(table: Path) -> list:
    """A `vmscale validate` comparison against the runs beside it (native-Nc/, sim-Nc/): every
    point worked out again from their rows."""
    from vmscale import validate
    from vmscale.rundir import load_rows
    sides = {"native": [], "sim": []}
    for side in sides:
        for d in sorted(table.parent.glob(f"{side}-*")):
            if (d / "results.jsonl").is_file():
                sides[side] += load_rows(d)
    try:
        again = {(p["workload"], p["kernel_variant"], p["cores"]): p for p in validate.table(sides["native"], sides["sim"])}
    except VmscaleError as e:
        return [f"{table}: {e}"]
    out = []
    recorded = json.loads(table.read_text())["points"]
    if len(recorded) != len(again):
        out.append(f"{table.name}: {len(recorded)} points, the runs beside it give {len(again)}")
    for p in recorded:
        q = again.get((p["workload"], p["kernel_variant"], p["cores"]))
        if q is None:
            out.append(f"{table.name}: {p['workload']}/{p['kernel_variant']} at {p['cores']} has no runs beside it")
            continue
        out += [f"{table.name}: {p['workload']}/{p['kernel_variant']} at {p['cores']}: {k} {p[k]} recorded, "
                f"{q[k]} from the runs" for k in p if not _same(p[k], q.get(k))]
    return out


def failures(findings: list) -> list:
    """The findings that fail a record (the rest say what could not be checked)."""
    return [f for f in findings if not f.startswith("not checked")]


def verify_run(d: Path) -> list:
    manifest = json.loads((d / "manifest.json").read_text())
    rows = [json.loads(line) for line in (d / "results.jsonl").read_text().splitlines() if line]
    return check_manifest(d, manifest, rows) + check_rows(d, manifest, rows)


def rerun_command(run_dir: Path, manifest: dict, out: Path) -> list:
    """The `vmscale run` that re-makes a gem5 record's run into `out` (from its manifest)."""
    cases = manifest.get("cases") or []
    cmd = ["run", "--backend", manifest["backend"], "--cores", str(manifest["cores"]),
           "--workload", ",".join(manifest["workloads"]), "--kernel-variant", ",".join(manifest["kernel_variants"]),
           "--out", str(out)]
    for p in manifest.get("params") or []:
        cmd += ["--param", p]
    for k, v in sorted((manifest.get("gem5_options") or {}).items()):
        cmd += ["--gem5", f"{k}={v}"]
    if cases and len(cases) < len(manifest["workloads"]) * len(manifest["kernel_variants"]):
        for c in cases:
            cmd += ["--case", f"{c['variant']}/{c['workload']}" if isinstance(c, dict) else str(c)]
    return cmd


def compare_rerun(record: dict, rows: list, again: dict, again_rows: list, scripts=(None, None)) -> list:
    """Equal simulated cycles per case, or why not (by hash, and the run scripts' texts: m5 readfile
    puts the script in guest memory before the ROIs, so its text moves the guest's page allocation)."""
    out = []
    ours = {(r["kernel_variant"], r["workload"]): r for r in rows}
    for r in again_rows:
        key = (r["kernel_variant"], r["workload"])
        old = ours.get(key)
        if old is None:
            out.append(f"{key[0]}/{key[1]}: not in the record")
            continue
        for k in ("gem5.sim_ticks", "gem5.roi_cycles"):
            if old.get(k) != r.get(k):
                out.append(f"{key[0]}/{key[1]}: {k} {old.get(k)} recorded, {r.get(k)} re-run")
    if out:
        why = []
        for what, a, b in (("kernel (vmlinux_sha256)", record["kernel"].get("vmlinux_sha256"),
                            again["kernel"].get("vmlinux_sha256")),
                           ("image (sha256)", (record.get("image") or {}).get("sha256"),
                            (again.get("image") or {}).get("sha256")),
                           ("gem5 binary (sha256)", record.get("gem5_binary_sha256"), again.get("gem5_binary_sha256"))):
            if a != b:
                why.append(f"{what}: {str(a)[:12] if a else 'not recorded'} recorded, {str(b)[:12]} here")
        if scripts[0] is not None and scripts[0] != scripts[1]:
            why.append("run script: this vmscale writes another one than the record's (re-make the record)")
        out.append("why: " + ("; ".join(why) if why else "the kernel, image, gem5 binary and run script are the "
                                                          "same: a real difference"))
    return out
