"""The main job's model stage works on the shipped cycle-level data, not on QEMU timing."""

import json

from vmscale import demo, paths


def test_model_stage_fits_and_judges_the_shipped_gem5_curves(tmp_path, capsys):
    for name in demo.GEM5_TABLES:
        assert (paths.REPO / "results" / name / "table.csv").is_file(), f"results/ must ship {name}, which the demo fits"
    demo.model_stage(tmp_path)
    for name, train_max in demo.GEM5_TABLES.items():
        out = tmp_path / "model" / name
        study = json.loads((out / "study.json").read_text())
        judged = {k: v for k, v in study.items() if "skipped" not in v}
        assert any("/stock" in k for k in judged), name
        for key, r in judged.items():
            # fitted on <= train_max cores, judged above: every method has an error at every held-out count
            assert r["train_cores"] and max(r["train_cores"]) <= train_max < min(r["held_cores"]), key
            for method in ("line", "usl"):
                assert len(r["methods"][method]["error"]) == len(r["held_cores"]), (key, method)
        assert (out / "report" / "report.md").is_file(), name
    assert (tmp_path / "model" / "gem5-scaling" / "report" / "twin-fault.png").is_file()   # Bonsai 16-17 beside ours
    printed = capsys.readouterr().out
    assert "fitted on <= 16 cores" in printed and "fitted on <= 8 cores" in printed
    name, workload, source, target = demo.INTERCONNECT
    if (paths.REPO / "results" / name / "table.csv").is_file():
        ic = json.loads((tmp_path / "model" / name / "interconnect.json").read_text())
        assert f"{workload}/stock" in ic and len(ic[f"{workload}/stock"]["hops"]["error"]) >= 4


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
