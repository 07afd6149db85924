"""`vmscale collect`: many run directories -> one tidy CSV table."""

from pathlib import Path

from vmscale.errors import VmscaleError
from vmscale.fileutil import atomic_write_text
from vmscale.rundir import load_rows, rows_to_csv


# What makes two rows the same case (for replace=True).
CASE_KEYS = ("workload", "kernel_variant", "cores", "backend", "gem5.board")


def case_of(row: dict) -> tuple:
    return tuple(str(row.get(k, "")) for k in CASE_KEYS)


def replaced(groups: list) -> list:
    """Rows of several argument groups, where a case (CASE_KEYS) that a later group measures drops
    every row of it from the earlier groups: a re-made record listed after the one it supersedes."""
    out = []
    for rows in groups:
        cases = {case_of(r) for r in rows}
        out = [r for r in out if case_of(r) not in cases] + rows
    return out


def collect(run_dirs, output, restat: bool = False, replace: bool = False) -> Path:
    groups, dirs = [], []
    for d in run_dirs:
        d = Path(d)
        if not d.is_dir():
            raise VmscaleError(f"{d} is not a directory")
        if (d / "manifest.json").is_file():
            groups.append(load_rows(d, restat))
            dirs.append(d)
        else:  # a parent of run directories: take its complete children
            children = sorted(c for c in d.iterdir() if (c / "manifest.json").is_file())
            if not children:
                raise VmscaleError(f"{d} holds no complete run directory")
            groups.append([r for c in children for r in load_rows(c, restat)])
            dirs += children
    rows = replaced(groups) if replace else [r for g in groups for r in g]
    atomic_write_text(output, rows_to_csv(rows))
    from vmscale import hotlines  # the runs' named hot lines, when `vmscale hotlines` made them
    hotlines.gather(dirs, hotlines.companion(output))
    write_parquet(rows, Path(output).with_suffix(".parquet"))
    return Path(output)


def write_parquet(rows: list, path: Path) -> bool:
    """Also write Parquet when pyarrow is installed (it is optional)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    from vmscale.rundir import flatten_row
    flat = [flatten_row(r) for r in rows]
    keys = sorted(set().union(*(f.keys() for f in flat))) if flat else []
    columns = {k: [None if f.get(k) is None else str(f.get(k)) if isinstance(f.get(k), (dict, list)) else f.get(k)
                   for f in flat] for k in keys}
    for k, values in columns.items():  # one type per column: mixed columns become text
        types = {type(v) for v in values if v is not None}
        if len(types) > 1:
            columns[k] = [None if v is None else str(v) for v in values]
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(pa.table(columns), tmp)
    tmp.replace(path)
    return True
