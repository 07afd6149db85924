"""`vmscale model ...`: fit, predict, simulate and reproduce Piggin Figure 3.1."""

import argparse
import json
import sys
import time
from pathlib import Path

from vmscale_model import des, fit as fitlib, interconnect, network, solvers
from vmscale_model.network import LAWS


def _fit(a):
    from vmscale_model import outputs
    tf = fitlib.fit_table(a.table, a.workload, a.variant, a.backend, a.law, a.per_hop, a.hop_fraction, a.holdout,
                          a.board, a.ops_per_thread)
    data, summary, hold = tf.data, tf.summary, tf.hold
    if "skipped" in summary.get("holdout", {}):
        print(f"hold-out skipped: {summary['holdout']['skipped']}", file=sys.stderr)
    out = Path(a.out or Path(a.table).with_suffix("").as_posix() + "-model")
    title = f"{a.workload or 'all workloads'} / {a.variant or 'all variants'}: contended-line model"
    figs = outputs.write_fit(tf, out, title, a.max_cores, a.note)
    s = tf.fit.summary()
    print(f"fit ({s['points']} core counts, law {s['law']}): think {s['think']:.4g} ± {s.get('think_stderr', float('nan')):.2g}, "
          f"service {s['service']:.4g} ± {s.get('service_stderr', float('nan')):.2g} per op, "
          f"R² {s['r2']:.4f}, ceiling {s['ceiling']:.4g} {data.unit}")
    if s["r2"] < 0.5:
        falling = data.throughput[-1] < data.throughput.max()
        print(f"warning: poor fit (R² {s['r2']:.2f}): these points are not a contended-line curve"
              + (" (throughput falls as cores grow: e.g. QEMU vCPUs outnumbering host cores)" if falling else "")
              + (f"; USL σ={summary['usl']['sigma']:.3g} κ={summary['usl']['kappa']:.3g}" if "usl" in summary else ""),
              file=sys.stderr)
    if hold:
        errs = ", ".join(f"{n}c {100 * e:+.1f}%" for n, e in zip(hold["cores"], hold["relative_error"]))
        print(f"hold-out: fitted without the {a.holdout} largest core count(s); prediction error {errs}")
    for law in LAWS:
        p = summary["predictions"][law]
        if p:
            print(f"  {law:8} at {p[-1]['cores']} cores: {p[-1]['throughput']:.4g} [{p[-1]['low']:.4g}, {p[-1]['high']:.4g}]")
    print(f"wrote {out / 'fit.json'} and {', '.join(figs)}")
    return 0


def _rows_with_board(path, needs: set, what: str) -> list:
    """A CSV's rows, each with the board its run directory's manifest names (`board`, when the
    manifest is beside it): the study matches them to curves of that board only."""
    import csv
    try:
        rows = list(csv.DictReader(open(path, newline="")))
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from e
    if rows and not needs <= set(rows[0]):
        raise ValueError(f"{path}: not a {what}")
    manifest = Path(path).parent / "manifest.json"
    if manifest.is_file():
        board = json.loads(manifest.read_text()).get("board", "")
        rows = [dict(r, board=board) for r in rows]
    return rows


def hotline_rows(path) -> list:
    """A hotlines.csv's rows (`vmscale hotlines RUN_DIR`), each with its run's board."""
    return _rows_with_board(path, {"workload", "kernel_variant", "cores", "rank"},
                            "hotlines.csv (`vmscale hotlines RUN_DIR` writes one)")


def hold_rows(path) -> list:
    """A holds.csv's rows (`vmscale threads` of a profiled run), each with its run's board."""
    return _rows_with_board(path, {"workload", "kernel_variant", "cores", "site", "hold_cycles", "holds_per_op"},
                            "holds.csv (`vmscale threads RUN_DIR` of a run with --gem5 roi_profile=N)")


def ring_rows(path) -> list:
    """A ring.csv's rows (`vmscale ring RUN_DIR`: a traced pipeline's threads), each with its run's board."""
    return _rows_with_board(path, {"workload", "kernel_variant", "cores", "cpu", "busy_cycles", "period_cycles"},
                            "ring.csv (`vmscale ring RUN_DIR` writes one)")


