"""A curve carried past the sockets it was fitted on, by the board's own distances.

The contended-line model is fitted (think Z, service S) on the core counts up to n0, all on a
board's first sockets.  Beyond them the cores spread over more sockets and a line's home (L2
bank, memory channel) is as often on another socket, so every miss of an operation and every
transfer of its contended line travels farther:

    Z(N) = Z + M (R_bank(N) - R_bank(n0)) + F (R_mem(N) - R_mem(n0))
    S(N) = S + T (C(N) - C(n0))

M the L1 demand misses per operation, F the memory fetches per operation and T the line's
ownership transfers per operation, all read at n0; R and C the mean network cycles of a miss's
round trips and of a transfer's critical path, from the board's graph and latencies (the caller
passes them: vmscale_gem5.board.Board.miss_cycles and transfer_cycles).  Nothing of the held-out
points goes in.  Beside it, the same fit unchanged and the USL fitted to the same points.

Ownership runs.  Where a core does k > 1 operations each time it owns the contended line (T < 1
transfers per operation), it keeps working while the next request reaches it, so farther sockets
lengthen its runs as well as the transfers.  In MESI_Two_Level a hand-over is three legs: the new
owner's unblock to the line's L2 bank, the bank's forward of the next queued GETX back to it, its
data to the next owner.  The owner holds the line for the first two (H = 2/3 of a hand-over P at
n0, where P = k S) and does an operation every o = H / (k - 1) cycles while it does.  At N cores:

    P(N) = P + (C(N) - C(n0)),   H(N) = H + (R_bank(N) - R_bank(n0)),   k(N) = 1 + H(N) / o
    S(N) = P(N) / k(N)

(the unblock and the forward are one L1-bank round trip).  This needs a request waiting whenever an
owner unblocks: the line saturated at n0 (the fit's utilisation X S >= SATURATED there).  Where it
is not, or T >= 1, there are no runs, and this is the prediction above.

Pure: rows and functions in, a dict out.
"""

import math

import numpy as np

from vmscale_model import fit as fitlib
from vmscale_model import methods, solvers
from vmscale_model.study import errors      # study imports this module only inside study()

MISS_KEY = "gem5.l1d_demand_misses_per_op"


def per_op(rows: list) -> dict:
    """M, F and T at one core count, mean over its rows."""
    def mean(values):
        values = [v for v in values if math.isfinite(v)]
        return float(np.mean(values)) if values else math.nan
    m = mean(methods._num(r, MISS_KEY) for r in rows)
    # an empty cell beside the other counters: the ROI's stats had no such line, read as none counted
    f = mean((methods._num(r, "gem5.dir_fetch") if r.get("gem5.dir_fetch") not in (None, "") else 0.0)
             / methods._num(r, "ops") for r in rows)
    t = methods.transfers_per_op(rows)
    if not all(math.isfinite(x) for x in (m, f, t)):
        raise fitlib.FitError("the rows lack gem5's counters (L1 misses, directory fetches, forwarded GETX/GETS)")
    return {"misses": m, "memory_fetches": f, "transfers": t}


def farther(k: dict, miss: dict, miss0: dict) -> float:
    """Cycles an operation gains when its misses (k: per_op) travel the board's round trips `miss`
    instead of `miss0` (Board.miss_cycles at two core counts)."""
    return (k["misses"] * (miss["l1_bank"] - miss0["l1_bank"])
            + k["memory_fetches"] * (miss["bank_memory"] - miss0["bank_memory"]))


HOLD_LEGS = 2 / 3     # of a hand-over's three legs, the two in which the old owner still holds the line
SATURATED = 0.9       # the fit's utilisation of the line at n0 from which requests always wait


def ownership_runs(service: float, transfers: float, utilisation: float, d_round_trip: list, d_transfer: list,
                   cores: list) -> dict:
    """Service per operation and operations per ownership at each core count, with the owner's runs
    growing with its distance from the line's bank (the module's docstring).  service, transfers
    and the line's utilisation at n0; d_round_trip and d_transfer: R_bank(N) - R_bank(n0) and
    C(N) - C(n0) per core count.  None where there are no runs."""
    if not 0 < transfers < 1 or service <= 0 or utilisation < SATURATED:
        return None     # no runs: the board's prediction stands
    k0 = 1 / transfers
    p0 = k0 * service
    h0 = HOLD_LEGS * p0
    o = h0 / (k0 - 1)
    ks = [1 + (h0 + dr) / o for dr in d_round_trip]
    return {"service": [(p0 + dt) / k if n > 1 else service for dt, k, n in zip(d_transfer, ks, cores)],
            "k": [k if n > 1 else 1.0 for k, n in zip(ks, cores)]}


