"""Which cache lines move between the L1s during a ROI: Ruby's ProtocolTrace, read without gem5.

gem5 v24's SLICC-generated controllers print one ProtocolTrace line per transition
(src/mem/slicc/symbols/StateMachine.py: "%15d %3s %10s%20s %6s>%-6s %#x %s": tick, the
controller's version, its machine, the event, state>next state, printAddress(addr)).  In
MESI_Two_Level the L1Cache controller's version is its core's index, and the line leaves a
private cache exactly when that L1 takes

  Fwd_GETX      another core's GETX: the owner (E/M) gives the line up (the figure stats.py
                reads as L1Cache_Controller.Fwd_GETX),
  Fwd_GETS, Fwd_GET_INSTR   another core reads it: the owner downgrades to S,
  Inv           the L2 invalidates a shared copy (another core writes, or the L2 evicts).

The requester is not in the owner's line; it is the core whose miss on that line is open
(its L1 left NP/I/S for a transient state and has not reached a stable one), which the trace
also shows.  That miss's duration is the transfer's latency as the requester saw it.

Only L1 transitions that change state (and not E->M, a silent store hit) are kept by the
filter, so a trace is a few lines per miss instead of one per access.
"""

import gzip
import os
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field

# tick, version, machine, event, state>next, "[0xADDR, line 0xLINE]"
TRACE_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+L1Cache\s+(\S+)\s+(\S+)>(\S+)\s+\[0x([0-9a-fA-F]+), line 0x([0-9a-fA-F]+)\]")

STABLE = {"NP", "I", "S", "E", "M"}
MOVES = {"Fwd_GETX": "getx", "Fwd_GETS": "gets", "Fwd_GET_INSTR": "gets", "Inv": "inv"}
# A core's own miss: the request it sends for an event in a state (MESI_Two_Level-L1cache.sm).
REQUESTS = {("Load", "IS"): "GETS", ("Ifetch", "IS"): "GET_INSTR", ("Store", "IM"): "GETX",
            ("Store", "SM"): "UPGRADE"}


@dataclass(frozen=True)
class Event:
    tick: int
    core: int
    event: str
    state: str
    next: str
    line: int


@dataclass
class Transfer:
    tick: int
    line: int
    kind: str            # getx, gets or inv (see MOVES)
    owner: int           # the L1 that gave the line up or lost its copy
    requester: int       # the core whose miss caused it, -1: none open (an L2 eviction)
    request: str         # the requester's request (GETX, GETS, GET_INSTR, UPGRADE) or ""
    latency: int = -1    # ticks from the requester's miss to its completion, -1: not seen
    start: int = -1      # the tick the requester's miss began, -1: no requester
    waiting: tuple = ()  # the cores with a miss open on the line as it moved (the requester included)
    others_until: int = -1  # the latest tick a miss of the others in waiting stayed open (-1: none ended)


def parse_line(text: str):
    """One ProtocolTrace line -> Event, or None if it is not an L1Cache transition."""
    m = TRACE_RE.match(text)
    if not m:
        return None
    tick, core, event, state, nxt, _addr, line = m.groups()
    return Event(int(tick), int(core), event, state, nxt, int(line, 16))


def keep(ev: Event) -> bool:
    """What the filter keeps: line moves, and the start and end of every miss."""
    if ev.event in MOVES:
        return ev.state not in ("NP", "I")     # an Inv of a line this L1 does not hold moves nothing
    if (ev.event, ev.next) in REQUESTS and ev.state in STABLE:
        return True                            # a miss starts
    return ev.state not in STABLE and ev.next in STABLE and ev.event not in ("WB_Ack", "Inv")  # ... ends


def format_event(ev: Event) -> str:
    return f"{ev.tick} {ev.core} {ev.event} {ev.state} {ev.next} {ev.line:x}\n"


def read_events(lines):
    """Events from the filter's compact lines (or from raw ProtocolTrace lines), kept by
    today's keep() (a trace filtered more loosely reads the same)."""
    for text in lines:
        parts = text.split()
        if len(parts) == 6 and parts[0].isdigit():
            ev = Event(int(parts[0]), int(parts[1]), parts[2], parts[3], parts[4], int(parts[5], 16))
        else:
            ev = parse_line(text)
        if ev is not None and keep(ev):
            yield ev


