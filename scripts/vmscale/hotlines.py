"""`vmscale hotlines`: the cache lines that moved during each ROI of a gem5 run, by name.

A run made with `--gem5 hotlines=1` keeps m5out/hotlines.events.gz (every L1 line move and
miss of its ROIs, from Ruby's ProtocolTrace: vmscale_gem5.hotlines) and hotlines-rois.txt.
Here each ROI is matched to its case (in order, as the stats dumps are), its moves are
counted per line, and each line is named (vmscale.linenames) from the run's vmlinux and
boot checkpoint.  Pure functions take data; `analyse` does the reading.
"""

import csv
import gzip
import io
import json
import lzma
import math
from pathlib import Path

from vmscale import linenames, physmap
from vmscale.errors import VmscaleError
from vmscale_gem5 import configini, hotlines, stats

COLUMNS = ["case", "kernel_variant", "workload", "cores", "rank", "line", "kind", "name", "moves_per_op", "getx_per_op",
           "gets_per_op", "inv_per_op", "share", "mean_latency_cycles", "handoff_cycles", "top_pair",
           "cross_socket_share", "acquisitions_by_socket", "handoff_one_socket_cycles", "handoff_sockets_cycles",
           "handoff_sockets_share", "inv_writes_per_op", "busy_handoff_cycles", "quiet_share",
           "quiet_cycles_per_op"]


