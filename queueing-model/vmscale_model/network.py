"""The vocabulary of the model: cores in a closed loop, think time, contended stations.

A core repeats one operation: local work (think time) and then visits to shared stations
in order.  A station is a contended cache line (served one core at a time: the line's
transfer) or a lock, which holds its line across a critical section and may visit inner
stations while held.  Service times may grow with the number of cores N through an
interconnect law: service(N) = fixed + per_hop * hops(law, N).
"""

import math
from dataclasses import dataclass, field


def hops(law: str, n: int) -> float:
    """Mean hops a cache line travels between two of n cores on an interconnect."""
    n = max(int(n), 1)
    if law == "crossbar":
        return 1.0
    if law == "mesh":     # k x k mesh, XY routing: mean Manhattan distance 2(k^2-1)/(3k)
        k = math.sqrt(n)
        return max(1.0, 2 * (k * k - 1) / (3 * k))
    if law == "ring":     # bidirectional ring: n/4 on average
        return max(1.0, n / 4)
    if law == "tree":     # fat tree / hierarchy: up and down log2 n levels
        return max(1.0, math.log2(n))
    raise ValueError(f"unknown interconnect law {law!r}: use crossbar, mesh, ring or tree")


LAWS = ("crossbar", "mesh", "ring", "tree")


@dataclass(frozen=True)
class Cost:
    """A service time that depends on the core count through an interconnect law."""
    fixed: float
    per_hop: float = 0.0
    law: str = "crossbar"

    def at(self, n: int) -> float:
        return self.fixed + self.per_hop * hops(self.law, n)


def _resolve(value, n):
    return value.at(n) if isinstance(value, Cost) else float(value)


@dataclass(frozen=True)
class Station:
    """A contended cache line (kind 'line') or a lock holding its line (kind 'lock')."""
    name: str
    service: object            # float or Cost: the line's transfer time per visit
    hold: float = 0.0          # lock: critical-section work while holding
    inner: tuple = ()          # lock: stations visited while holding
    kind: str = "line"
    # Load-dependent service: each hand-off takes this much longer per other core present
    # (queued or served), as a directory that parks requests for a busy line and re-examines
    # them on every free does: service with j present = service + per_waiter * (j - 1).
    per_waiter: float = 0.0
    # A sleeping lock's hand-off: with another core waiting (j >= 2 present), each service also
    # takes the time from the release to the sleeping waiter running with the lock (its wake-up).
    handoff: float = 0.0

    def service_at(self, n: int) -> float:
        return _resolve(self.service, n)

    def service_with(self, n: int, present: int) -> float:
        """Service time when `present` cores are at the station (the one served included)."""
        return self.service_at(n) + self.per_waiter * max(0, present - 1) + (self.handoff if present >= 2 else 0.0)

    @property
    def load_dependent(self) -> bool:
        return bool(self.per_waiter or self.handoff)


@dataclass(frozen=True)
class Model:
    think: float                            # mean local work per operation
    stations: tuple = field(default_factory=tuple)
    dist: str = "exp"                       # 'exp' (product form) or 'det' (Piggin's simulator)

    def validate(self):
        if self.think < 0:
            raise ValueError(f"think time must be >= 0, got {self.think}")
        for s in self.all_stations():
            if s.service_at(1) < 0 or s.hold < 0 or s.per_waiter < 0 or s.handoff < 0:
                raise ValueError(f"station {s.name}: times must be >= 0")
            if s.load_dependent and (s.hold or s.inner):
                raise ValueError(f"station {s.name}: a load-dependent service is a line's, not a lock's")
        if self.dist not in ("exp", "det"):
            raise ValueError(f"dist must be 'exp' or 'det', got {self.dist!r}")
        return self

    def all_stations(self):
        out = []
        for s in self.stations:
            out.append(s)
            out.extend(s.inner)
        return out

    def product_form(self) -> bool:
        """Exactly solvable by MVA: exponential service, no lock holding other stations."""
        return self.dist == "exp" and all(not s.inner and s.hold == 0 for s in self.stations)

    def growth(self) -> list:
        """Per top-level station, how much its demand grows per other core present."""
        return [s.per_waiter for s in self.stations]

    def handoffs(self) -> list:
        """Per top-level station, the demand a hand-off to a waiting sleeper adds (j >= 2 present)."""
        return [s.handoff for s in self.stations]

    def demands(self, n: int) -> list:
        """Service demand per operation at each top-level station (a lock's whole hold)."""
        out = []
        for s in self.stations:
            d = s.service_at(n) + s.hold + sum(i.service_at(n) for i in s.inner)
            out.append(d)
        return out


def single_line(think: float, service, dist: str = "exp") -> Model:
    """Piggin's model: N cores, think time 1/v, one contended line with service S."""
    return Model(think=think, stations=(Station("line", service),), dist=dist).validate()