def _study(a):
    from vmscale_gem5.board import with_sockets
    from vmscale_model import outputs, study
    hot = [r for path in a.hotlines for r in hotline_rows(path)] if a.hotlines else None
    held = [r for path in a.holds for r in hold_rows(path)] if a.holds else None
    rings = [r for path in a.rings for r in ring_rows(path)] if a.rings else None
    result = study.study_table(a.table, a.train_max, a.min_points, train_min=a.train_min, workload=a.workload,
                               hotlines=hot, boards=with_sockets, holds=held, rings=rings)
    out = Path(a.out or Path(a.table).with_suffix("").as_posix() + "-study")
    md, figs = outputs.write_study(result, out, str(a.table), a.train_min, a.train_max, a.note)
    print(md, end="")
    print(f"wrote {out / 'study.json'}, {out / 'study.md'} and {len(figs) // 2} figure(s)")
    return 0


def _interconnect(a):
    from vmscale_gem5.board import Board
    from vmscale_model import outputs, study
    by = study.curves(fitlib.load_table(a.table, a.workload))
    boards = {}   # (variant, board) -> rows
    for (_, v, _, board), rs in by.items():
        boards.setdefault((v, board), []).extend(rs)
    variants = sorted(v for v, b in boards if b == a.source and (v, a.to) in boards)
    if a.variant:
        variants = [v for v in variants if v in a.variant.split(",")]
    if not variants:
        raise fitlib.FitError(f"no {a.workload} curve on both boards {a.source!r} and {a.to!r} "
                              f"(boards in the table: {sorted({b for _, b in boards})})")
    def hops(label):
        return lambda n: Board.make(label).transfer_hops(int(n))
    cycles = (Board.make(a.source).hop_cycles(), Board.make(a.to).hop_cycles())
    results = {f"{a.workload}/{v}": interconnect.check(boards[(v, a.source)], boards[(v, a.to)], hops(a.source),
                                                       hops(a.to), cycles, a.train_max, a.law, a.hop_fraction)
               for v in variants}
    out = Path(a.out or Path(a.table).with_suffix("").as_posix() + "-interconnect")
    md, figs = outputs.write_interconnect(results, out, str(a.table), a.source, a.to, a.note)
    print(md, end="")
    print(f"wrote {out / 'interconnect.json'}, {out / 'interconnect.md'} and {len(figs) // 2} figure(s)")
    return 0


def _sockets(a):
    from vmscale_gem5.board import Board
    from vmscale_model import outputs, sockets, study
    by = study.curves(fitlib.load_table(a.table, a.workload))
    results = {}
    for (w, v, backend, board), rs in sorted(by.items()):
        if backend != "gem5":
            continue
        b = Board.make(board)
        key = f"{w}/{v}/gem5[{board}]"
        try:
            results[key] = sockets.predict(rs, a.train_max, b.miss_cycles, b.transfer_cycles)
        except fitlib.FitError as e:
            print(f"{key}: skipped: {e}")
    if not results:
        raise fitlib.FitError(f"no gem5 curve in {a.table} with points beyond {a.train_max} cores to predict")
    out = Path(a.out or Path(a.table).with_suffix("").as_posix() + "-sockets")
    md, figs = outputs.write_sockets(results, out, str(a.table), a.train_max, a.note)
    print(md, end="")
    print(f"wrote {out / 'sockets.json'}, {out / 'sockets.md'} and {len(figs) // 2} figure(s)")
    return 0


def _model(a):
    return network.single_line(a.think, network.Cost(a.service, a.per_hop, a.law), a.dist)


def _simulate(a):
    m = _model(a)
    t = time.time()
    r = des.simulate(m, a.cores, ops=a.ops, seed=a.seed)
    print(json.dumps(dict(r.as_row(), mva_throughput=solvers.mva_throughput(m, a.cores) if m.product_form() else None,
                          wall_seconds=round(time.time() - t, 3)), indent=2))
    return 0


def _mva(a):
    m = _model(a)
    for n in a.cores_list:
        print(f"{n:6d} {solvers.mva_throughput(m, n):.6g}")
    return 0