def cross_socket_share(pairs: dict, socket_cores: int):
    """The share of a line's core-to-core moves whose two cores sit on different sockets (cores
    fill the sockets in order, socket_cores each); None without sockets or such moves."""
    if not socket_cores:
        return None
    core = [(o, r, n) for (o, r), n in pairs.items() if o >= 0 and r >= 0]
    total = sum(n for _, _, n in core)
    return sum(n for o, r, n in core if o // socket_cores != r // socket_cores) / total if total else None


def acquisitions_by_socket(pairs: dict, socket_cores: int) -> str:
    """How often each socket's cores took the line from another core, as 'socket:count ...'
    ('' without sockets): under contention the cores near the line's home take it more often."""
    if not socket_cores:
        return ""
    by = {}
    for (o, r), n in pairs.items():
        if o >= 0 and r >= 0:
            by[r // socket_cores] = by.get(r // socket_cores, 0) + n
    return " ".join(f"{k}:{by[k]}" for k in sorted(by))


def uniform_cross_share(cores: int, socket_cores: int):
    """The same share if each move went to any other core alike: what a model that charges every
    transfer the mean distance over all pairs assumes."""
    if not socket_cores or cores < 2:
        return None
    sizes = [min(socket_cores, cores - s) for s in range(0, cores, socket_cores)]
    same = sum(k * (k - 1) for k in sizes)
    return 1 - same / (cores * (cores - 1))


def socket_cores_of(manifest: dict) -> int:
    """Cores per socket of a run's board (0: not the sockets topology)."""
    from vmscale_gem5 import limits
    from vmscale_gem5.board import Board
    try:
        b = Board.make(manifest.get("gem5_options") or {})
    except limits.ConfigError:      # options this version does not know (an older run): no sockets known
        return 0
    return b.socket_cores if b.topology == "sockets" else 0


def by_moves(counts: dict) -> list:
    """A ROI's lines, most moves first (ties by address): the ranks of its table."""
    return sorted(counts.values(), key=lambda c: (-c.moves, c.line))


def table(case, counts: dict, ops: float, namer, period: int, top: int, socket_cores: int = 0, quiet=math.nan,
          quiet_per_op=math.nan) -> list:
    """Rows for one ROI: its `top` lines by moves, then one row for all the others; quiet: the top
    line's quiet share of the ROI (hotlines.quiet_share) and that time per operation of a thread, in its row."""
    total = sum(c.moves for c in counts.values()) or 1
    ranked = by_moves(counts)
    rows = []
    for rank, c in enumerate(ranked[:top], 1):
        kind, name = namer.name(c.line)
        one, spread, spread_share = c.handoff_by_span()
        (owner, req), _ = max(c.pairs.items(), key=lambda kv: kv[1])
        rows.append({"case": case.get("case_id"), "kernel_variant": case.get("kernel_variant"),
                     "workload": case.get("workload"), "cores": case.get("cores"), "rank": rank, "line": f"{c.line:#x}", "kind": kind,
                     "name": name, "moves_per_op": c.moves / ops, "getx_per_op": c.getx / ops,
                     "gets_per_op": c.gets / ops, "inv_per_op": c.inv / ops, "share": c.moves / total,
                     "mean_latency_cycles": c.mean_latency / period if c.latency_n else math.nan,
                     "handoff_cycles": c.handoff / period if c.busy_n else math.nan,
                     "top_pair": f"cpu{owner}->{'L2' if req < 0 else f'cpu{req}'}",
                     "cross_socket_share": cross_socket_share(c.pairs, socket_cores),
                     "acquisitions_by_socket": acquisitions_by_socket(c.pairs, socket_cores),
                     # the queued hand-offs split by where the holder and its waiters sat (one socket, or more)
                     "handoff_one_socket_cycles": one / period, "handoff_sockets_cycles": spread / period,
                     "handoff_sockets_share": spread_share if socket_cores else math.nan,
                     # writes that took the line from its sharers by invalidation, not by a forward
                     "inv_writes_per_op": len(c.inv_writes) / ops,
                     # the gap between forwards while the line was wanted throughout: the station's service
                     "busy_handoff_cycles": c.busy_handoff / period if c.demand_n else math.nan,
                     "quiet_share": quiet if rank == 1 else math.nan,
                     "quiet_cycles_per_op": quiet_per_op if rank == 1 else math.nan})
    rest = ranked[top:]
    if rest:
        moves = sum(c.moves for c in rest)
        rows.append({"case": case.get("case_id"), "kernel_variant": case.get("kernel_variant"),
                     "workload": case.get("workload"), "cores": case.get("cores"), "rank": "", "line": "", "kind": "rest",
                     "name": f"{len(rest)} other lines", "moves_per_op": moves / ops,
                     "getx_per_op": sum(c.getx for c in rest) / ops, "gets_per_op": sum(c.gets for c in rest) / ops,
                     "inv_per_op": sum(c.inv for c in rest) / ops, "share": moves / total,
                     "mean_latency_cycles": math.nan, "handoff_cycles": math.nan, "top_pair": "",
                     "cross_socket_share": None, "acquisitions_by_socket": "", "handoff_one_socket_cycles": math.nan,
                     "handoff_sockets_cycles": math.nan, "handoff_sockets_share": math.nan,
                     "inv_writes_per_op": sum(len(c.inv_writes) for c in rest) / ops, "busy_handoff_cycles": math.nan,
                     "quiet_share": math.nan, "quiet_cycles_per_op": math.nan})
    return rows


def read_run(run_dir: Path) -> dict:
    run_dir = Path(run_dir)
    m5out = run_dir / "m5out"
    # gem5 writes .gz; a record may keep the same events as .xz (a third the size of a long trace)
    events = next((p for p in (m5out / "hotlines.events.gz", m5out / "hotlines.events.xz") if p.is_file()), None)
    parts = sorted(m5out.glob("hotlines.events.xz.part-*"))
    if events is None and parts:        # a record's xz split so that no tracked file is large: read in order
        events = m5out / "hotlines.events.xz"
    if events is None:
        raise VmscaleError(f"{run_dir}: no m5out/hotlines.events.gz",
                           "run with `--gem5 hotlines=1` (a short ROI: tracing slows it several times)")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    rows = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines() if x.strip()]
    rois = hotlines.read_rois((m5out / "hotlines-rois.txt").read_text())
    stats_path = next((p for p in (m5out / "stats.txt", m5out / "stats.txt.gz") if p.is_file()), None)
    dumps = []
    if stats_path:
        text = gzip.open(stats_path, "rt").read() if stats_path.suffix == ".gz" else stats_path.read_text()
        dumps = stats.parse(text)
    ini = m5out / "config.ini"
    cfg = configini.parse(ini.read_text() if ini.is_file() else gzip.open(f"{ini}.gz", "rt").read())
    period = int(cfg["board.clk_domain"]["clock"]) if cfg.has_section("board.clk_domain") else 333
    # the parts read in order as one xz stream (`cat part-*`): a record's trace is a few MB
    source = events if events.is_file() else io.BytesIO(b"".join(p.read_bytes() for p in parts))
    with (lzma.open(source, "rt") if events.suffix == ".xz" else gzip.open(source, "rt")) as f:
        evs = list(hotlines.read_events(f))
    console = next((p for p in (run_dir / "console.log", run_dir / "console.log.gz") if p.is_file()), None)
    maps = {}
    if console:
        with (gzip.open(console, "rt", errors="replace") if console.suffix == ".gz" else
              open(console, errors="replace")) as f:
            maps = physmap.from_console(f.read(), m5out)
    return {"manifest": manifest, "rows": rows, "rois": rois, "dumps": dumps, "period": period, "events": evs,
            "physmaps": maps}


PERCPU_FILE = "percpu.json"     # the per-CPU offsets an analysis read, kept beside its hotlines.csv


def namer_for(manifest: dict, cores: int, vmlinux=None, checkpoint=None, run_dir=None):
    """The run's own vmlinux and checkpoint, unless given (a run directory copied elsewhere); where
    the checkpoint is gone, the per-CPU offsets an earlier analysis kept in the run directory."""
    vmlinux = Path(vmlinux or manifest["kernel"]["vmlinux"])
    if not vmlinux.is_file():
        raise VmscaleError(f"the run's vmlinux {vmlinux} is gone", "give the same kernel's vmlinux with --vmlinux")
    symbols = linenames.symbols_of(vmlinux)
    pmem = Path(checkpoint or manifest.get("checkpoint", "")) / "board.physmem.store0.pmem"
    offsets = []
    kept = Path(run_dir) / PERCPU_FILE if run_dir else None
    if pmem.is_file():
        offsets = linenames.per_cpu_offsets(pmem, linenames.SymbolTable(symbols), cores)
    elif kept is not None and kept.is_file():
        offsets = [int(x, 16) for x in json.loads(kept.read_text())["__per_cpu_offset"]]
    return linenames.Namer(symbols, offsets), offsets


def percpu_json(offsets) -> str:
    """The per-CPU offsets as --percpu and PERCPU_FILE read them."""
    return json.dumps({"__per_cpu_offset": [f"{o:#x}" for o in offsets]}) + "\n"


def namer_from_files(symbols, percpu=None):
    """A Namer from a saved nm listing and (optionally) saved per-CPU offsets."""
    try:
        syms = linenames.parse_nm(Path(symbols).read_text())
        offsets = [int(x, 16) for x in json.loads(Path(percpu).read_text())["__per_cpu_offset"]] if percpu else []
    except (OSError, ValueError, KeyError) as e:
        raise VmscaleError(f"cannot read names from {symbols}{' and ' + str(percpu) if percpu else ''}: {e}") from e
    return linenames.Namer(syms, offsets)


def analyse(run_dir: Path, top: int = 15, vmlinux=None, checkpoint=None, namer=None) -> dict:
    """Every ROI's top lines; namer: a linenames.Namer (default: from the run's kernel and checkpoint)."""
    run = read_run(run_dir)
    # the cases with a result made a ROI each, in case order (as their stats dumps)
    done = [dict(r, case_id=i) for i, r in enumerate(run["rows"], 1) if r.get("ops") is not None]
    if len(run["rois"]) != len(done):
        raise VmscaleError(f"{run_dir}: {len(run['rois'])} traced ROI(s) for {len(done)} case(s) with results: "
                           "cannot tell which is whose")
    offsets = None
    if namer is None:
        namer, offsets = namer_for(run["manifest"], run["manifest"]["cores"], vmlinux, checkpoint, run_dir)
    per_roi = hotlines.split_rois(run["events"], run["rois"])
    maps = run["physmaps"]
    sockets = socket_cores_of(run["manifest"])
    out, checks = [], []
    for i, (row, evs) in enumerate(zip(done, per_roi)):
        moves = hotlines.transfers(evs)
        counts = hotlines.per_line(moves, sockets)
        pm = maps.get(row.get("case_id"))
        # the top line's forwards over the ROI, in 100 slices: when the threads wanted it
        (b, e), top_line = run["rois"][i], (by_moves(counts)[:1] or [None])[0]
        line = hotlines.timeline([t.tick for t in moves if top_line is not None and t.line == top_line.line
                                  and t.kind != "inv" and t.requester >= 0], b, e)
        quiet = hotlines.quiet_share(line)
        # a thread's quiet time per operation: the quiet slices' cycles over the operations each thread did
        threads = int(row.get("threads") or run["manifest"]["cores"])
        out += table(row, counts, row["ops"], namer if pm is None else namer.with_physmap(pm), run["period"], top,
                     sockets, quiet, quiet * (e - b) / run["period"] * threads / row["ops"])
        traced_getx = sum(1 for t in moves if t.kind == "getx")
        stat_getx = stats.summary(run["dumps"][i], row["ops"]).get("l1_fwd_getx") if i < len(run["dumps"]) else None
        checks.append({"case": row.get("case_id"), "kernel_variant": row.get("kernel_variant"),
                       "workload": row.get("workload"), "ops": row["ops"], "traced_fwd_getx": traced_getx,
                       "stats_fwd_getx": stat_getx, "lines": len(counts), "moves": len(moves),
                       "physmap_frames": len(pm.frames) if pm else 0, "physmap_damaged": pm.damaged if pm else 0,
                       "cores_per_socket": sockets, "uniform_cross_share": uniform_cross_share(int(run["manifest"]["cores"]), sockets),
                       "timeline": line, "roi_cycles": (e - b) / run["period"]})
    return {"rows": out, "checks": checks, "percpu_offsets": offsets}


def gather(run_dirs, output: Path):
    """`vmscale collect`'s companion: the hotlines.csv of every run directory that has one (from
    `vmscale hotlines RUN_DIR`) in one file, `output`; none: no file.  Returns it or None."""
    rows = []
    for d in run_dirs:
        path = Path(d) / "hotlines.csv"
        if path.is_file():
            rows += [dict(r, run_dir=str(d)) for r in csv.DictReader(open(path, newline=""))]
    if not rows:  # and no stale file from an earlier collect into the same place
        Path(output).unlink(missing_ok=True)
        return None
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=["run_dir"] + COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    from vmscale.fileutil import atomic_write_text
    atomic_write_text(output, buf.getvalue())
    return Path(output)


def companion(table) -> Path:
    """Where `vmscale collect` puts the hot lines of the runs behind `table`."""
    return Path(table).with_suffix(".hotlines.csv")


def markdown(path, workload: str, top: int = 3) -> str:
    """The report's section for one workload: each case's top lines, from gather()'s file."""
    rows = [r for r in csv.DictReader(open(path, newline="")) if r["workload"] == workload and r["rank"]]
    if not rows:
        return ""
    out = ["Lines that moved between private caches in the ROI (`vmscale hotlines`, from Ruby's ProtocolTrace):", "",
           "| variant | cores | # | line | moves/op | share | mean latency (cycles) |", "|---|---|---|---|---|---|---|"]
    key = lambda r: (r["kernel_variant"], int(r["cores"] or 0), r["run_dir"], int(r["case"]), int(r["rank"]))  # noqa: E731
    for r in sorted(rows, key=key):
        if int(r["rank"]) > top:
            continue
        lat = r["mean_latency_cycles"]
        lat = "-" if lat in ("", "nan") else f"{float(lat):.0f}"
        out.append(f"| {r['kernel_variant']} | {r['cores']} | {r['rank']} | {r['kind']}: `{r['name']}` | "
                   f"{float(r['moves_per_op']):.3g} | {100 * float(r['share']):.0f}% | {lat} |")
    return "\n".join(out)


def to_csv(rows: list) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else "" if v is None else v) for k, v in r.items()})
    return buf.getvalue()


