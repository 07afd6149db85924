"""The main job's model stage works on the shipped cycle-level data, not on QEMU timing."""

import json

from vmscale import demo, paths


def test_model_stage_fits_and_judges_the_shipped_gem5_curves(tmp_path, capsys):
    table = paths.REPO / "results" / demo.GEM5_TABLES[0] / "table.csv"
    assert table.is_file(), "results/ must ship the gem5 scaling table the demo fits"
    demo.model_stage(tmp_path)
    out = tmp_path / "model" / demo.GEM5_TABLES[0]
    study = json.loads((out / "study.json").read_text())
    judged = {k: v for k, v in study.items() if "skipped" not in v}
    assert any(k.startswith("refcount/stock/") for k in judged)
    for key, r in judged.items():
        # fitted on <= 16 cores, judged above: every method has an error at every held-out count
        assert r["train_cores"] and max(r["train_cores"]) <= 16 < min(r["held_cores"]), key
        for method in ("model", "usl"):
            assert len(r[method]["error"]) == len(r["held_cores"]), (key, method)
    assert (out / "report" / "twin-fault.png").is_file() or (out / "report" / "twin-refcount.png").is_file()
    assert "fitted on <= 16 cores" in capsys.readouterr().out


def test_report_with_the_model_fits_every_curve_through_the_library(tmp_path):
    """`vmscale report --model` writes each curve's fit (one board, one ROI size) from
    vmscale_model.fit.fit_table: the hold-out is the curve's largest core count and the
    parameters are finite and positive."""
    from conftest import vmscale
    table = paths.REPO / "results" / demo.GEM5_TABLES[0] / "table.csv"
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
