"""The SimPy discrete-event model: N cores in a closed loop around contended stations.

Reproducible for a seed.  Reports throughput, per-operation latency (time from the end
of local work to the end of the last shared visit), time-averaged queue lengths and
utilisation of every station.
"""

import random
from collections import deque
from dataclasses import dataclass

import numpy as np
import simpy

from vmscale_model.network import Model, Station


@dataclass
class Result:
    cores: int
    throughput: float          # operations per time unit, after warm-up
    latency_mean: float
    latency_p50: float
    latency_p99: float
    queue: dict                # station -> mean number present (queued + in service)
    utilisation: dict          # station -> busy fraction
    ops: int
    sim_time: float

    def as_row(self) -> dict:
        row = {k: getattr(self, k) for k in ("cores", "throughput", "latency_mean", "latency_p50",
                                             "latency_p99", "ops", "sim_time")}
        row.update({f"queue.{k}": v for k, v in self.queue.items()})
        row.update({f"utilisation.{k}": v for k, v in self.utilisation.items()})
        return row


class _Line:
    """A station's resource plus the integrals behind its queue length and utilisation."""

    def __init__(self, env, station: Station, n: int):
        self.env = env
        self.station = station
        self.service = station.service_at(n)
        self.res = simpy.Resource(env, capacity=1)
        self.present = 0
        self.last = 0.0
        self.area = 0.0
        self.busy = 0.0

    def _account(self, delta):
        now = self.env.now
        self.area += self.present * (now - self.last)
        self.busy += (now - self.last) if self.present else 0.0
        self.last = now
        self.present += delta

    def reset(self):
        self._account(0)
        self.area = self.busy = 0.0


class _LoadLine(_Line):
    """A station whose service time follows the number of cores present (Station.per_waiter,
    Station.handoff: Station.service_with).

    FCFS, one server.  With exponential service the completion rate tracks the number
    present as it changes (an arrival redraws the remaining time at the new rate, exact by
    memorylessness): the product-form station load-dependent MVA solves.  With 'det' each
    service takes the time set by the number present when it starts."""

    def __init__(self, env, station, n, rng, dist):
        super().__init__(env, station, n)
        self.n, self.rng, self.dist = n, rng, dist
        self.waiting = deque()
        self.arrived = env.event()
        env.process(self._serve())

    def visit(self):
        done = self.env.event()
        self.waiting.append(done)
        self._account(+1)
        if not self.arrived.triggered:
            self.arrived.succeed()
        yield done

    def _serve(self):
        env = self.env
        while True:
            if not self.waiting:
                self.arrived = env.event()
                yield self.arrived
                continue
            if self.dist == "det":
                yield env.timeout(self.station.service_with(self.n, self.present))
            else:
                while True:
                    self.arrived = env.event()
                    mean = self.station.service_with(self.n, self.present)
                    done = env.timeout(_draw(self.rng, mean, "exp"))
                    fired = yield done | self.arrived
                    if done in fired:
                        break
            self.waiting.popleft().succeed()
            self._account(-1)


def _draw(rng, mean, dist):
    if mean <= 0:
        return 0.0
    return rng.expovariate(1.0 / mean) if dist == "exp" else mean


def simulate(model: Model, cores: int, ops: int = 50_000, warmup: float = 0.1, seed: int = 1) -> Result:
    """Run until `ops` operations complete after a warm-up of `warmup * ops`."""
    model.validate()
    if cores < 1:
        raise ValueError(f"cores must be >= 1, got {cores}")
    if ops < 1:
        raise ValueError(f"ops must be >= 1, got {ops}")
    env = simpy.Environment()
    rng = random.Random(seed)
    lines = {s.name: _LoadLine(env, s, cores, rng, model.dist) if s.load_dependent else _Line(env, s, cores)
             for s in model.all_stations()}
    warm = int(ops * warmup)
    state = {"done": 0, "t_warm": 0.0}
    latencies = []
    finished = env.event()

    def visit(station: Station):
        line = lines[station.name]
        if isinstance(line, _LoadLine):
            yield from line.visit()
            return
        line._account(+1)
        with line.res.request() as req:
            yield req
            yield env.timeout(_draw(rng, line.service, model.dist))
            if station.hold:
                yield env.timeout(_draw(rng, station.hold, model.dist))
            for inner in station.inner:
                yield from visit(inner)
        line._account(-1)

    def core():
        while not finished.triggered:
            yield env.timeout(_draw(rng, model.think, model.dist))
            start = env.now
            for station in model.stations:
                yield from visit(station)
            state["done"] += 1
            if state["done"] == warm:
                state["t_warm"] = env.now
                for line in lines.values():
                    line.reset()
            elif state["done"] > warm:
                latencies.append(env.now - start)
                if state["done"] == warm + ops and not finished.triggered:
                    finished.succeed()

    for _ in range(cores):
        env.process(core())
    env.run(until=finished)
    for line in lines.values():
        line._account(0)
    span = env.now - state["t_warm"]
    lat = np.asarray(latencies)
    return Result(
        cores=cores,
        throughput=ops / span if span > 0 else float("inf"),
        latency_mean=float(lat.mean()), latency_p50=float(np.percentile(lat, 50)),
        latency_p99=float(np.percentile(lat, 99)),
        queue={k: l.area / span for k, l in lines.items()} if span > 0 else {},
        utilisation={k: l.busy / span for k, l in lines.items()} if span > 0 else {},
        ops=ops, sim_time=span)


def simulate_rounds(faults: Model, rearm: Model, cores: int, per_round: int, rounds: int, seed: int = 1) -> float:
    """Cores that each do `rounds` rounds of `per_round` operations through `faults`, then as many
    through `rearm` (the workload's re-arm, per operation), with no barrier: they start together and
    stay in step only as far as their queues keep them (vmscale_model.phases assumes they do).  Returns
    the operations through `faults` per time unit: all cores' over the mean time a core took."""
    for m in (faults, rearm):
        m.validate()
        if any(s.load_dependent or s.hold or s.inner for s in m.all_stations()):
            raise ValueError("simulate_rounds takes plain stations (a line's service, no holds)")
    if cores < 1 or per_round < 1 or rounds < 1:
        raise ValueError(f"cores, per_round and rounds must be >= 1, got {cores}, {per_round}, {rounds}")
    env = simpy.Environment()
    rng = random.Random(seed)
    res = {s.name: simpy.Resource(env, capacity=1) for m in (faults, rearm) for s in m.stations}
    ends = []

    def op(m: Model):
        yield env.timeout(_draw(rng, m.think, m.dist))
        for s in m.stations:
            with res[s.name].request() as req:
                yield req
                yield env.timeout(_draw(rng, s.service_at(cores), m.dist))

    def core():
        for _ in range(rounds):
            for m in (faults, rearm):
                for _ in range(per_round):
                    yield from op(m)
        ends.append(env.now)

    for _ in range(cores):
        env.process(core())
    env.run()
    return cores * rounds * per_round / (sum(ends) / len(ends))
