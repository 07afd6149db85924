"""Interconnects as plain graphs, built and checked without gem5.

A Graph has `routers` routers, one external link per controller (controller index ->
router), and directed internal links (src, dst, latency, weight, src_port, dst_port).  The
gem5 side (sim-configs/networks.py) turns a Graph into SimpleNetwork or Garnet objects.

Controller order is the one MESITwoLevelCacheHierarchy connects: L1s (one per core), then
L2 banks, then directories (one per memory channel), then DMA controllers.
"""

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

KINDS = ("crossbar", "mesh", "ring", "pt2pt", "sockets")
CACHED_SEARCHES = 2048      # single-source searches a Graph keeps


@dataclass
class Link:
    src: int
    dst: int
    latency: int
    weight: int = 1
    src_port: str = ""
    dst_port: str = ""


@dataclass
class Graph:
    kind: str
    routers: int
    ext: list                      # ext[i] = router of controller i
    links: list = field(default_factory=list)
    router_latency: int = 1
    link_latency: int = 1
    rows: int = 0
    cols: int = 0
    placement: str = ""            # how controllers were placed, in words

    def neighbours(self):
        adj = {r: [] for r in range(self.routers)}
        for link in self.links:
            adj[link.src].append(link.dst)
        return adj

    def hops(self, a: int, b: int) -> int:
        """Router-to-router hops from router a to router b (BFS over directed links)."""
        d = self._from(a, "hops").get(b)
        if d is None:
            raise ValueError(f"{self.kind}: router {b} unreachable from {a}")
        return d

    def mean_hops(self, controllers_a, controllers_b) -> float:
        """Mean router hops between two sets of controllers (e.g. L1s to L2 banks)."""
        return self._mean("hops", controllers_a, controllers_b)

    def _from(self, a: int, kind: str) -> dict:
        """Every router's distance from router a, one search per source (cached): hops by BFS, or
        network cycles by Dijkstra.  A machine of thousands of cores has as many router pairs as
        it has pairs of cores, so a search per pair would not finish."""
        cache = self.__dict__.setdefault("_dist", {})
        if len(cache) > CACHED_SEARCHES:
            cache.clear()           # all pairs of a machine of thousands of routers do not fit in memory
        if (a, kind) not in cache:
            if kind == "hops":
                adj, best, q = self.neighbours(), {a: 0}, deque([a])
                while q:
                    r = q.popleft()
                    for n in adj[r]:
                        if n not in best:
                            best[n] = best[r] + 1
                            q.append(n)
            else:
                adj = {r: [] for r in range(self.routers)}
                for link in self.links:
                    adj[link.src].append((link.dst, link.latency))
                best, todo, done = {a: 0}, [(0, a)], set()
                while todo:
                    d, r = heapq.heappop(todo)
                    if r in done:
                        continue
                    done.add(r)
                    for n, lat in adj[r]:
                        nd = d + lat + self.router_latency
                        if nd < best.get(n, math.inf):
                            best[n] = nd
                            heapq.heappush(todo, (nd, n))
                # both end routers count: a path through k routers costs k router latencies
                best = {r: float(d + self.router_latency) for r, d in best.items()}
            cache[(a, kind)] = best
        return cache[(a, kind)]

    def _mean(self, kind: str, controllers_a, controllers_b) -> float:
        """Mean distance over the pairs of controllers: by router, each controller weighing once."""
        def per_router(cs):
            n = {}
            for c in cs:
                n[self.ext[c]] = n.get(self.ext[c], 0) + 1
            return n
        na, nb = per_router(controllers_a), per_router(controllers_b)
        if len(na) > 256:
            fast = self._mean_scipy(kind, na, nb)
            if fast is not None:
                return fast
        total = 0.0
        for a, wa in na.items():
            dist = self._from(a, kind)
            for b, wb in nb.items():
                if b not in dist:
                    raise ValueError(f"{self.kind}: router {b} unreachable from {a}")
                total += wa * wb * dist[b]
        return total / (sum(na.values()) * sum(nb.values()))

    def _mean_scipy(self, kind: str, na: dict, nb: dict):
        """_mean's sum by scipy's compiled Dijkstra from every source router at once (minutes in
        Python at thousands of routers, seconds here); None where scipy is missing (gem5's own
        Python needs no distances)."""
        try:
            import numpy as np
            from scipy.sparse import csr_matrix
            from scipy.sparse.csgraph import dijkstra
        except ImportError:
            return None
        best = {}
        for link in self.links:
            w = 1 if kind == "hops" else link.latency + self.router_latency
            best[(link.src, link.dst)] = min(w, best.get((link.src, link.dst), math.inf))
        src, dst = zip(*best) if best else ((), ())
        m = csr_matrix((list(best.values()), (src, dst)), shape=(self.routers, self.routers))
        a, wa = zip(*sorted(na.items()))
        b, wb = zip(*sorted(nb.items()))
        d = dijkstra(m, directed=True, indices=list(a))[:, list(b)]
        if not np.isfinite(d).all():
            raise ValueError(f"{self.kind}: a router is unreachable")
        if kind != "hops":
            d = d + self.router_latency
        return float(np.asarray(wa) @ d @ np.asarray(wb)) / (sum(wa) * sum(wb))

    def cycles(self, a: int, b: int) -> float:
        """Network cycles from router a to router b on the fastest path: its links' latencies plus
        router_latency for every router it passes through, both ends included (Dijkstra)."""
        if a == b:
            return float(self.router_latency)
        d = self._from(a, "cycles").get(b)
        if d is None:
            raise ValueError(f"{self.kind}: router {b} unreachable from {a}")
        return d

    def mean_cycles(self, controllers_a, controllers_b) -> float:
        """Mean network cycles between two sets of controllers (e.g. L1s to L2 banks)."""
        return self._mean("cycles", controllers_a, controllers_b)

    def check(self):
        """Every router reaches every other, link ids are unique, ports are consistent."""
        adj = self.neighbours()
        for r in range(self.routers):      # one BFS per router (not one per pair)
            seen, q = {r}, deque([r])
            while q:
                for n in adj[q.popleft()]:
                    if n not in seen:
                        seen.add(n)
                        q.append(n)
            if len(seen) < self.routers:
                missing = min(set(range(self.routers)) - seen)
                raise ValueError(f"{self.kind}: router {missing} unreachable from {r}")
        seen = set()
        for link in self.links:
            key = (link.src, link.dst, link.src_port)
            if key in seen:
                raise ValueError(f"{self.kind}: duplicate link {key}")
            seen.add(key)
        return self


