"""The model's files: a fit's or a study's JSON, markdown and figures in a directory.

The only I/O of the library besides reading tables (fit.load_table); the CLI, the demo and
reports write through it, so every caller gets the same files."""

import json
import re
from pathlib import Path

from vmscale_model import interconnect, plot, study as studylib


def write_fit(tf, out, title: str, max_cores: int = 4096, note=None) -> list:
    """fit.json and the scaling figure of a fit_table() result; returns the figure paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figs = plot.scaling(tf.fit, str(out / "scaling"), title, max_cores=max_cores, holdout=tf.hold, note=note)
    (out / "fit.json").write_text(json.dumps(dict(tf.summary, figures=figs), indent=2) + "\n")
    return figs


def write_study(result: dict, out, table_name: str, train_min: int, train_max: int, note=None) -> tuple:
    """study.json, study.md, verdict.txt (a line per curve), one figure per judged curve and
    grid.png (all of them); returns (markdown table, figures)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    for key, r in result.items():
        if "skipped" not in r:
            figs += plot.study_curve(r, str(out / re.sub(r"[^A-Za-z0-9._]+", "-", key).strip("-")),
                                     f"{key}: fitted on {train_min}-{train_max} cores, judged above", note=note)
    figs += plot.study_grid(result, str(out / "grid"), f"{table_name}: fitted on {train_min}-{train_max} cores, "
                            "judged above", note=note)
    (out / "study.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "verdict.txt").write_text(studylib.verdict(result))
    md = studylib.table(result)
    (out / "study.md").write_text(f"# Scaling study: {table_name}\n\nFitted on core counts {train_min}-{train_max}; "
                                  "errors are (predicted / measured - 1) at the held-out core counts.\n\n" + md)
    return md, figs


def write_interconnect(results: dict, out, table_name: str, source: str, target: str, note=None) -> tuple:
    """interconnect.json, interconnect.md and one figure per curve; returns (markdown, figures)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    names = (source or "default board", target or "default board")
    for key, r in results.items():
        figs += plot.interconnect_curve(r, str(out / re.sub(r"[^A-Za-z0-9._]+", "-", key).strip("-")),
                                        f"{key}: fitted on [{names[0]}], predicted on [{names[1]}]",
                                        names[0], names[1], note=note)
    (out / "interconnect.json").write_text(json.dumps(results, indent=2) + "\n")
    md = "\n".join(interconnect.table(k, r) for k, r in results.items())
    (out / "interconnect.md").write_text(
        f"# From one interconnect to another: {table_name}\n\nFitted on [{names[0]}], predicted on "
        f"[{names[1]}] at every core count measured there; errors are (predicted / measured - 1).\n\n" + md)
    return md, figs


def write_sockets(results: dict, out, table_name: str, train_max: int, note=None) -> tuple:
    """sockets.json, sockets.md and one figure per curve; returns (markdown, figures)."""
    from vmscale_model import sockets
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    for key, r in results.items():
        figs += plot.sockets_curve(r, str(out / re.sub(r"[^A-Za-z0-9._]+", "-", key).strip("-")),
                                   f"{key}: fitted on <= {train_max} cores", note=note)
    (out / "sockets.json").write_text(json.dumps(results, indent=2) + "\n")
    md = "\n".join(sockets.table(k, r) for k, r in results.items())
    (out / "sockets.md").write_text(
        f"# Past the sockets a fit saw: {table_name}\n\nFitted on core counts up to {train_max}; beyond, each "
        f"operation's misses and line transfers travel the board's mean distances at that core count "
        f"(`vmscale_model.sockets`). Errors are (predicted / measured - 1).\n\n" + md)
    return md, figs