def _piggin(a):
    from vmscale_model import plot
    Path(a.out).mkdir(parents=True, exist_ok=True)
    figs = plot.piggin_figure(str(Path(a.out) / "piggin-fig3.1"), ops=a.ops)
    print(f"wrote {', '.join(figs)}")
    return 0


def _stations(a):
    """The hot-line model beside the free fit, the USL and the one-queue counter model."""
    import csv
    from vmscale_model import hotstations, study
    rows = fitlib.load_table(a.table, a.workload, a.variant, board=a.board, ops_per_thread=a.ops_per_thread)
    if a.slope:   # the steady-state curve from the two ROI sizes (the ROI's fixed part taken out)
        rows, notes = study.slope_rows(rows)
        for n in notes:
            print(f"slope: {n}", file=sys.stderr)
        if not rows:
            raise ValueError("no core count of this curve was measured at two ROI sizes: no slope")
    try:
        hot = [r for r in csv.DictReader(open(a.hotlines, newline=""))
               if r["workload"] == a.workload and r["kernel_variant"] == a.variant]
    except (OSError, KeyError) as e:
        raise ValueError(f"{a.hotlines}: not a hotlines.csv ({e})") from e
    at = sorted({int(r["cores"]) for r in hot if r.get("cores")})
    if not hot or not at:
        raise ValueError(f"{a.hotlines} has no {a.workload}/{a.variant} case")
    n_at = a.at or at[-1]
    if n_at not in at:
        raise ValueError(f"{a.hotlines} has {a.workload}/{a.variant} at {at} cores, not {n_at}")
    st = hotstations.stations([r for r in hot if int(r["cores"]) == n_at], a.top)
    data = fitlib.prepare(rows)
    if 1 not in data.cores:
        raise ValueError("the table has no 1-core point of this curve to take the think time from")
    one = 1 / float(data.throughput[list(data.cores).index(1)])
    m = hotstations.model(st, one)
    pred = hotstations.predict(m, data.cores)
    judged = study.judge(rows, a.train_max)
    held = set(judged.get("held_cores", []))
    print(f"{a.workload}/{a.variant}: {len(st)} hot-line stations from {n_at} cores; think {m['think']:.4g} "
          f"cycles, line demand {m['demand']:.4g} cycles per op (1-core cost {one:.4g})")
    for s_ in st[:8]:
        print(f"  {s_['visits']:.3g} visits x {s_['service']:.0f} cycles ({s_['service_from']}) = {s_['demand']:.4g}  "
              f"{s_['kind']}: {s_['name']}")
    names = list(judged.get("methods", {}))
    print(f"  {'cores':>5} {'measured':>10} {'hot lines':>10}   " + "  ".join(f"{k:>10}" for k in names)
          + f"   (errors at held-out counts, fitted on <= {a.train_max})")
    others = {k: dict(zip(judged.get("held_cores", []), j.get("error", [])))
              for k, j in judged.get("methods", {}).items()}
    out = {"workload": a.workload, "variant": a.variant, "stations_at": n_at, "think": m["think"],
           "stations": st, "points": []}
    for n, x, p in zip(data.cores, data.throughput, pred):
        err = p / x - 1
        point = {"cores": int(n), "measured": float(x), "hot_lines": float(p), "hot_lines_error": float(err),
                 "held_out": int(n) in held}
        cells = []
        for key in names:
            e = others[key].get(int(n))
            point[f"{key}_error"] = e
            cells.append(f"{100 * e:+9.1f}%" if e is not None else f"{'':>10}")
        out["points"].append(point)
        print(f"  {int(n):>5} {x:10.4g} {100 * err:+9.1f}%   " + "  ".join(cells) + ("   held out" if int(n) in held else ""))
    if a.out:
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {a.out}")
    return 0


def _guarded(func):
    """A model error is one line and exit status 2, under `vmscale model` as on its own."""
    def run(a):
        try:
            return func(a)
        except (fitlib.FitError, ValueError) as e:
            print(f"vmscale model: error: {e}", file=sys.stderr)
            return 2
    return run


