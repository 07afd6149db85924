"""`vmscale collect`: many run directories -> one tidy CSV table."""

from pathlib import Path

from vmscale.errors import VmscaleError
from vmscale.fileutil import atomic_write_text
from vmscale.rundir import load_rows, rows_to_csv


def collect(run_dirs, output) -> Path:
    rows = []
    for d in run_dirs:
        d = Path(d)
        if not d.is_dir():
            raise VmscaleError(f"{d} is not a directory")
        if (d / "manifest.json").is_file():
            rows += load_rows(d)
        else:  # a parent of run directories: take its complete children
            children = sorted(c for c in d.iterdir() if (c / "manifest.json").is_file())
            if not children:
                raise VmscaleError(f"{d} holds no complete run directory")
            for c in children:
                rows += load_rows(c)
    atomic_write_text(output, rows_to_csv(rows))
    return Path(output)