def line_transfer_hops(g: Graph, cores: int, l2_banks: int = 1) -> float:
    """Router hops on a contended line's critical path per ownership transfer (MESI_Two_Level).

    The line's home L2 bank forwards a GETX to the owner L1, the owner sends the data to the
    requester, and the requester's unblock frees the line at the bank for the next request;
    under contention the next GETX is already waiting there, so its own leg overlaps.  Hence
    2 d(L1, L2) + d(L1, L1), mean over the L1s, the banks (a line's home) and L1 pairs.
    Controller order as the board connects them: L1s, then L2 banks.
    """
    l1s, banks = range(cores), range(cores, cores + l2_banks)
    # mean_hops over all L1 pairs counts each L1 with itself (0 hops): rescale to distinct pairs
    peer = g.mean_hops(l1s, l1s) * cores / (cores - 1) if cores > 1 else 0.0
    return 2 * g.mean_hops(l1s, banks) + peer


def line_transfer_cycles(g: Graph, cores: int, l2_banks: int = 1) -> float:
    """line_transfer_hops in network cycles (each path's links and routers), so that a socket
    link counts for what it costs."""
    l1s, banks = range(cores), range(cores, cores + l2_banks)
    peer = 0.0
    if cores > 1:   # distinct pairs: the mean over all pairs counts each L1 with itself
        own = sum(g.cycles(g.ext[i], g.ext[i]) for i in l1s)
        peer = (g.mean_cycles(l1s, l1s) * cores * cores - own) / (cores * (cores - 1))
    return 2 * g.mean_cycles(l1s, banks) + peer