def _add_fit(sub):
    f = sub.add_parser("fit", help="fit to a tidy result table, hold out, predict to 4096 cores, plot")
    f.add_argument("table", help="a table from `vmscale collect` or a sweep")
    f.add_argument("--workload", help="only this workload's rows")
    f.add_argument("--variant", help="only this kernel variant's rows")
    f.add_argument("--backend", help="only this backend's rows")
    f.add_argument("--board", help="only rows of this gem5 board (its gem5.board column, e.g. l2_assoc=64; '' default)")
    f.add_argument("--ops-per-thread", type=float, help="only rows with this ROI size (operations per thread)")
    f.add_argument("--law", default="crossbar", choices=LAWS, help="interconnect the data came from")
    f.add_argument("--per-hop", type=float, help="fix the per-hop service time (default: fitted for non-crossbar laws)")
    f.add_argument("--hop-fraction", type=float, default=0.5,
                   help="crossbar fits: share of the line's service that is one hop, for predicting other laws")
    f.add_argument("--holdout", type=int, default=1, help="largest core counts held out for validation (0: none)")
    f.add_argument("--max-cores", type=int, default=4096, help="predict up to this many cores (default 4096)")
    f.add_argument("--out", help="output directory (default: TABLE-model/)")
    f.add_argument("--note", help="a line of provenance printed on the figure")
    f.set_defaults(func=_guarded(_fit))


def _add_study(sub):
    st = sub.add_parser("study", help="every curve of a table judged by every method (the model fitted, "
                                      "the USL, the counter-based and hot-line models) where it was not fitted")
    st.add_argument("table", help="a table from `vmscale collect` or a sweep")
    st.add_argument("--train-max", type=int, default=16, help="fit on core counts up to this (default 16)")
    st.add_argument("--train-min", type=int, default=1,
                    help="fit on core counts from this (2 leaves out the 1-core point, where no line moves)")
    st.add_argument("--min-points", type=int, default=5, help="core counts a curve needs (default 5)")
    st.add_argument("--workload", help="only this workload's curves")
    st.add_argument("--hotlines", metavar="CSV", nargs="+",
                    help="hotlines.csv files (`vmscale hotlines`): the cases they traced are judged by the hot-line "
                    "models too (on a sockets board, also carried by its distances)")
    st.add_argument("--holds", metavar="CSV", nargs="+",
                    help="holds.csv files (`vmscale threads` of a run with --gem5 roi_profile=N): a traced case on a "
                    "sockets board is judged with its locks as stations too (hotlocks), and a workload whose threads "
                    "run its rounds in step (fault) in those phases (phases)")
    st.add_argument("--rings", metavar="CSV", nargs="+",
                    help="ring.csv files (`vmscale ring` of a traced pipeline run): the case on a sockets board is "
                    "judged as a ring at its slowest thread's pace too (ring)")
    st.add_argument("--out", help="output directory (default: TABLE-study/)")
    st.add_argument("--note", help="a line of provenance printed on the figures")
    st.set_defaults(func=_guarded(_study))


def _one_curve(a, carried: str) -> tuple:
    """(rows, board) of the curve `vmscale model locks` or `lines` checks: one ROI size, on a sockets board."""
    from vmscale_gem5.board import with_sockets
    from vmscale_model import study
    rows = fitlib.load_table(a.table, a.workload, a.variant, "gem5", a.board, a.ops_per_thread)
    if len({study.roi_size(r) for r in rows}) > 1:
        raise ValueError(f"{a.table}: {a.workload}/{a.variant} has several ROI sizes: choose one with --ops-per-thread")
    board = with_sockets(a.board)
    if board is None:
        raise ValueError(f"board {a.board!r}: not a sockets board this vmscale can make (its distances carry the {carried})")
    return rows, board


def _curve_args(p, what: str):
    """The arguments of a check of one curve's carried stations (`locks`, `lines`)."""
    p.add_argument("table", help="the curve's table (window_ops_per_cycle)")
    p.add_argument("--workload", required=True, help="the curve's workload")
    p.add_argument("--variant", required=True, help="the curve's kernel variant")
    p.add_argument("--board", default="board=e7-8870", help="the curve's gem5.board label (a sockets board)")
    p.add_argument("--hotlines", metavar="CSV", nargs="+", required=True, help=what)
    p.add_argument("--train-max", type=int, default=20, help="the model's largest fitted core count (default 20)")
    p.add_argument("--ops-per-thread", type=float, help="the curve's ROI size, if the table holds several")