class Carried:
    """A fit on one board's first sockets and the distances to carry it: Z(N), S(N) and the
    ownership runs at any core count (the module's docstring)."""

    def __init__(self, rows: list, miss_cycles, transfer_cycles, law: str = "crossbar"):
        """rows: the fitted core counts' rows only; the largest of them is n0."""
        d = fitlib.prepare(rows)
        if len(set(d.cores.tolist())) < 2:
            raise fitlib.FitError(f"a fit needs two core counts (got {d.cores.tolist()})")
        self.fit = fitlib.fit(d, law)
        p = self.fit.params()
        self.think0, self.service0 = float(p["think"]), float(p["service"])
        self.n0 = int(d.cores.max())
        self.per_op = per_op([r for r in rows if int(float(r["cores"])) == self.n0])
        self._miss, self._transfer = miss_cycles, transfer_cycles
        self._cache = {}
        self.utilisation = solvers.mva(self.think0, [self.service0], self.n0)["throughput"] * self.service0

    def distances(self, n: int) -> tuple:
        """(miss cycles, transfer cycles) at n cores; each builds the board's graph once."""
        if n not in self._cache:
            self._cache[n] = (self._miss(n), float(self._transfer(n)))
        return self._cache[n]

    def at(self, cores) -> dict:
        """Z(N), S(N) and the runs' S(N) and ops per ownership at each core count."""
        cores = [int(n) for n in cores]
        k = self.per_op
        r0, c0 = self.distances(self.n0)
        miss = [self.distances(n)[0] for n in cores]
        transfer = [self.distances(n)[1] for n in cores]
        think = [self.think0 + farther(k, m, r0) for m in miss]
        service = [self.service0 + (k["transfers"] * (t - c0) if n > 1 else 0.0) for t, n in zip(transfer, cores)]
        runs = ownership_runs(self.service0, k["transfers"], self.utilisation,
                              [m["l1_bank"] - r0["l1_bank"] for m in miss], [t - c0 for t in transfer], cores)
        runs = runs or {"service": service, "k": [1.0] * len(cores)}
        return {"cores": cores, "think": think, "service": service, "runs_service": runs["service"],
                "ops_per_ownership": runs["k"], "miss_cycles": miss, "transfer_cycles": transfer}

    def throughput(self, cores, runs: bool = True) -> np.ndarray:
        a = self.at(cores)
        services = a["runs_service"] if runs else a["service"]
        return np.array([solvers.mva(z, [s], n)["throughput"] for z, s, n in zip(a["think"], services, a["cores"])])


class BoardDistances:
    """The study's method: the contended-line fit carried past its sockets by the board's
    distances, with the owner's runs.  board: an object with miss_cycles(n) and
    transfer_cycles(n) (vmscale_gem5.board.Board), given by the caller so this stays pure."""
    name, label = "sockets", "fit carried by the board's distances"

    def __init__(self, board, law: str = "crossbar"):
        self.board, self.law = board, law

    def fit(self, rows) -> methods.Model:
        try:
            c = Carried(rows, self.board.miss_cycles, self.board.transfer_cycles, self.law)
        except fitlib.FitError as e:
            raise methods.NoModel(str(e)) from e
        params = {"think": c.think0, "service": c.service0, "at_cores": c.n0, **c.per_op}
        return methods.Model(self.name, params, lambda cores: methods.Prediction(c.throughput(cores)))

    @staticmethod
    def describe(p) -> str:
        return (f"Z {p['think']:.4g}, S {p['service']:.4g}; per op at {p['at_cores']}: {p['misses']:.0f} misses, "
                f"{p['transfers']:.2f} transfers")


