"""A board's line-transfer latencies, measured by the ccbench workload, beside published ones.

ccbench prints one line per (writer, reader) pair after its ROI (guest-workloads/ccbench.c):
    VMSCALE-CCBENCH writer reader wsock rsock home load atomic overhead
Pairs are put in classes by the socket distance on the board's own graph (same socket, one
socket link, two): the classes mctop's machine descriptions publish.  Pure logic here; the
command (`vmscale calibrate`) reads the run directory and writes the table and the heat map.
"""

import re
import statistics

from vmscale.errors import VmscaleError

# LPD-EPFL/mctop, desc/diassrv8.mct: a 160-thread machine of 8 sockets of 10-core Xeons (the seeds'
# class of machine), core-to-core cache-line transfer latencies in cycles, by class.  Cited, never mixed
# into our data.
MCTOP_SOURCE = "LPD-EPFL/mctop, desc/diassrv8.mct (8 sockets x 10-core Xeon, 2 hardware threads per core)"
PUBLISHED = {"same socket": 116, "one hop": 341, "two hops": 458}
CLASSES = ("same socket", "one hop", "two hops")
TOLERANCE = 0.25

LINE = re.compile(r"^VMSCALE-CCBENCH (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)\s*$", re.M)


def parse(console: str) -> list:
    """The pairs a ccbench run printed, as dicts."""
    out = []
    for m in LINE.finditer(console):
        w, r, ws, rs, home, load, atomic, overhead = map(int, m.groups())
        out.append({"writer": w, "reader": r, "writer_socket": ws, "reader_socket": rs, "home": home,
                    "load": load, "atomic": atomic, "overhead": overhead})
    if not out:
        raise VmscaleError("no VMSCALE-CCBENCH lines in the console: not a ccbench run, or it failed")
    return out


def socket_distance(hops) -> dict:
    """(socket a, socket b) -> socket links crossed, from a function giving the router hops between
    two sockets' routers (a socket router, its port, N socket links, the far port, the far router:
    N + 2 hops; 0 on one socket)."""
    return {k: (0 if h == 0 else h - 2) for k, h in hops.items()}


def classify(pairs: list, distance: dict) -> list:
    for p in pairs:
        d = distance[(p["writer_socket"], p["reader_socket"])]
        p["class"] = CLASSES[d] if d < len(CLASSES) else f"{d} hops"
    return pairs


def table(pairs: list) -> list:
    """One row per class: pairs, median load and atomic cycles, the published figure, the error."""
    rows = []
    for c in CLASSES:
        ps = [p for p in pairs if p["class"] == c]
        if not ps:
            continue
        load = statistics.median(p["load"] for p in ps)
        atomic = statistics.median(p["atomic"] for p in ps)
        pub = PUBLISHED[c]
        rows.append({"class": c, "pairs": len(ps), "load_cycles": load, "atomic_cycles": atomic,
                     "published_cycles": pub, "load_error": (load - pub) / pub, "atomic_error": (atomic - pub) / pub,
                     "within_tolerance": abs(load - pub) / pub <= TOLERANCE})
    return rows


def socket_matrix(pairs: list, key: str = "load") -> tuple:
    """(sockets, matrix[writer socket][reader socket] = median cycles or None)."""
    n = 1 + max(max(p["writer_socket"], p["reader_socket"]) for p in pairs)
    m = [[None] * n for _ in range(n)]
    for a in range(n):
        for b in range(n):
            vs = [p[key] for p in pairs if (p["writer_socket"], p["reader_socket"]) == (a, b)]
            if vs:
                m[a][b] = statistics.median(vs)
    return n, m


def published_matrix(n: int, distance: dict) -> list:
    """The published class latency for every socket pair, by the board's own socket distance."""
    return [[PUBLISHED.get(CLASSES[distance[(a, b)]]) if distance[(a, b)] < len(CLASSES) else None
             for b in range(n)] for a in range(n)]


def render(rows: list, board: str, cores: int) -> str:
    lines = [f"# Line-transfer latencies on `{board}` at {cores} cores (ccbench, medians per class)", "",
             f"Published: {MCTOP_SOURCE}. Goal: every class within {TOLERANCE:.0%}.", "",
             "| class | pairs | load from modified | atomic on modified | published | load error | atomic error |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['class']} | {r['pairs']} | {r['load_cycles']:.0f} | {r['atomic_cycles']:.0f} | "
                     f"{r['published_cycles']} | {r['load_error']:+.1%} | {r['atomic_error']:+.1%} |")
    return "\n".join(lines) + "\n"


def plot(pairs: list, distance: dict, path_stem: str, board: str) -> list:
    from vmscale.plots import plt, save_figure
    n, meas = socket_matrix(pairs)
    pub = published_matrix(n, distance)
    vals = [v for row in meas + pub for v in row if v is not None]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), constrained_layout=True)
    for ax, m, title in ((axes[0], meas, f"measured: {board}\n(ccbench, load from modified)"),
                         (axes[1], pub, "published class latency\n(mctop desc/diassrv8.mct)")):
        data = [[float("nan") if v is None else v for v in row] for row in m]
        im = ax.imshow(data, vmin=min(vals), vmax=max(vals), cmap="viridis")
        for a in range(n):
            for b in range(n):
                if m[a][b] is not None:
                    light = (m[a][b] - min(vals)) / ((max(vals) - min(vals)) or 1) > 0.6
                    ax.text(b, a, f"{m[a][b]:.0f}", ha="center", va="center", fontsize=7, color="k" if light else "w")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("reader's socket")
        ax.set_ylabel("writer's socket")
    fig.colorbar(im, ax=axes, label="cycles per line transfer", shrink=0.8)
    return save_figure(fig, path_stem)