def render(result: dict) -> str:
    lines = []
    for chk in result["checks"]:
        lines.append(f"case {chk['case']} {chk['kernel_variant']}/{chk['workload']}: {chk['moves']} line moves over "
                     f"{chk['lines']} lines, {chk['ops']} ops; forwarded GETX traced {chk['traced_fwd_getx']}, "
                     f"in the stats {chk['stats_fwd_getx']}")
        lines.append(f"  {'#':>3} {'moves/op':>9} {'getx':>7} {'gets':>7} {'inv':>7} {'share':>6} {'lat cyc':>8} {'handoff':>8}  "
                     f"{'pair':<10} {'line':<12} name")
        for r in result["rows"]:
            if r["case"] != chk["case"]:
                continue
            lat = "-" if math.isnan(r["mean_latency_cycles"]) else f"{r['mean_latency_cycles']:.0f}"
            hand = "-" if math.isnan(r["handoff_cycles"]) else f"{r['handoff_cycles']:.0f}"
            lines.append(f"  {r['rank']!s:>3} {r['moves_per_op']:9.3f} {r['getx_per_op']:7.3f} {r['gets_per_op']:7.3f} "
                         f"{r['inv_per_op']:7.3f} {100 * r['share']:5.1f}% {lat:>8} {hand:>8}  {r['top_pair']:<10} "
                         f"{r['line']:<12} {r['kind']}: {r['name']}")
            if r["rank"] == 1 and r.get("cross_socket_share") is not None:
                lines.append(f"      its core-to-core moves across sockets ({chk['cores_per_socket']} cores each): "
                             f"{100 * r['cross_socket_share']:.1f}%; if every other core were as likely the next "
                             f"owner: {100 * chk['uniform_cross_share']:.1f}%; taken by each socket's cores "
                             f"(socket:times): {r['acquisitions_by_socket']}")
                if r["handoff_sockets_share"] == r["handoff_sockets_share"]:
                    one, many = (f"{r[k]:.0f}" if r[k] == r[k] else "-"
                                 for k in ("handoff_one_socket_cycles", "handoff_sockets_cycles"))
                    lines.append(f"      a queued hand-off: {one} cycles while the holder and its waiters sat on one "
                                 f"socket, {many} while they spanned sockets "
                                 f"({100 * r['handoff_sockets_share']:.1f}% of them)")
            if r["rank"] == 1 and r["busy_handoff_cycles"] == r["busy_handoff_cycles"]:
                lines.append(f"      while some core wanted it throughout, {r['busy_handoff_cycles']:.0f} cycles between "
                             f"forwards (the hot-line station's service)")
            if r["rank"] == 1 and r["quiet_share"] == r["quiet_share"]:
                lines.append(f"      its forwards over the ROI: under a tenth of their busiest rate "
                             f"{100 * r['quiet_share']:.0f}% of the time (hotlines-time.png)")
            if r["rank"] == 1 and r["inv_writes_per_op"] > 0:
                lines.append(f"      and {r['inv_writes_per_op']:.3f} writes per op took it from its sharers by "
                             f"invalidation (ownership changes no forward shows)")
    return "\n".join(lines)