def transfers(events):
    """The line moves of an event stream (in tick order), each with its requester and latency."""
    open_miss = defaultdict(dict)      # line -> core -> (tick, request)
    pending = defaultdict(list)        # (line, requester) -> transfers awaiting the miss's end
    watching = defaultdict(list)       # (line, core) -> transfers that core's open miss waited through
    out = []
    for ev in events:
        if ev.event in MOVES:
            misses = {c: m for c, m in open_miss[ev.line].items() if c != ev.core}
            if misses:
                req = min(misses, key=lambda c: misses[c][0])      # the L2 serves the oldest first
                t = Transfer(ev.tick, ev.line, MOVES[ev.event], ev.core, req, misses[req][1], start=misses[req][0],
                             waiting=tuple(sorted(misses)))
                pending[(ev.line, req)].append((t, misses[req][0]))
                for c in misses:
                    if c != req:
                        watching[(ev.line, c)].append(t)
            else:
                t = Transfer(ev.tick, ev.line, MOVES[ev.event], ev.core, -1, "")
            out.append(t)
            continue
        request = REQUESTS.get((ev.event, ev.next))
        if request and ev.state in STABLE:
            open_miss[ev.line][ev.core] = (ev.tick, request)
        elif ev.state not in STABLE and ev.next in STABLE and ev.core in open_miss[ev.line]:
            del open_miss[ev.line][ev.core]
            for t, start in pending.pop((ev.line, ev.core), []):
                t.latency = ev.tick - start
            for t in watching.pop((ev.line, ev.core), []):
                t.others_until = max(t.others_until, ev.tick)
    return out


@dataclass
class LineCount:
    line: int
    getx: int = 0
    gets: int = 0
    inv: int = 0
    latency_sum: int = 0
    latency_n: int = 0
    busy_sum: int = 0    # hand-offs with the next requester already waiting: ticks between them
    busy_n: int = 0
    # every gap between two forwards through which some core wanted the line: the next requester was
    # waiting, or a core that waited at the first forward still did when the next requester's miss began
    demand_sum: int = 0
    demand_n: int = 0
    # the same hand-offs where the holder and the cores waiting for it sat on more than one socket
    spread_sum: int = 0
    spread_n: int = 0
    # writes served by invalidating the line's sharers (the L2 held it shared): an ownership change
    # no forward shows, one per requester's miss however many copies it invalidated
    inv_writes: set = field(default_factory=set)
    pairs: dict = field(default_factory=lambda: defaultdict(int))   # (owner, requester) -> moves

    @property
    def moves(self) -> int:
        return self.getx + self.gets + self.inv

    @property
    def mean_latency(self) -> float:
        return self.latency_sum / self.latency_n if self.latency_n else float("nan")

    @property
    def handoff(self) -> float:
        """The line's service time under contention: the mean time between two hand-offs when
        the second requester was already waiting at the first (nan: the line never queued).
        A requester's own latency also holds its wait in the queue; this does not."""
        return self.busy_sum / self.busy_n if self.busy_n else float("nan")

    @property
    def busy_handoff(self) -> float:
        """The line's occupancy per forward while it was wanted: the mean gap between two forwards
        through which some core wanted it (nan: never).  It holds the gaps `handoff` leaves out, where
        the line went to a core that asked after others already waiting, who were served between by
        no forward (a write that invalidated sharers, a read the L2 answered): the line was busy all
        through them, so at the load where newcomers rarely win (the queue is long) the two agree."""
        return self.demand_sum / self.demand_n if self.demand_n else float("nan")

    def handoff_by_span(self) -> tuple:
        """(mean hand-off while the holder and its waiters sat on one socket, mean while they spanned
        sockets, the share of queued hand-offs that spanned); nan where none.  A queue of one
        socket's cores passes the line within it; once another socket's cores wait too, every
        hand-off pays the longer path, whichever core it goes to (per_line's socket_cores)."""
        nan = float("nan")
        one_n = self.busy_n - self.spread_n
        return ((self.busy_sum - self.spread_sum) / one_n if one_n else nan,
                self.spread_sum / self.spread_n if self.spread_n else nan,
                self.spread_n / self.busy_n if self.busy_n else nan)


