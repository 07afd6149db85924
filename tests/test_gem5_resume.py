"""Boots that outlive a batch job: the pure decisions (legs, Slurm time, limits) and the
refusals before gem5 starts."""

import pytest

from vmscale_gem5 import limits, options, resume


def test_legs_are_numbered_and_only_complete_ones_count(tmp_path):
    r = tmp_path / "resume"
    assert resume.latest_leg(r) is None and resume.next_leg(r) == r / "leg-0001"
    for n, complete in ((1, True), (2, True), (3, False)):   # leg 3: killed while saving
        (r / f"leg-{n:04d}").mkdir(parents=True)
        if complete:
            (r / f"leg-{n:04d}" / "m5.cpt").write_text("[root]\n")
    (r / "notes").mkdir()
    assert resume.legs(r) == [r / "leg-0001", r / "leg-0002"]
    assert resume.latest_leg(r) == r / "leg-0002"
    assert resume.next_leg(r) == r / "leg-0004"   # never reuses the incomplete one


@pytest.mark.parametrize("text,seconds", [("1-02:03:04", 93784), ("02:03:04", 7384), ("45:30", 2730),
                                          ("90", 5400), ("UNLIMITED", None), ("", None)])
def test_slurm_time_formats(text, seconds):
    assert resume.slurm_seconds(text) == seconds


def test_host_limit_prefers_the_user_then_slurm():
    assert resume.host_limit(1200, 99999) == 1200
    assert resume.host_limit(0, 7384) == 7384 - resume.SLURM_MARGIN_S
    assert resume.host_limit(0, 100) == 60          # never less than a minute
    assert resume.host_limit(0, None) == 0          # no limit outside Slurm


def _args(tmp_path, *extra):
    k = tmp_path / "vmlinux"
    k.write_bytes(b"\x7fELF" + b"\0" * 60)
    d = tmp_path / "disk.img"
    d.write_bytes(b"\0")
    return options.parser().parse_args(["--kernel", str(k), "--disk", str(d), "--cores", "2",
                                        "--cpu", "atomic", *map(str, extra)])


@pytest.mark.parametrize("extra,message", [
    (["--mode", "checkpoint", "--checkpoint-dir", "c", "--max-host-seconds", 60], "needs --resume-dir"),
    (["--mode", "restore", "--checkpoint-dir", "c", "--resume-from", "x"], "use it with --mode checkpoint"),
    (["--mode", "checkpoint", "--checkpoint-dir", "c", "--resume-from", "nowhere"], "no saved boot"),
])
def test_bad_resume_arguments_are_refused(tmp_path, extra, message):
    with pytest.raises(limits.ConfigError, match=message):
        options.validate(_args(tmp_path, *extra))
