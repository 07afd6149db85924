"""The gem5 board: every option vmscale sets, once, with its type, default and role.

A Board is a complete, typed assignment of these options.  Every caller derives what it
needs from it instead of keeping its own list of option names:
- the boot checkpoint's key and argv (`boot_items`, `boot_argv`): options of role BOOT;
- the restore's argv (`restore_argv`): every option;
- the row label (`label`, `parse`): what differs from the board's base, observers left out;
- the Slurm checkpoint list (`checkpoint_groups`): one boot per (cores, boot items);
- the model's transfer-hop inputs (`transfer_hops`, `hop_cycles`).
sim-configs/vmscale_fs.py builds its argument parser from OPTIONS (options.parser).

Roles:
- BOOT: the checkpoint depends on it (a boot made with another value cannot be restored).
- RESTORE: only the restored run sees it.  Ruby starts cold after a restore (the boot bypasses
  it and the checkpoint's Ruby cache trace is empty) and a checkpoint's network sections hold
  only power state and empty buffers, so one boot serves every L1 associativity, L2 geometry
  and interconnect (tests/test_gem5_real.py restores one checkpoint into several).  The CPU
  model is a restore option: boots always use the atomic (or KVM) CPU.
- OBSERVER: watches a run without changing a simulated figure (not part of the label).

Named boards (`board=NAME`) are presets of these values; a row's label names the preset and
only what differs from it, so `board=NAME` alone is that board exactly.  A twin (`board=host`,
this machine read from sysfs; `board=FILE.json`, what `vmscale board describe --json` wrote)
is the unnamed base with the twin's values as explicit options.  The unnamed base is
the board every record before named boards used (label '' = every option at its default).
"""

import functools
import math
from dataclasses import dataclass

from vmscale_gem5 import limits, topology

BOOT, RESTORE, OBSERVER = "boot", "restore", "observer"


@dataclass(frozen=True)
class Option:
    name: str
    type: type
    default: object
    role: str
    help: str
    choices: tuple = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parse(self, value):
        """A value as given on a command line, in a label or a sweep spec -> its type."""
        try:
            v = self.type(value)
        except (TypeError, ValueError):
            raise limits.ConfigError(f"gem5 option {self.name}={value!r}: not {self.type.__name__}") from None
        if self.choices and v not in self.choices:
            raise limits.ConfigError(f"gem5 option {self.name}={value}: use one of "
                                     f"{', '.join(map(str, self.choices))}")
        return v