def per_line(moves, socket_cores: int = 0) -> dict:
    """Transfers -> {line address: LineCount}; socket_cores: cores per socket (cores fill the
    sockets in order; 0: one socket), for LineCount.handoff_by_span."""
    lines, last = {}, {}
    for t in moves:
        if t.kind != "inv" and t.requester >= 0:
            prev = last.get(t.line)
            if prev is not None and t.start >= 0 and (t.start <= prev.tick or prev.others_until >= t.start):
                lines[t.line].demand_sum += t.tick - prev.tick
                lines[t.line].demand_n += 1
            if prev is not None and 0 <= t.start <= prev.tick:
                c = lines[t.line]
                c.busy_sum += t.tick - prev.tick
                c.busy_n += 1
                # while prev's requester held the line, the others in prev.waiting waited for it
                if socket_cores and len({core // socket_cores for core in prev.waiting}) > 1:
                    c.spread_sum += t.tick - prev.tick
                    c.spread_n += 1
            last[t.line] = t
        c = lines.setdefault(t.line, LineCount(t.line))
        setattr(c, t.kind, getattr(c, t.kind) + 1)
        if t.kind == "inv" and t.requester >= 0:
            c.inv_writes.add((t.requester, t.start))
        c.pairs[(t.owner, t.requester)] += 1
        if t.latency >= 0:
            c.latency_sum += t.latency
            c.latency_n += 1
    return lines


def timeline(ticks, begin: int, end: int, slices: int = 100) -> list:
    """How many of `ticks` fall in each of `slices` equal parts of [begin, end] (the last holds end)."""
    out = [0] * slices
    span = max(1, end - begin)
    for t in ticks:
        if begin <= t <= end:
            out[min(slices - 1, (t - begin) * slices // span)] += 1
    return out


def quiet_share(counts: list, floor: float = 0.1, least: int = 20) -> float:
    """The share of a time line's slices with fewer than `floor` times the count of its busiest tenth
    (its 90th percentile): a line's forwards over a ROI whose threads work in step (`fault`'s rounds: a
    phase of faults, then every thread checks its pages and gives them back) are quiet that share of
    the time, however hard they queue in between.  nan where the busiest tenth's slices hold fewer
    than `least` (a line that moves too rarely: its empty slices are chance, not a phase)."""
    if not counts:
        return float("nan")
    busy = sorted(counts)[min(len(counts) - 1, int(0.9 * len(counts)))]
    if busy < least:
        return float("nan")
    return sum(1 for c in counts if c < floor * busy) / len(counts)


def split_rois(events, rois):
    """Events -> one list per ROI; rois: [(begin tick, end tick)] from the run's hotlines-rois.txt."""
    out = [[] for _ in rois]
    for ev in events:
        for i, (b, e) in enumerate(rois):
            if b <= ev.tick <= e:
                out[i].append(ev)
                break
    return out


def read_rois(text: str):
    """hotlines-rois.txt ("begin TICK" / "end TICK" lines) -> [(begin, end)]; an unended ROI is dropped."""
    rois, begin = [], None
    for line in text.splitlines():
        word, _, tick = line.partition(" ")
        if word == "begin":
            begin = int(tick)
        elif word == "end" and begin is not None:
            rois.append((begin, int(tick)))
            begin = None
    return rois


def filter_stream(src, dst) -> int:
    """gem5's ProtocolTrace (a FIFO) -> the kept events; returns how many lines were read."""
    n = 0
    for text in src:
        n += 1
        ev = parse_line(text)
        if ev is not None and keep(ev):
            dst.write(format_event(ev))
    return n


def main(argv=None):
    """python3 -m vmscale_gem5.hotlines FIFO OUT.gz: vmscale_fs.py's trace filter, which runs
    beside gem5 so that a ROI's trace is kept in a few lines per miss."""
    fifo, out = (argv or sys.argv[1:])
    # Written under another name and renamed at the end (when gem5 has exited and closed the
    # FIFO): a reader never takes a trace still being written for complete.
    with open(fifo, errors="replace") as src, gzip.open(out + ".partial", "wt", compresslevel=3) as dst:
        n = filter_stream(src, dst)
    os.replace(out + ".partial", out)
    print(f"hotlines: {n} trace lines read", file=sys.stderr)


if __name__ == "__main__":
    main()