def _locks(a):
    from vmscale_model import lockcheck
    rows, board = _one_curve(a, "locks")
    mine = lambda r: r.get("workload") == a.workload and r.get("kernel_variant") == a.variant  # noqa: E731
    trace = [r for path in a.hotlines for r in hotline_rows(path) if mine(r)]
    held = [r for path in a.holds for r in hold_rows(path) if mine(r)]
    if not trace or not held:
        raise ValueError(f"no {'hot-line trace' if not trace else 'lock profile'} of {a.workload}/{a.variant} "
                         "in the files given")
    print(lockcheck.render(lockcheck.check(rows, trace, held, board, a.train_max), a.min_share), end="")
    return 0


def _add_locks(sub):
    lk = sub.add_parser("locks", help="the lock stations `hotlocks` carried past its fitted core counts, beside "
                                      "the profiles made there (holds.csv at a held-out count): which of a lock's "
                                      "takings, hold and hand-off the carrying got wrong")
    _curve_args(lk, "hotlines.csv of the case")
    lk.add_argument("--holds", metavar="CSV", nargs="+", required=True,
                    help="holds.csv of the case: those at or below --train-max make the stations, those above are "
                    "the check")
    lk.add_argument("--min-share", type=float, default=0.01,
                    help="show locks busy at least this share of the time, carried or profiled (default 0.01)")
    lk.set_defaults(func=_guarded(_locks))


def _lines(a):
    from vmscale_model import linecheck, methods
    rows, board = _one_curve(a, "lines")
    trace = [r for path in a.hotlines for r in hotline_rows(path)
             if r.get("workload") == a.workload and r.get("kernel_variant") == a.variant]
    if not trace:
        raise ValueError(f"no hot-line trace of {a.workload}/{a.variant} in the files given")
    try:
        result = linecheck.check(rows, trace, board, a.train_max, a.top, tuple(a.at))
    except methods.NoModel as e:
        raise ValueError(str(e)) from e
    print(linecheck.render(result, a.show), end="")
    return 0


def _add_lines(sub):
    ln = sub.add_parser("lines", help="the hot-line stations `hotboard` carried past its fitted core counts, beside "
                                      "a trace made there (hotlines.csv at a held-out count): which line's visits "
                                      "or hand-off the carrying got wrong, and lines it never had")
    _curve_args(ln, "hotlines.csv of the case: the largest count at or below --train-max makes the stations, "
                    "those above are the check")
    ln.add_argument("--at", type=lambda s: [int(x) for x in s.split(",")], default=[],
                    help="more core counts to carry the stations to (comma-separated; e.g. 160,1024)")
    ln.add_argument("--top", type=int, default=0, help="only the trace's top N lines as stations (default: all)")
    ln.add_argument("--show", type=int, default=8, help="lines printed per core count (default 8)")
    ln.set_defaults(func=_guarded(_lines))


def _add_interconnect(sub):
    ic = sub.add_parser("interconnect", help="fit a curve on one gem5 board, predict it on another (e.g. crossbar "
                                             "to mesh) from the boards' hop counts, and judge the prediction")
    ic.add_argument("table", help="a table holding both boards' curves")
    ic.add_argument("--workload", required=True, help="the workload whose curves to use")
    ic.add_argument("--variant", help="comma-separated kernel variants (default: every one on both boards)")
    ic.add_argument("--from", dest="source", required=True, metavar="BOARD", help="the fitted board's gem5.board label")
    ic.add_argument("--to", required=True, metavar="BOARD", help="the predicted board's gem5.board label")
    ic.add_argument("--train-max", type=int, default=16, help="fit the source on core counts up to this")
    ic.add_argument("--law", default="mesh", choices=LAWS, help="the law-based prediction's interconnect law")
    ic.add_argument("--hop-fraction", type=float, default=0.5, help="the law-based prediction's hop share of S")
    ic.add_argument("--out", help="output directory (default: TABLE-interconnect/)")
    ic.add_argument("--note", help="a line of provenance printed on the figures")
    ic.set_defaults(func=_guarded(_interconnect))