OPTIONS = (
    Option("cpu", str, "timing", RESTORE, "CPU model of the measured run (the boot uses atomic or kvm)",
           limits.CPU_TYPES),
    Option("tail_cpu", str, "", RESTORE, "CPU model outside the ROIs (from the restore to the first workbegin, and "
           "after each workend): '' the same as cpu; timing gives an O3 run's set-up and tear-down Timing's host "
           "time (the ROIs stay O3; each switch drains the pipeline)", ("", "timing", "o3")),
    Option("clock", str, "3GHz", BOOT, "board clock, e.g. 3GHz (the kernel is told its APIC timer rate)"),
    Option("memory", int, 2048, BOOT, "MiB"),
    Option("mem_channels", int, 1, BOOT, "memory channels (one directory each)"),
    Option("l1_size", int, 32, BOOT, "KiB, L1I and L1D each"),
    Option("x2apic", str, "auto", BOOT, "the cores' APIC mode: auto is x2APIC from 255 cores on (needs "
           "vmscale's gem5 patches), xAPIC below; on puts smaller systems in x2APIC mode too",
           limits.X2APIC_MODES),
    Option("l1_assoc", int, 8, RESTORE, "L1 ways"),
    Option("l2_size", int, 256, RESTORE, "KiB per L2 bank"),
    Option("l2_assoc", int, 16, RESTORE, "L2 ways"),
    Option("l2_banks", int, 1, RESTORE, "L2 banks (address-interleaved, one shared inclusive L2); 0: one per "
           "socket (the sockets topology), rounded up to a power of two"),
    Option("topology", str, "crossbar", RESTORE, "interconnect graph", topology.KINDS),
    Option("network", str, "simple", RESTORE, "Ruby network model", ("simple", "garnet")),
    Option("mesh_rows", int, 0, RESTORE, "mesh rows (0: the squarest mesh)"),
    Option("mesh_cols", int, 0, RESTORE, "mesh columns (0: the squarest mesh)"),
    Option("sockets", int, 0, RESTORE, "sockets topology: sockets of the machine (0: as many as the cores fill)"),
    Option("socket_cores", int, 10, RESTORE, "sockets topology: cores per socket, filled socket by socket"),
    Option("socket_latency", int, 1, RESTORE, "sockets topology: cycles of a link between two sockets"),
    Option("socket_port_latency", int, 1, RESTORE, "sockets topology: cycles between a socket's router and its "
           "port to the other sockets (each way)"),
    Option("link_latency", int, 1, RESTORE, "cycles per link"),
    Option("router_latency", int, 1, RESTORE, "cycles per router"),
    Option("link_bandwidth", int, 16, RESTORE, "bytes per cycle"),
    Option("hotlines", int, 0, OBSERVER, "1: trace every L1 line move during each ROI (Ruby ProtocolTrace, "
           "filtered beside gem5 into hotlines.events.gz; read by `vmscale hotlines`).  Slows a ROI several "
           "times: use short ROIs", (0, 1)),
    Option("roi_profile", int, 0, OBSERVER, "N > 0: every roi_profile_period us of each ROI, trace N ns of every "
           "CPU's instructions with their kernel symbols (m5out/trace.out.gz; `vmscale threads` reads it)"),
    Option("roi_profile_period", int, 100, OBSERVER, "us between roi_profile's windows: longer for a shorter "
           "trace of a large machine (a window must still hold the holds it times)"),
    Option("roi_profile_start", int, 0, OBSERVER, "us of each ROI before roi_profile's first window, untraced: "
           "past a start-up transient (at 160 cores every mmap_lock waiter spins for its first ms); the "
           "profiled span then begins at the first window (profile-rois.txt)"),
)
BY_NAME = {o.name: o for o in OPTIONS}
NAMES = tuple(BY_NAME) + ("board",)    # what a user may set: --gem5 KEY=VALUE, a sweep's gem5.KEY
DEFAULTS = {o.name: o.default for o in OPTIONS}

# Named boards: option values on top of the defaults.  See README "Boards" for where each
# number comes from.
PRESETS = {
    "": {},
    # The seeds' machine (Bonsai, RadixVM): 8 x 10-core Xeon E7-8870, 2.4 GHz, 32 KiB L1I and L1D per
    # core, 30 MiB L3 per socket, glueless QPI (every socket one or two hops away).  MESI_Two_Level has
    # private L1s and one shared inclusive L2: the L2 stands for the L3, a 32 MiB bank per socket (the
    # power of two nearest 30 MiB; the per-core 256 KiB L2 of the chip is not modelled).  Lines are
    # interleaved over the banks, so a line's home is on any socket, as with the BIOS's node
    # interleaving.  Memory: 8 channels whatever the core count (a boot option, so it cannot follow
    # the sockets of a restore), spread over the sockets.  Latencies: calibrated against mctop's
    # diassrv8 (same socket 116, one hop 341, two hops 458 cycles): see results/gem5-calibration.
    "e7-8870": {"clock": "2.4GHz", "mem_channels": 8, "l1_size": 32, "l1_assoc": 8, "l2_size": 32768,
                "l2_assoc": 16, "l2_banks": 0, "topology": "sockets", "socket_cores": 10,
                "link_latency": 36, "router_latency": 3, "socket_latency": 56, "socket_port_latency": 25},
}


# results/gem5-calibration: link latency 15, 26, 36 -> same-socket load 53, 86, 116 cycles (router 3).
TWIN_LINK_SLOPE, TWIN_LINK_INTERCEPT, TWIN_ROUTER = 3.0, 8.0, 3