def miss_cycles(g: Graph, cores: int, l2_banks: int, channels: int) -> dict:
    """Network cycles of an L1 miss's round trips, mean over the homes a line can have: to its L2
    bank and back (l1_bank), and from the bank to its memory channel and back (bank_memory)."""
    l1s, banks = range(cores), range(cores, cores + l2_banks)
    dirs = range(cores + l2_banks, cores + l2_banks + channels)
    return {"l1_bank": 2 * g.mean_cycles(l1s, banks), "bank_memory": 2 * g.mean_cycles(banks, dirs)}


def controller_counts(cores: int, l2_banks: int, channels: int, dma: int = 2) -> dict:
    return {"l1": cores, "l2": l2_banks, "dir": channels, "dma": dma,
            "total": cores + l2_banks + channels + dma}


def crossbar(n_ctrl: int, link_latency=1, router_latency=1) -> Graph:
    """One router per controller plus a central crossbar router: 2n links."""
    x = n_ctrl
    links = []
    for i in range(n_ctrl):
        links.append(Link(i, x, link_latency))
        links.append(Link(x, i, link_latency))
    return Graph("crossbar", n_ctrl + 1, list(range(n_ctrl)), links, router_latency, link_latency,
                 placement="one router per controller, all joined by one crossbar router")


def pt2pt(n_ctrl: int, link_latency=1, router_latency=1, limit=64) -> Graph:
    """All-to-all (what the stdlib MESI_Two_Level uses): n(n-1) links, so small n only."""
    if n_ctrl > limit:
        raise ValueError(f"pt2pt with {n_ctrl} controllers needs {n_ctrl * (n_ctrl - 1)} links; "
                         f"use crossbar, mesh or ring above {limit}")
    links = [Link(a, b, link_latency) for a in range(n_ctrl) for b in range(n_ctrl) if a != b]
    return Graph("pt2pt", n_ctrl, list(range(n_ctrl)), links, router_latency, link_latency,
                 placement="one router per controller, every pair linked")


def ring(n_routers: int, n_ctrl: int, link_latency=1, router_latency=1) -> Graph:
    """Bidirectional ring; controller i on router i mod n_routers."""
    if n_routers < 2:
        raise ValueError("a ring needs at least 2 routers")
    links = []
    for r in range(n_routers):
        nxt = (r + 1) % n_routers
        links.append(Link(r, nxt, link_latency, 1, "East", "West"))
        links.append(Link(nxt, r, link_latency, 1, "West", "East"))
    return Graph("ring", n_routers, [i % n_routers for i in range(n_ctrl)], links, router_latency, link_latency,
                 placement="controller i on router i mod routers (L1 i with core i)")