def _beyond(a):
    import json
    from vmscale_model import beyond, plot
    hot = [r for path in a.hotlines for r in hotline_rows(path)]
    held = [r for path in a.holds for r in hold_rows(path)] if a.holds else []
    rings = [r for path in a.rings for r in ring_rows(path)] if a.rings else []
    rows = fitlib.load_table(a.table, a.workload)
    grid = sorted(set(a.cores) | set(beyond.FIGURE_CORES))
    pred = beyond.predict(rows, hot, held, a.train_max, grid, a.topology.split(","),
                          progress=lambda m: print(m, file=sys.stderr, flush=True), rings=rings)
    if not pred:
        raise fitlib.FitError(f"no gem5 curve of {a.table} on a named board has a hot-line trace among "
                              f"{len(a.hotlines)} file(s) and three core counts up to {a.train_max}, one core included")
    out = Path(a.out or Path(a.table).with_suffix("").as_posix() + "-beyond")
    out.mkdir(parents=True, exist_ok=True)
    (out / "beyond.json").write_text(json.dumps(pred, indent=1) + "\n")
    md = beyond.table_md([p for p in pred if p["cores"] in a.cores])
    (out / "beyond.md").write_text(
        f"# Past the simulated machine: {a.table}, fitted on <= {a.train_max} cores\n\nWindow cycles per "
        "operation per thread (cores / throughput), with the 5-95% band of the lock profile's sampling error; "
        "measured: the reference board's point. The sockets interconnect is the board's own (ten-core sockets, "
        "from 6 sockets on a Moebius ladder: a ring with a chord); crossbar and mesh keep its link and router "
        "latencies.\n\n" + md)
    figs = []
    curves = beyond.curves(rows, a.train_max)
    for key in sorted({(p["workload"], p["variant"], p["board"], p["ops"]) for p in pred}):
        w, v, board, k = key
        ps = [p for p in pred if (p["workload"], p["variant"], p["board"], p["ops"]) == key]
        measured = {int(float(r["cores"])): float(r["window_ops_per_cycle"]) for r in curves[key]}
        stem = out / f"{w}-{v.replace(' ', '_')}-{k:g}"
        figs += plot.beyond_curve(ps, measured, a.train_max, str(stem),
                                  f"{w} / {v} ({k:g} ops per thread): past the simulated machine", a.note)
    print(md, end="")
    print(f"wrote {out / 'beyond.json'}, {out / 'beyond.md'} and {len(figs) // 2} figure(s)")
    return 0


def _add_beyond(sub):
    bd = sub.add_parser("beyond", help="predict traced curves to thousands of cores on the sockets, crossbar and "
                                       "mesh interconnects (the hot-line model carried by each one's distances)")
    bd.add_argument("table", help="a table from `vmscale collect` or a sweep, gem5 curves on a named board")
    bd.add_argument("--hotlines", metavar="CSV", nargs="+", required=True, help="hotlines.csv files (`vmscale hotlines`)")
    bd.add_argument("--holds", metavar="CSV", nargs="+", help="holds.csv files (`vmscale threads` of a profiled run)")
    bd.add_argument("--rings", metavar="CSV", nargs="+",
                    help="ring.csv files (`vmscale ring RUN_DIR`): `pipeline`'s ring at its slowest thread's pace")
    bd.add_argument("--workload", help="only this workload's curves")
    bd.add_argument("--train-max", type=int, default=20, help="fit on core counts up to this (default 20)")
    bd.add_argument("--cores", type=lambda s: [int(x) for x in s.split(",")], default=[160, 1024, 4096],
                    help="core counts of the table (default 160,1024,4096)")
    bd.add_argument("--topology", default="sockets,crossbar,mesh", help="interconnects (default sockets,crossbar,mesh)")
    bd.add_argument("--out", help="output directory (default: TABLE-beyond/)")
    bd.add_argument("--note", help="a line of provenance printed on the figures")
    bd.set_defaults(func=_guarded(_beyond))