def plot_timeline(result: dict, stem: str) -> list:
    """One panel per case: its top line's forwards in each hundredth of the ROI."""
    from vmscale.plots import plt, save_figure
    cases = [c for c in result["checks"] if c.get("timeline")]
    if not cases:
        return []
    fig, axes = plt.subplots(len(cases), 1, figsize=(9, 2.2 * len(cases) + 0.5), squeeze=False)
    for ax, chk in zip(axes[:, 0], cases):
        n, span = len(chk["timeline"]), chk["roi_cycles"] / 1e6
        top = next((r for r in result["rows"] if r["case"] == chk["case"] and r["rank"] == 1), None)
        ax.bar([span * (k + 0.5) / n for k in range(n)], chk["timeline"], width=span / n, color="tab:red")
        ax.set_xlabel("ROI time (million cycles)")
        ax.set_ylabel(f"forwards per {span / n * 1e3:.0f}k cycles", fontsize=8)
        ax.set_title(f"{chk['kernel_variant']} / {chk['workload']}: when the top line moved"
                     + (f" ({top['name'][:40]})" if top else ""), fontsize=9)
    return save_figure(fig, stem)


def plot(result: dict, stem: str, top: int = 10) -> list:
    """One panel per case: its top lines' moves per op, named."""
    from vmscale.plots import plt, save_figure
    cases = result["checks"]
    fig, axes = plt.subplots(len(cases), 1, figsize=(9, 0.45 * top * len(cases) + 1), squeeze=False)
    for ax, chk in zip(axes[:, 0], cases):
        rows = [r for r in result["rows"] if r["case"] == chk["case"] and r["rank"] != ""][:top]
        labels = [f"{r['name'][:48]} ({r['kind']})" for r in rows][::-1]
        ax.barh(range(len(rows)), [r["moves_per_op"] for r in rows][::-1], color="tab:red")
        ax.set_yticks(range(len(rows)), labels, fontsize=7)
        ax.set_xlabel("line moves per op (forwarded GETX + GETS + invalidations)")
        ax.set_title(f"{chk['kernel_variant']} / {chk['workload']}: top lines of the ROI", fontsize=9)
    return save_figure(fig, stem)