def mesh_shape(cores: int) -> tuple:
    """The squarest rows x cols with rows * cols >= cores and rows <= cols; at least 1 x 2
    (one core's L1 beside the router of the L2 bank, so a curve's 1-core point has a mesh)."""
    rows = max(1, int(cores ** 0.5))
    return rows, max(2 if rows == 1 else 1, -(-cores // rows))


def mesh(rows: int, cols: int, counts: dict, link_latency=1, router_latency=1) -> Graph:
    """2D mesh with XY routing weights (horizontal 1, vertical 2, as gem5's Mesh_XY).

    Placement: L1 of core i at router i mod (rows*cols); L2 banks spread evenly over the
    routers (bank j at router j*R/banks); directories at the corners, then along the edges;
    DMA controllers at router 0.
    """
    if rows < 1 or cols < 1:
        raise ValueError(f"mesh {rows}x{cols}: rows and cols must be >= 1")
    n = rows * cols
    ext = [i % n for i in range(counts["l1"])]
    ext += [(j * n) // counts["l2"] for j in range(counts["l2"])]
    corners = [0, cols - 1, n - cols, n - 1] + list(range(1, cols - 1))
    ext += [corners[k % len(corners)] for k in range(counts["dir"])]
    ext += [0] * counts["dma"]
    links = []
    for r in range(rows):
        for c in range(cols):
            k = r * cols + c
            if c + 1 < cols:
                links.append(Link(k, k + 1, link_latency, 1, "East", "West"))
                links.append(Link(k + 1, k, link_latency, 1, "West", "East"))
            if r + 1 < rows:
                links.append(Link(k, k + cols, link_latency, 2, "North", "South"))
                links.append(Link(k + cols, k, link_latency, 2, "South", "North"))
    return Graph("mesh", n, ext, links, router_latency, link_latency, rows, cols,
                 placement="L1 i at router i; L2 banks spread evenly; directories at corners; DMA at router 0")


def socket_links(sockets: int) -> list:
    """Socket pairs joined by a link: all pairs up to 4 sockets (each socket has 3 QPI links
    to give), and from 6 on a Moebius ladder: a ring plus a link to the opposite socket, which
    with 8 sockets is the glueless 8-socket Xeon wiring: 3 links per socket, every other socket
    one or two hops away (3 at one hop, 4 at two).  An odd count is a ring."""
    if sockets < 2:
        return []
    if sockets <= 4:
        return [(a, b) for a in range(sockets) for b in range(a + 1, sockets)]
    pairs = {tuple(sorted((s, (s + 1) % sockets))) for s in range(sockets)}
    if sockets % 2 == 0:
        pairs |= {(s, s + sockets // 2) for s in range(sockets // 2)}
    return sorted(pairs)


def sockets_graph(sockets: int, socket_cores: int, counts: dict, link_latency=1, router_latency=1,
                  socket_latency=1, port_latency=1) -> Graph:
    """A multi-socket machine: a router per socket with its controllers (core i on socket
    i // socket_cores, filled in order; the L2 banks and the directories spread evenly over the
    sockets, so each is home to an equal share of the lines when there are as many as sockets;
    DMA on socket 0), and, with more than one socket, a port router per socket (routers
    sockets..2*sockets-1: the socket's way to the others, port_latency cycles from its router)
    joined to the other sockets' ports by links of socket_latency cycles (socket_links).  A
    message to another socket crosses its port, one or two socket links, and the far port."""
    cores = counts["l1"]
    if socket_cores < 1:
        raise ValueError(f"sockets topology: socket_cores {socket_cores}: a socket needs at least one core")
    need = -(-cores // socket_cores)
    sockets = sockets or need
    if sockets < need:
        raise ValueError(f"sockets topology: {cores} cores do not fit {sockets} sockets of {socket_cores} cores")
    ext = [i // socket_cores for i in range(cores)]
    ext += [(j * sockets) // counts["l2"] for j in range(counts["l2"])]
    ext += [(k * sockets) // counts["dir"] for k in range(counts["dir"])]
    ext += [0] * counts["dma"]
    links = []
    if sockets > 1:
        for s in range(sockets):
            links.append(Link(s, sockets + s, port_latency))
            links.append(Link(sockets + s, s, port_latency))
    for a, b in socket_links(sockets):
        links.append(Link(sockets + a, sockets + b, socket_latency))
        links.append(Link(sockets + b, sockets + a, socket_latency))
    g = Graph("sockets", 2 * sockets if sockets > 1 else 1, ext, links, router_latency, link_latency,
              placement=f"{socket_cores} cores per socket, filled in order; L2 banks and directories spread "
                        "evenly over the sockets; DMA on socket 0; a port router per socket")
    g.rows, g.cols = sockets, socket_cores
    return g


def build(kind: str, counts: dict, rows: int = 0, cols: int = 0, link_latency: int = 1,
          router_latency: int = 1, sockets: int = 0, socket_cores: int = 10, socket_latency: int = 1,
          socket_port_latency: int = 1) -> Graph:
    """The graph of `kind` for these controller counts (see controller_counts)."""
    total, cores = counts["total"], counts["l1"]
    if kind == "crossbar":
        return crossbar(total, link_latency, router_latency)
    if kind == "pt2pt":
        return pt2pt(total, link_latency, router_latency)
    if kind == "ring":
        return ring(max(cores, 2), total, link_latency, router_latency)
    if kind == "mesh":
        if not rows or not cols:
            rows, cols = mesh_shape(cores)
        if rows * cols < 2:
            raise ValueError("a mesh needs at least 2 routers")
        return mesh(rows, cols, counts, link_latency, router_latency)
    if kind == "sockets":
        return sockets_graph(sockets, socket_cores, counts, link_latency, router_latency, socket_latency,
                             socket_port_latency)
    raise ValueError(f"unknown topology {kind!r}: use {', '.join(KINDS)}")
