"""The machine in front of you as Linux's sysfs and /proc/cpuinfo describe it: sockets, cores,
caches and clock (pure: a file-system root in, a description out).  board.twin turns a
description into the options of the board that stands for it.
"""

import math
import re
from pathlib import Path

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
    cpus = sorted(int(p.name[3:]) for p in base.glob("cpu[0-9]*") if (p / "topology/physical_package_id").is_file())
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
    return {"cpus": len(cpus), "sockets": len(packages), "cores_per_socket": max(len(v) for v in packages.values()),
            "clock_mhz": max(mhz) if mhz else None, "model": model[1].strip() if model else None,
            "l1d": l1, "llc": llc}
