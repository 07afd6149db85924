"""What a gem5 binary was built with (gem5 version, PROTOCOL, NUMBER_BITS_PER_SET, ...), so
bad runs are refused before gem5 starts simulating.  gem5 runs sim-configs/vmscale_buildinfo.py,
which prints one JSON line; `gem5 -B` output is parsed too (it fails in v24.0.0.1)."""

import json
import re
import subprocess
import tempfile
from pathlib import Path

PROBE = Path(__file__).resolve().parents[1] / "vmscale_buildinfo.py"


def parse(text: str) -> dict:
    info = {}
    m = re.search(r"gem5 version (\S+)", text)
    if m:
        info["version"] = m.group(1)
    for key, value in re.findall(r"^\s+(\w+) = (.*)$", text, re.M):
        info[key] = value.strip()
    return info


def parse_probe(text: str) -> dict:
    for line in text.splitlines():
        if line.startswith("VMSCALE-BUILDINFO "):
            return json.loads(line.split(" ", 1)[1])
    return {}


def query(gem5: str, timeout: int = 180) -> dict:
    with tempfile.TemporaryDirectory(prefix="vmscale-buildinfo-") as out:   # gem5 writes an m5out
        r = subprocess.run([gem5, "-q", "-d", out, str(PROBE)], capture_output=True, text=True, timeout=timeout)
    info = parse_probe(r.stdout)
    if r.returncode or not info:
        raise RuntimeError(f"{gem5} could not run {PROBE.name}: {(r.stderr or r.stdout).strip()[-300:]}")
    return info


def ruby_protocol(info: dict):
    """The Ruby protocol compiled in (v24: one per binary), or None for classic-only builds."""
    if info.get("RUBY", "True").lower() in ("false", "0", "n"):
        return None
    return info.get("PROTOCOL") or None


def bits_per_set(info: dict):
    v = info.get("NUMBER_BITS_PER_SET")
    return int(v) if v and v.isdigit() else None


def x2apic(info: dict):
    """Whether the binary has vmscale's x2APIC patches (None: a probe that did not say)."""
    v = info.get("VMSCALE_X2APIC")
    return None if v is None else v == "True"


def has_x2apic(objects) -> bool:
    """Given m5.objects (inside gem5): the patches' visible parts are there, the MADT x2APIC
    record, the I/O APIC's 15-bit destination IDs and the x2APIC hand-over."""
    return (hasattr(objects, "X86ACPIMadtLx2APIC") and "extended_dest_id" in objects.I82094AA._params
            and "enable_x2apic" in objects.X86FsWorkload._params)
