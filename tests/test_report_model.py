"""`vmscale report --model` on the shipped cycle-level data (the demo's model stage is checked in
test_demo.py, which runs it)."""

import json

from vmscale import paths


def test_report_with_the_model_fits_every_curve_through_the_library(tmp_path):
    """`vmscale report --model` writes each curve's fit (one board, one ROI size) from
    vmscale_model.fit.fit_table: the hold-out is the curve's largest core count and the
    parameters are finite and positive."""
    from conftest import vmscale
    table = paths.REPO / "results" / "gem5-scaling" / "table.csv"
    r = vmscale("report", table, "--out", tmp_path / "rep", "--model")
    assert r.returncode == 0, r.stderr
    fits = {p.parent.name: json.loads(p.read_text()) for p in (tmp_path / "rep").glob("model-*/fit.json")}
    stock = sorted(n for n in fits if n.startswith("model-refcount-stock"))
    assert stock, sorted(fits)
    for name, f in fits.items():
        assert f["holdout"]["cores"] == [max(f["measured"]["cores"])], name
        assert f["fit"]["think"] > 0 and f["fit"]["service"] > 0, name
        assert f["figures"] and all((tmp_path / "rep" / name / p.split("/")[-1]).is_file() for p in f["figures"])
    assert f"({stock[0]}/scaling.png)" in (tmp_path / "rep" / "report.md").read_text()