def _add_sockets(sub):
    sk = sub.add_parser("sockets", help="fit each gem5 curve on its first sockets, predict it where the cores "
                                        "spread over more, from the board's distances, and judge it beside the USL")
    sk.add_argument("table", help="a table from `vmscale collect` or a sweep")
    sk.add_argument("--workload", help="only this workload's curves")
    sk.add_argument("--train-max", type=int, default=10, help="fit on core counts up to this (default 10: one "
                                                              "socket of the reference board)")
    sk.add_argument("--out", help="output directory (default: TABLE-sockets/)")
    sk.add_argument("--note", help="a line of provenance printed on the figures")
    sk.set_defaults(func=_guarded(_sockets))


def _add_stations(sub):
    hs = sub.add_parser("stations", help="a model with one queue per hot line (from `vmscale hotlines`), "
                                         "judged on a curve beside the fit, the USL and the one-queue model")
    hs.add_argument("table", help="the curve's table (from `vmscale collect` or a sweep)")
    hs.add_argument("hotlines", help="a hotlines.csv (from `vmscale hotlines RUN_DIR`, or gathered by collect)")
    hs.add_argument("--workload", required=True, help="the curve's workload")
    hs.add_argument("--variant", required=True, help="the curve's kernel variant")
    hs.add_argument("--at", type=int, help="the core count whose hot lines make the stations (default: the largest)")
    hs.add_argument("--top", type=int, default=0, help="only the top N lines (default: every ranked line)")
    hs.add_argument("--board", default="", help="the curve's gem5 board label ('' the default board)")
    hs.add_argument("--ops-per-thread", type=float, help="the curve's ROI size, if the table holds several")
    hs.add_argument("--slope", action="store_true",
                    help="judge on the steady-state curve (per-op slope between the table's two ROI sizes)")
    hs.add_argument("--train-max", type=int, default=16, help="the free fit's and USL's largest fitted core count")
    hs.add_argument("--out", help="write the stations and every point's error here (JSON)")
    hs.set_defaults(func=_guarded(_stations))


def _add_solvers(sub):
    for name, func, help_ in (("simulate", _simulate, "run the SimPy model once"),
                              ("mva", _mva, "exact MVA throughput")):
        s = sub.add_parser(name, help=help_)
        s.add_argument("--think", type=float, required=True, help="mean local work per operation")
        s.add_argument("--service", type=float, required=True, help="line transfer time (fixed part)")
        s.add_argument("--per-hop", type=float, default=0.0, help="line transfer time per network hop")
        s.add_argument("--law", default="crossbar", choices=LAWS, help="interconnect: how hops grow with cores")
        s.add_argument("--dist", default="exp", choices=["exp", "det"],
                       help="think and service times: exponential or deterministic")
        if name == "simulate":
            s.add_argument("--cores", type=int, required=True, help="cores contending for the line")
            s.add_argument("--ops", type=int, default=50_000, help="operations to simulate")
            s.add_argument("--seed", type=int, default=1, help="random seed")
        else:
            s.add_argument("--cores", dest="cores_list", type=lambda t: [int(x) for x in t.split(",")],
                           default=[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096],
                           help="comma-separated core counts (default 1..4096 in powers of two)")
        s.set_defaults(func=_guarded(func))


def add_commands(p):
    """The model's commands, under `p` (`vmscale model`, or this module's own parser)."""
    sub = p.add_subparsers(dest="model_cmd", required=True)
    _add_fit(sub)
    _add_beyond(sub)
    _add_study(sub)
    _add_interconnect(sub)
    _add_sockets(sub)
    _add_stations(sub)
    _add_locks(sub)
    _add_lines(sub)
    _add_solvers(sub)
    g = sub.add_parser("piggin", help="reproduce Piggin Figure 3.1")
    g.add_argument("--out", default=".", help="output directory (default: here)")
    g.add_argument("--ops", type=int, default=20_000, help="operations per simulated point")
    g.set_defaults(func=_guarded(_piggin))


def parser():
    p = argparse.ArgumentParser(prog="vmscale model", description="queueing model of contended cache lines")
    add_commands(p)
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    return a.func(a)


if __name__ == "__main__":
    sys.exit(main())
