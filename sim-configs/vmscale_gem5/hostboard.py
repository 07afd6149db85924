"""A board for the machine in front of you: its sockets, cores, caches and clock read from Linux's
sysfs and /proc/cpuinfo, turned into board option values (pure: a file-system root in, values out).

MESI_Two_Level has private L1s and one shared inclusive L2: the L1 is the host's L1D (size and
ways), the L2 stands for its last-level cache (a bank per socket, the LLC of one socket each,
rounded to a power of two as Ruby's sets need), and a machine of several sockets gets the sockets
topology.  The link latencies come from a line-transfer latency measured on the host (ccbench, run
natively), through the relation the reference board's calibration gave (results/gem5-calibration:
same-socket transfer = 3.0 x link latency + 8 cycles at router latency 3); `vmscale calibrate` on
the twin checks it.
"""

import math
import re
from pathlib import Path

# results/gem5-calibration: link latency 15, 26, 36 -> same-socket load 53, 86, 116 cycles (router 3).
LINK_SLOPE, LINK_INTERCEPT, ROUTER = 3.0, 8.0, 3


def _read(path: Path):
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _kib(text: str) -> int:
    m = re.fullmatch(r"(\d+)([KMG]?)", text or "")
    if not m:
        raise ValueError(f"cache size {text!r}: not a size sysfs writes")
    return int(m[1]) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024 * 1024}[m[2]]


def _cpus(listing: str) -> list:
    out = []
    for part in (listing or "").split(","):
        if "-" in part:
            a, b = part.split("-")
            out += range(int(a), int(b) + 1)
        elif part:
            out.append(int(part))
    return out


def read(root="/") -> dict:
    """The host as sysfs describes it: cpus, sockets, cores per socket, clock, L1D and LLC."""
    root = Path(root)
    base = root / "sys/devices/system/cpu"
    cpus = sorted(int(p.name[3:]) for p in base.glob("cpu[0-9]*") if (p / "topology").is_dir())
    if not cpus:
        raise ValueError(f"{base}: no CPU topology (not Linux's sysfs?)")
    packages = {}
    for c in cpus:
        pkg = _read(base / f"cpu{c}/topology/physical_package_id") or "0"
        packages.setdefault(int(pkg), []).append(c)
    caches = []
    for index in sorted((base / f"cpu{cpus[0]}/cache").glob("index[0-9]*")):
        kind = _read(index / "type")
        if kind in ("Data", "Unified"):
            caches.append({"level": int(_read(index / "level")), "type": kind, "size_kib": _kib(_read(index / "size")),
                           "ways": int(_read(index / "ways_of_associativity") or 0),
                           "shared_cpus": len(_cpus(_read(index / "shared_cpu_list")))})
    if not caches:
        raise ValueError(f"{base}/cpu{cpus[0]}/cache: no cache description")
    l1 = min(caches, key=lambda c: c["level"])
    llc = max(caches, key=lambda c: c["level"])
    info = _read(root / "proc/cpuinfo") or ""
    mhz = [float(m) for m in re.findall(r"^cpu MHz\s*:\s*([\d.]+)", info, re.M)]
    model = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    return {"cpus": len(cpus), "sockets": len(packages), "socket_cores": max(len(v) for v in packages.values()),
            "clock_mhz": max(mhz) if mhz else None, "model": model[1].strip() if model else None,
            "l1d": l1, "llc": llc}


def link_latency(same_socket_cycles: float) -> int:
    """The link latency whose same-socket transfer is the measured one (the calibration's line)."""
    return max(1, round((same_socket_cycles - LINK_INTERCEPT) / LINK_SLOPE))


def values(desc: dict, same_socket_cycles=None) -> dict:
    """Board option values of the host's twin."""
    llc = desc["llc"]
    # the LLC of one socket: all of it when every CPU of the socket shares it, else per group x groups
    per_socket = llc["size_kib"] * max(1, desc["socket_cores"] // max(1, llc["shared_cpus"]))
    out = {"l1_size": int(desc["l1d"]["size_kib"]), "l1_assoc": desc["l1d"]["ways"],
           "l2_size": 2 ** round(math.log2(per_socket)), "l2_assoc": llc["ways"]}
    if desc["clock_mhz"]:
        out["clock"] = f"{desc['clock_mhz'] / 1000:.1f}GHz"
    # the sockets topology even for one socket: the calibration's latencies were measured on it
    out.update(topology="sockets", socket_cores=desc["socket_cores"], l2_banks=0)
    if same_socket_cycles:
        out.update(link_latency=link_latency(same_socket_cycles), router_latency=ROUTER)
    return out


def label(vals: dict) -> str:
    """The `--gem5` options of the twin, as a board label reads them (KEY=VALUE, space-separated)."""
    return " ".join(f"{k}={v}" for k, v in sorted(vals.items()))