def twin_link_latency(same_socket_cycles: float) -> int:
    """The link latency whose same-socket transfer is the measured one (the calibration's line)."""
    return max(1, round((same_socket_cycles - TWIN_LINK_INTERCEPT) / TWIN_LINK_SLOPE))


def _pow2_near(x) -> int:
    return 2 ** round(math.log2(max(1, x)))


def twin(desc: dict, same_socket_cycles=None) -> dict:
    """Option values of the board that stands for a host (hostboard.read's description).

    MESI_Two_Level has private L1s and one shared inclusive L2: the L1 is the host's L1D (size
    and ways); the L2 stands for its last-level cache, a bank per socket holding one socket's
    LLC; sizes and ways rounded to powers of two, as Ruby's sets need.  The sockets topology even for one
    socket: the calibration's latencies were measured on it.  Link latencies come from a
    line-transfer latency measured on the host (ccbench, natively) through the relation the
    reference board's calibration gave; `vmscale calibrate` on the twin checks it."""
    llc = desc["llc"]
    # the LLC of one socket: all of it when every CPU of the socket shares it, else per group x groups
    per_socket = llc["size_kib"] * max(1, desc["cores_per_socket"] // max(1, llc["shared_cpus"]))
    # Ruby needs a power-of-two size and sets (limits.check_cache), so power-of-two ways too: each
    # rounded to the nearest in ratio (a 48 KiB 12-way L1D becomes 64 KiB 16-way, its 64 sets kept)
    out = {"l1_size": _pow2_near(desc["l1d"]["size_kib"]), "l1_assoc": _pow2_near(desc["l1d"]["ways"]),
           "l2_size": _pow2_near(per_socket), "l2_assoc": _pow2_near(llc["ways"])}
    if desc["clock_mhz"]:
        out["clock"] = f"{desc['clock_mhz'] / 1000:.1f}GHz"
    out.update(topology="sockets", socket_cores=desc["cores_per_socket"], l2_banks=0)
    if same_socket_cycles:
        out.update(link_latency=twin_link_latency(same_socket_cycles), router_latency=TWIN_ROUTER)
    return out


HOST = "host"     # board=host: this machine's twin; board=FILE.json: a twin `vmscale board describe` wrote


def is_twin(name: str) -> bool:
    return name == HOST or name.endswith(".json")


def twin_options(name: str) -> dict:
    """The options of board=host (this machine's sysfs, default latencies) or of a board file
    (the "options" of `vmscale board describe --json`, measured latencies included)."""
    import json
    from pathlib import Path
    if name == HOST:
        from vmscale_gem5 import hostboard
        try:
            return twin(hostboard.read("/"))
        except ValueError as e:
            raise limits.ConfigError(f"board=host: {e}") from None
    try:
        data = json.loads(Path(name).read_text())
    except (OSError, ValueError) as e:
        raise limits.ConfigError(f"board={name}: not a board file ({e})") from None
    opts = data.get("options", data) if isinstance(data, dict) else None
    if not isinstance(opts, dict):
        raise limits.ConfigError(f"board={name}: no options (write one with `vmscale board describe --json FILE`)")
    opts = {k.replace("-", "_"): v for k, v in opts.items()}
    bad = sorted(k for k in opts if k not in BY_NAME)
    if bad:
        raise limits.ConfigError(f"board={name}: {', '.join(bad)}: not gem5 options vmscale sets")
    return opts


def next_pow2(n: int) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


def role_names(role: str) -> tuple:
    return tuple(o.name for o in OPTIONS if o.role == role)


@dataclass(frozen=True)
class Board:
    name: str          # the preset ('' the unnamed base)
    values: tuple      # ((option, typed value), ...) in OPTIONS order, every option

    # --- construction ------------------------------------------------------------------
    @classmethod
    def make(cls, opts=None) -> "Board":
        """From user options: a dict (strings or typed values, '-' or '_' in keys) or a label
        string 'key=value ...'.  Unknown keys and bad values raise limits.ConfigError."""
        if isinstance(opts, str):
            opts = parse_label(opts)
        given = {}
        for key, value in (opts or {}).items():
            key = key.replace("-", "_")
            if key not in NAMES:
                raise limits.ConfigError(f"{key!r} is not a gem5 option vmscale sets (use one of "
                                         f"{', '.join(NAMES)})")
            given[key] = value
        name = str(given.pop("board", "") or "")
        if name == "default":
            name = ""
        if is_twin(name):
            # a twin: its values become explicit options on the unnamed base, so the label
            # names every one of them and re-makes the board on any machine
            given = dict(twin_options(name), **given)
            name = ""
        if name not in PRESETS:
            raise limits.ConfigError(f"board={name}: no such board (known: "
                                     f"{', '.join(n or 'default' for n in PRESETS)})")
        values = dict(DEFAULTS, **{k: BY_NAME[k].parse(v) for k, v in PRESETS[name].items()})
        values.update({k: BY_NAME[k].parse(v) for k, v in given.items()})
        return cls(name, tuple((o.name, values[o.name]) for o in OPTIONS))

    def get(self, key):
        return dict(self.values)[key]

    def __getattr__(self, key):
        if key in BY_NAME:
            return self.get(key)
        raise AttributeError(key)

    def _base(self) -> dict:
        return dict(DEFAULTS, **{k: BY_NAME[k].parse(v) for k, v in PRESETS[self.name].items()})

    def changed(self, roles=(BOOT, RESTORE, OBSERVER)) -> list:
        """(option, value) of the given roles that differ from the preset's own values."""
        base = self._base()
        return [(k, v) for k, v in self.values if BY_NAME[k].role in roles and v != base[k]]

    # --- what callers need -------------------------------------------------------------
    def label(self) -> str:
        """The row label: 'board=NAME' and what differs from it (observers left out); '' for
        the unnamed base.  parse(label) gives this board back."""
        words = [f"board={self.name}"] if self.name else []
        return " ".join(words + [f"{k}={str(v)}" for k, v in sorted(self.changed((BOOT, RESTORE)))])

    def options(self) -> dict:
        """What differs from the defaults, as strings (a manifest's gem5_options, a job's gem5)."""
        out = {"board": self.name} if self.name else {}
        return out | {k: str(v) for k, v in self.values if v != DEFAULTS[k]}

    def boot_items(self) -> tuple:
        """The options a boot checkpoint depends on, where they differ from the defaults (so a
        new boot option with a default keeps every existing checkpoint key)."""
        return tuple((k, str(v)) for k, v in self.values if BY_NAME[k].role == BOOT and v != DEFAULTS[k])

    def boot_argv(self, cores: int) -> list:
        """vmscale_fs.py arguments for the boot (with --mode checkpoint)."""
        args = ["--cores", str(cores)]
        for k, v in self.boot_items():
            args += [BY_NAME[k].flag, v]
        return args

    def restore_argv(self, cores: int) -> list:
        """vmscale_fs.py arguments for the restored run: the boot's, then every other option
        that differs from its default (the CPU model always)."""
        args = self.boot_argv(cores) + ["--cpu", self.cpu]
        for k, v in self.values:
            if BY_NAME[k].role != BOOT and k != "cpu" and v != DEFAULTS[k]:
                args += [BY_NAME[k].flag, str(v)]
        return args

    def namespace(self, cores: int):
        """vmscale_fs.py's parsed arguments for this board (no kernel or disk), resolved."""
        from vmscale_gem5 import options
        return options.resolve(options.parser().parse_args(["--kernel", "-", "--disk", "-"] + self.restore_argv(cores)))

    def check(self, cores: int):
        """What this board cannot be at this core count, before gem5 starts (limits.ConfigError)."""
        a = self.namespace(cores)
        if a.topology == "sockets":
            if a.socket_cores < 1:
                raise limits.ConfigError(f"socket_cores={a.socket_cores}: a socket needs at least one core")
            if a.sockets and a.sockets * a.socket_cores < cores:
                raise limits.ConfigError(f"{cores} cores do not fit sockets={a.sockets} of socket_cores="
                                         f"{a.socket_cores}: give more sockets, or sockets=0 (as many as needed)")
        limits.check_cache(a.l1_size, a.l2_size, a.l2_banks, a.mem_channels, a.l1_assoc, a.l2_assoc)
        short = llc_shortfall(cores, a.l1_size, a.l2_size * a.l2_banks)
        if short and self.name:
            raise limits.ConfigError(short + ": raise l2_size or l2_banks")
        return short

    def graph(self, cores: int):
        """The interconnect at `cores` (the last few kept: a graph keeps its distances, which at
        thousands of cores take minutes to search)."""
        return _graph(self, cores)

    def transfer_hops(self, cores: int) -> float:
        """Router hops per ownership transfer of a contended line (topology.line_transfer_hops)."""
        return topology.line_transfer_hops(self.graph(cores), cores, self.namespace(cores).l2_banks)

    def transfer_cycles(self, cores: int) -> float:
        """Network cycles per ownership transfer of a contended line (topology.line_transfer_cycles)."""
        return _transfer_cycles(self, cores)

    def miss_cycles(self, cores: int) -> dict:
        """Network cycles of an L1 miss's round trips to its home bank and its memory channel, mean
        over the homes (topology.miss_cycles): what spreading over more sockets adds to a miss."""
        return dict(_miss_cycles(self, cores))

    def hop_cycles(self) -> int:
        """Cycles a message spends per router hop: the router's and the link's latency."""
        return self.router_latency + self.link_latency


def llc_shortfall(cores: int, l1_kib: int, llc_kib: int) -> str:
    """'' when the inclusive L2 can hold every L1 (I and D) it must include, else why not.  The
    unnamed base board (the records before named boards) is only warned about; a named board
    with it is refused: above that size the figures measure the L2's evictions, not sharing."""
    need = cores * 2 * l1_kib
    if llc_kib >= need:
        return ""
    return (f"the inclusive L2 ({llc_kib} KiB) is smaller than the {cores} cores' L1s it must hold "
            f"({need} KiB)")


@functools.lru_cache(maxsize=4)
def _graph(board: Board, cores: int):
    from vmscale_gem5 import options
    a = board.namespace(cores)
    return options.graph(a)(topology.controller_counts(cores, a.l2_banks, a.mem_channels)["total"])


# the distances, kept per board and core count: a model asks for them at every count it predicts
@functools.lru_cache(maxsize=256)
def _transfer_cycles(board: Board, cores: int) -> float:
    return topology.line_transfer_cycles(board.graph(cores), cores, board.namespace(cores).l2_banks)


@functools.lru_cache(maxsize=256)
def _miss_cycles(board: Board, cores: int) -> tuple:
    a = board.namespace(cores)
    return tuple(topology.miss_cycles(board.graph(cores), cores, a.l2_banks, a.mem_channels).items())


def with_sockets(label: str):
    """The board of a row label when its topology is sockets, else None: its distances carry a
    curve fitted on its first sockets past them (vmscale_model.sockets).  A label this vmscale
    cannot make (an older option) is None too: such a curve is judged without them."""
    try:
        b = Board.make(label)
        return b if b.namespace(1).topology == "sockets" else None
    except limits.ConfigError:
        return None


def parse_label(label: str) -> dict:
    """'key=value ...' -> {key: value} (strings); a word without '=' is refused."""
    out = {}
    for word in (label or "").split():
        key, sep, value = word.partition("=")
        if not sep:
            raise limits.ConfigError(f"board label {label!r}: {word!r} is not KEY=VALUE")
        out[key] = value
    return out


def checkpoint_groups(jobs) -> list:
    """One boot per (cores, boot options): [(cores, boot items)] for jobs given as
    (cores, options) pairs, sorted; restore-only options never make another boot."""
    return sorted({(int(cores), Board.make(opts).boot_items()) for cores, opts in jobs})
