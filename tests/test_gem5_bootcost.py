"""Boot-cost curve: reading checkpoints' boot logs (resumed legs included) and the growth law."""

import json

import pytest

from conftest import REPO
from vmscale_gem5 import bootcost


def _cpt(root, cores, legs):
    """A checkpoint directory as gem5.checkpoint() leaves it: legs are (host s, tick, cause)."""
    d = root / f"{cores}c-0123456789abcdef"
    d.mkdir()
    (d / "m5.cpt").write_text("[root]\n")
    names = [f"boot-m5out-leg-{i:04d}" for i in range(1, len(legs))] + ["boot-m5out"]
    for name, (host, tick, cause) in zip(names, legs):
        (d / name).mkdir()
        (d / name / "gem5.log").write_text(f"vmscale_fs: exit cause='{cause}' tick={tick} host_seconds={host} "
                                           "roi_ticks=[]\n")
        (d / name / "stats.txt").write_text("---------- Begin Simulation Statistics ----------\n"
                                            f"simInsts {int(tick / 1000)} # x\n"
                                            "---------- End Simulation Statistics   ----------\n")
    return d


def test_a_resumed_boot_costs_the_sum_of_its_legs(tmp_path):
    d = _cpt(tmp_path, 64, [(1800.0, 2_000_000_000_000, "max host seconds"), (900.5, 3_500_000_000_000, "checkpoint")])
    p = bootcost.read(d)
    assert p == {"cores": 64, "host_seconds": 2700.5, "sim_seconds": 3.5, "instructions": 3_500_000_000,
                 "legs": 2, "checkpoint": d.name, "shared_host": None}
    # a leg that recorded another gem5 on the host marks the boot as shared
    (d / "boot-m5out" / "host.json").write_text('{"other_gem5_start": 1, "other_gem5_end": 0}')
    assert bootcost.read(d)["shared_host"] is True


def test_unfinished_or_foreign_directories_are_refused(tmp_path):
    with pytest.raises(ValueError, match="not a finished vmscale checkpoint"):
        bootcost.read(tmp_path)
    d = _cpt(tmp_path, 8, [(10.0, 1000, "Tick exit reached")])
    with pytest.raises(ValueError, match="not a checkpoint"):
        bootcost.read(d)


def test_the_growth_law_recovers_a_power_and_predicts():
    pts = [{"cores": n, "host_seconds": 30.0 * n ** 1.5} for n in (1, 2, 4, 8, 16)]
    pts[0]["host_seconds"] = 999.0   # one core is not on the law (no bring-up): left out
    for p in pts:
        p["instructions"] = 300e6 + 5e6 * p["cores"]
    law = bootcost.fit(pts)
    assert law["b"] == pytest.approx(1.5) and law["a"] == pytest.approx(30.0)
    assert law["instructions"]["per_core"] == pytest.approx(5e6)
    assert law["instructions"]["predicted"]["254"] == pytest.approx(300e6 + 5e6 * 254)
    assert law["predicted"]["128"] == pytest.approx(30.0 * 128 ** 1.5)
    with pytest.raises(ValueError, match="need 3"):
        bootcost.fit(pts[:3])


def test_the_law_can_be_fitted_on_the_large_boots_only_and_predict_far():
    # small boots on one law, large ones on a steeper one: fitting from 8 cores finds the steeper
    pts = [{"cores": n, "host_seconds": (100.0 * n ** 0.3 if n < 8 else 2.0 * n ** 1.8)} for n in (2, 4, 8, 16, 32)]
    law = bootcost.fit(pts, predict_at=(512, 1024), fit_from=8)
    assert law["fitted_on"] == [8, 16, 32] and law["b"] == pytest.approx(1.8)
    assert set(law["predicted"]) == {"512", "1024"}
    assert law["predicted"]["1024"] == pytest.approx(2.0 * 1024 ** 1.8)


def test_cli_writes_table_and_plot(tmp_path):
    cpts = [_cpt(tmp_path, n, [(20.0 * n ** 1.2, 3_000_000_000_000, "checkpoint")]) for n in (2, 4, 8)]
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "vmscale_gem5.bootcost", *map(str, cpts), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert "| 254 (predicted) |" in r.stdout
    law = json.loads((tmp_path / "o/boot-cost.json").read_text())["law"]
    assert law["b"] == pytest.approx(1.2, rel=1e-2)
    assert (tmp_path / "o/boot-cost.png").stat().st_size > 10_000
    r = subprocess.run([sys.executable, "-m", "vmscale_gem5.bootcost", *map(str, cpts), "--predict", "512,1024"],
                       capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0 and "| 1024 (predicted) |" in r.stdout and "| 254 (predicted) |" not in r.stdout
    bad = subprocess.run([sys.executable, "-m", "vmscale_gem5.bootcost", *map(str, cpts), "--predict", "lots"],
                         capture_output=True, text=True, cwd=REPO)
    assert bad.returncode == 2 and "--predict lots" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "vmscale_gem5.bootcost", str(tmp_path)], capture_output=True,
                         text=True, cwd=REPO)
    assert bad.returncode == 2 and "not a finished vmscale checkpoint" in bad.stderr


def test_host_seconds_follow_simulated_instructions_and_cpus_on_the_shipped_boots():
    """results/gem5-boot-cost-lapic: host time is instructions x (c0 + c1 x cores), with a far
    better fit than a power law of the core count (the 2-core boot costs more than the 4-core)."""
    import json
    from conftest import REPO
    from vmscale_gem5 import bootcost
    boots = json.loads((REPO / "results/gem5-boot-cost-lapic/boot-cost.json").read_text())["boots"]
    law = bootcost.fit(boots)
    hm = law["host_model"]
    assert hm["r2"] > 0.95 and hm["c0_ns_per_inst"] > 0 and hm["c1_ns_per_inst_per_core"] > 0
    assert not hm["fitted_on_boots_alone"]           # these boots did not record whether they shared the host
    assert "not recorded" in bootcost.table(boots, law)
    boots = [dict(b, shared_host=b["cores"] == 8) for b in boots]
    assert 8 not in bootcost.fit(boots)["host_model"]["fitted_on"]
