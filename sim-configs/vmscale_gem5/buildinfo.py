"""What a gem5 binary was built with, from `$GEM5 -B` (gem5 version, PROTOCOL,
NUMBER_BITS_PER_SET, ...), so bad runs are refused before gem5 starts simulating."""

import re
import subprocess


def parse(text: str) -> dict:
    info = {}
    m = re.search(r"gem5 version (\S+)", text)
    if m:
        info["version"] = m.group(1)
    for key, value in re.findall(r"^\s+(\w+) = (.*)$", text, re.M):
        info[key] = value.strip()
    return info


def query(gem5: str, timeout: int = 120) -> dict:
    r = subprocess.run([gem5, "-B"], capture_output=True, text=True, timeout=timeout)
    if r.returncode:
        raise RuntimeError(f"{gem5} -B failed: {r.stderr.strip()[-300:]}")
    return parse(r.stdout)


def ruby_protocol(info: dict):
    """The Ruby protocol compiled in (v24: one per binary), or None for classic-only builds."""
    if info.get("RUBY", "True").lower() in ("false", "0", "n"):
        return None
    return info.get("PROTOCOL") or None


def bits_per_set(info: dict):
    v = info.get("NUMBER_BITS_PER_SET")
    return int(v) if v and v.isdigit() else None
