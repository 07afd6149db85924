"""gem5 networks built from vmscale_gem5.topology graphs (SimpleNetwork or Garnet).

MESITwoLevelCacheHierarchy calls a module-level SimplePt2Pt(ruby_system) and then
network.connectControllers(controllers) and network.setup_buffers(); `use(graph_factory)`
rebinds that name so the hierarchy builds our network instead.
"""

import gem5.components.cachehierarchies.ruby.mesi_two_level_cache_hierarchy as m2l
from m5.objects import (
    GarnetExtLink,
    GarnetIntLink,
    GarnetNetwork,
    GarnetNetworkInterface,
    GarnetRouter,
    SimpleExtLink,
    SimpleIntLink,
    SimpleNetwork,
    Switch,
)


class GraphSimpleNetwork(SimpleNetwork):
    """Ruby's simple network laid out as a vmscale topology graph."""

    def __init__(self, ruby_system, make_graph, bandwidth_factor=16):
        super().__init__()
        self.netifs = []
        self.ruby_system = ruby_system
        self._make_graph = make_graph
        self._bw = bandwidth_factor

    def connectControllers(self, controllers):
        g = self._make_graph(len(controllers))
        self.routers = [Switch(router_id=i, latency=g.router_latency) for i in range(g.routers)]
        self.ext_links = [SimpleExtLink(link_id=i, ext_node=c, int_node=self.routers[g.ext[i]],
                                        latency=g.link_latency, bandwidth_factor=self._bw)
                          for i, c in enumerate(controllers)]
        base = len(controllers)
        self.int_links = [SimpleIntLink(link_id=base + k, src_node=self.routers[l.src],
                                        dst_node=self.routers[l.dst], latency=l.latency, weight=l.weight,
                                        bandwidth_factor=self._bw)
                          for k, l in enumerate(g.links)]


class GraphGarnetNetwork(GarnetNetwork):
    """Garnet laid out as a vmscale topology graph; XY routing on meshes."""

    def __init__(self, ruby_system, make_graph, flit_bytes=16, vcs_per_vnet=4):
        super().__init__()
        self.ruby_system = ruby_system
        self._make_graph = make_graph
        self.ni_flit_size = flit_bytes
        self.vcs_per_vnet = vcs_per_vnet

    def connectControllers(self, controllers):
        g = self._make_graph(len(controllers))
        if g.kind == "mesh":
            self.num_rows = g.rows
            self.routing_algorithm = 1  # XY
        self.routers = [GarnetRouter(router_id=i, latency=g.router_latency) for i in range(g.routers)]
        self.ext_links = [GarnetExtLink(link_id=i, ext_node=c, int_node=self.routers[g.ext[i]],
                                        latency=g.link_latency)
                          for i, c in enumerate(controllers)]
        self.netifs = [GarnetNetworkInterface(id=i) for i in range(len(controllers))]
        base = len(controllers)
        self.int_links = [GarnetIntLink(link_id=base + k, src_node=self.routers[l.src],
                                        dst_node=self.routers[l.dst], src_outport=l.src_port,
                                        dst_inport=l.dst_port, latency=l.latency, weight=l.weight)
                          for k, l in enumerate(g.links)]

    def setup_buffers(self):
        pass  # Garnet sizes its own buffers


def use(network: str, make_graph, **kw):
    """Make MESITwoLevelCacheHierarchy build this network (call before the board is built)."""
    cls = {"simple": GraphSimpleNetwork, "garnet": GraphGarnetNetwork}[network]
    m2l.SimplePt2Pt = lambda ruby_system: cls(ruby_system, make_graph, **kw)
