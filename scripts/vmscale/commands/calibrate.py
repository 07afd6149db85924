"""`vmscale calibrate RUN_DIR`: a gem5 ccbench run's line-transfer latencies by class, beside
the published ones, as a table and a socket-by-socket heat map."""

import json
from pathlib import Path


def register(sub):
    c = sub.add_parser("calibrate", help="line-transfer latencies of a gem5 ccbench run vs published ones")
    c.add_argument("run_dir", help="a run directory of `vmscale run --backend gem5 --workload ccbench`")
    c.add_argument("--out", help="where calibration.md/.json and the heat map go (default: the run directory)")
    c.set_defaults(func=main)


def main(args):
    from vmscale import calibration
    from vmscale.backends.gem5 import board_of
    from vmscale.errors import VmscaleError
    from vmscale.fileutil import atomic_write_text
    run = Path(args.run_dir)
    if not (run / "manifest.json").is_file() or not (run / "console.log").is_file():
        raise VmscaleError(f"{run}: not a complete run directory (manifest.json and console.log)")
    manifest = json.loads((run / "manifest.json").read_text())
    if manifest.get("backend") != "gem5":
        raise VmscaleError(f"{run}: a {manifest.get('backend')} run; calibration reads a gem5 board's graph")
    board = board_of(manifest.get("gem5_options") or {})
    cores = int(manifest["cores"])
    pairs = calibration.parse((run / "console.log").read_text(errors="replace"))
    g = board.graph(cores)
    sockets = 1 + max(max(p["writer_socket"], p["reader_socket"]) for p in pairs)
    distance = calibration.socket_distance({(a, b): g.hops(a, b) for a in range(sockets) for b in range(sockets)})
    calibration.classify(pairs, distance)
    rows = calibration.table(pairs)
    out = Path(args.out or run)
    out.mkdir(parents=True, exist_ok=True)
    label = board.label() or "default"
    md = calibration.render(rows, label, cores)
    atomic_write_text(out / "calibration.md", md)
    atomic_write_text(out / "calibration.json", json.dumps({"board": label, "cores": cores, "classes": rows,
                                                            "pairs": pairs, "published": calibration.MCTOP_SOURCE},
                                                           indent=1) + "\n")
    figs = calibration.plot(pairs, distance, str(out / "calibration-heatmap"), label)
    print(md, end="")
    print(f"wrote {out / 'calibration.md'}, {out / 'calibration.json'} and {figs[0]}")
    return 0
