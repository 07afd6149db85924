"""Boots that outlive a batch job: decisions for cutting a gem5 boot at a host-time limit and
continuing it in the next job (pure logic; vmscale_fs.py and the gem5 backend do the I/O).

A boot still running at --max-host-seconds saves a checkpoint as the next "leg" in the
boot's resume directory and exits with EXIT_RESUME; the next run continues from the newest
complete leg.  Legs are numbered, never overwritten: a job killed while saving leaves an
incomplete leg (no m5.cpt) that is ignored.
"""

import re
from pathlib import Path

EXIT_RESUME = 75          # EX_TEMPFAIL: saved at the host-time limit; run the same command again
LEG = re.compile(r"^leg-(\d{4})$")
# Host time kept back from a Slurm job's limit: a boot is checked for the limit once per
# progress period (minutes of host time at 16+ cores), then saves its checkpoint.
SLURM_MARGIN_S = 900


def legs(resume_dir: Path) -> list:
    """Complete legs, oldest first."""
    if not resume_dir.is_dir():
        return []
    found = []
    for d in resume_dir.iterdir():
        m = LEG.match(d.name)
        if m and (d / "m5.cpt").is_file():
            found.append((int(m.group(1)), d))
    return [d for _, d in sorted(found)]


def latest_leg(resume_dir: Path):
    done = legs(resume_dir)
    return done[-1] if done else None


def next_leg(resume_dir: Path) -> Path:
    """A fresh leg directory name after every existing one (complete or not)."""
    used = [int(m.group(1)) for d in (resume_dir.iterdir() if resume_dir.is_dir() else [])
            if (m := LEG.match(d.name))]
    return resume_dir / f"leg-{max(used, default=0) + 1:04d}"


def slurm_seconds(text: str):
    """Seconds in Slurm's time format ([D-]HH:MM:SS, MM:SS, MM), None for no limit."""
    text = text.strip()
    if not text or text.upper() in ("UNLIMITED", "INFINITE", "NOT_SET", "INVALID"):
        return None
    days = 0
    if "-" in text:
        d, text = text.split("-", 1)
        days = int(d)
    parts = [int(p) for p in text.split(":")]
    if len(parts) == 1:
        h, m, s = 0, parts[0], 0
    elif len(parts) == 2:
        h, m, s = 0, parts[0], parts[1]
    elif len(parts) == 3:
        h, m, s = parts
    else:
        raise ValueError(f"not a Slurm time: {text!r}")
    return ((days * 24 + h) * 60 + m) * 60 + s


def host_limit(explicit, slurm_left_s, margin_s: int = SLURM_MARGIN_S):
    """The --max-host-seconds to give a boot: the user's, else the Slurm job's time left minus
    a margin (at least a minute), else none (0)."""
    if explicit:
        return float(explicit)
    if slurm_left_s is None:
        return 0
    return float(max(60, slurm_left_s - margin_s))