class Distances:
    """The study's null method: no queue at all.  The cost of an operation at the largest fitted
    count n0, C(n0) = n0 / X(n0), carried to N cores by the board's distances alone:

        C(N) = C(n0) + M (R_bank(N) - R_bank(n0)) + F (R_mem(N) - R_mem(n0)),   X(N) = N / C(N)

    (M, F at n0, as Carried's think time).  Nothing is fitted.  Where it holds, the curve's growth
    past its sockets is the misses' longer paths, not a line or lock that queues (`reclaim` under
    RCU warmed up: +213 of +244 cycles from 20 to 40 cores, FINDINGS session 59); where a contended
    method beats it, the queue is real."""
    name, label = "distances", "fitted count's cost carried by the board's distances, no queue"

    def __init__(self, board):
        self.board = board

    def fit(self, rows) -> methods.Model:
        d = methods._data(rows)
        n0 = int(d.cores.max())
        try:
            k = per_op([r for r in rows if int(float(r["cores"])) == n0])
        except fitlib.FitError as e:
            raise methods.NoModel(str(e)) from e
        cost0 = n0 / float(d.throughput[-1])
        r0 = self.board.miss_cycles(n0)
        cache = {}

        def cost(n: int) -> float:
            if n not in cache:
                m = self.board.miss_cycles(n)
                cache[n] = cost0 + farther(k, m, r0)
            return cache[n]

        params = {"cost": cost0, "at_cores": n0, "misses": k["misses"], "memory_fetches": k["memory_fetches"]}
        return methods.Model(self.name, params, lambda cores: methods.Prediction(
            np.array([n / cost(int(n)) for n in cores], dtype=float)))

    @staticmethod
    def describe(p) -> str:
        return (f"{p['cost']:,.0f} cycles/op at {p['at_cores']}; per op: {p['misses']:.1f} misses, "
                f"{p['memory_fetches']:.2f} memory fetches")


def predict(rows: list, train_max: int, miss_cycles, transfer_cycles) -> dict:
    """Fit on core counts <= train_max; predict every core count of the rows.

    miss_cycles(n) -> {"l1_bank": cycles, "bank_memory": cycles}; transfer_cycles(n) -> cycles."""
    d = fitlib.prepare(rows)
    train = d.cores <= train_max
    if train.sum() < 2 or train.all():
        raise fitlib.FitError(f"fit on <= {train_max} cores needs two fitted core counts and one held out "
                              f"(core counts: {d.cores.tolist()})")
    c = Carried([r for r in rows if int(float(r["cores"])) <= train_max], miss_cycles, transfer_cycles)
    cores = d.cores.tolist()
    a = c.at(cores)
    predictions = {"board": c.throughput(cores, runs=False), "runs": c.throughput(cores),
                   "unchanged": c.fit.predict(d.cores)}
    out = {"fit": {"think": c.think0, "service": c.service0, "r2": c.fit.r2,
                   "train_cores": d.cores[train].tolist()},
           "at": c.n0, "per_op": c.per_op, "cores": cores, "measured": d.throughput.tolist(),
           "think": a["think"], "service": a["service"], "line_utilisation": c.utilisation,
           "runs_service": a["runs_service"], "ops_per_ownership": a["ops_per_ownership"],
           "miss_cycles": a["miss_cycles"], "transfer_cycles": a["transfer_cycles"]}
    try:
        u = fitlib.fit_usl(fitlib.Data(d.cores[train], d.throughput[train], d.spread[train], d.unit))
        predictions["usl"] = solvers.usl_throughput(d.cores, u["lambda"], u["sigma"], u["kappa"])
    except fitlib.FitError as e:     # too few points for its three parameters
        predictions["usl"] = np.full(len(d.cores), np.nan)
        out["usl_skipped"] = str(e)
    for name, pred in predictions.items():
        out[name] = {"predicted": [float(x) for x in pred], "error": errors(pred, d.throughput)}
    return out


def table(key: str, r: dict) -> str:
    """One markdown block: each core count's measurement and each prediction's error."""
    lines = ["| cores | measured (ops/Mcycle, window throughput) | held out | miss round trip to bank (cycles) | Z(N) | S(N) "
             "| by the board | with ownership runs (ops per run) | unchanged fit | USL |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    fitted = set(r["fit"]["train_cores"])
    for i, n in enumerate(r["cores"]):
        cells = [f"{100 * e:+.1f}%" if math.isfinite(e) else "-"
                 for e in (r[k]["error"][i] for k in ("board", "runs", "unchanged", "usl"))]
        cells[1] += f" ({r['ops_per_ownership'][i]:.1f})"
        lines.append(f"| {n} | {1e6 * r['measured'][i]:,.1f} | {'' if n in fitted else 'yes'} | "
                     f"{r['miss_cycles'][i]['l1_bank']:.0f} | {r['think'][i]:,.0f} | {r['service'][i]:,.1f} | "
                     + " | ".join(cells) + " |")
    k = r["per_op"]
    return (f"**{key}**: fitted on {','.join(map(str, r['fit']['train_cores']))} cores: Z = {r['fit']['think']:,.0f}, "
            f"S = {r['fit']['service']:.4g} cycles (R² {r['fit']['r2']:.3f}); at {r['at']} cores per op: "
            f"{k['misses']:.1f} L1 misses, {k['memory_fetches']:.2f} memory fetches, {k['transfers']:.2f} line "
            f"transfers.\n\n" + "\n".join(lines) + "\n")
