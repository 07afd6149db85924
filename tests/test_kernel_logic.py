import re

import pytest

from vmscale import kernel, paths
from vmscale.errors import VmscaleError


def test_version_parse():
    mk = "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 117\nEXTRAVERSION =\n"
    assert kernel.parse_kernel_version(mk) == (6, 12, 117)
    with pytest.raises(VmscaleError):
        kernel.parse_kernel_version("PATCHLEVEL = 12\n")


def test_config_mismatch_detects_dropped_options():
    frag = "CONFIG_SMP=y\nCONFIG_NR_CPUS=256\nCONFIG_STRICT_DEVMEM=n\n# CONFIG_VT is not set\n"
    good = "CONFIG_SMP=y\nCONFIG_NR_CPUS=256\n# CONFIG_STRICT_DEVMEM is not set\n"
    assert kernel.config_mismatches(good, [frag]) == []
    bad = "CONFIG_SMP=y\nCONFIG_NR_CPUS=64\nCONFIG_STRICT_DEVMEM=y\nCONFIG_VT=y\n"
    assert set(kernel.config_mismatches(bad, [frag])) == {
        "CONFIG_NR_CPUS=256 (got 64)", "CONFIG_STRICT_DEVMEM=n (got y)", "CONFIG_VT=n (got y)"}


def test_base_fragment_has_what_qemu_and_gem5_need():
    opts = kernel.fragment_options((paths.CONFIG_DIR / "base.config").read_text())
    for key, value in {"CONFIG_SMP": "y", "CONFIG_NR_CPUS": "256", "CONFIG_X86_MPPARSE": "y",
                       "CONFIG_ACPI": "y", "CONFIG_CPU_SUP_HYGON": "y", "CONFIG_SERIAL_8250_CONSOLE": "y",
                       "CONFIG_ATA_PIIX": "y", "CONFIG_BLK_DEV_SD": "y", "CONFIG_EXT2_FS": "y",
                       "CONFIG_DEVMEM": "y", "CONFIG_STRICT_DEVMEM": "n", "CONFIG_FW_CFG_SYSFS": "y",
                       "CONFIG_NO_HZ_IDLE": "y", "CONFIG_MODULES": "n"}.items():
        assert opts.get(key) == value, key
    debug = kernel.fragment_options((paths.CONFIG_DIR / "debug.config").read_text())
    assert {"CONFIG_DEBUG_VM", "CONFIG_PROVE_LOCKING", "CONFIG_DEBUG_ATOMIC_SLEEP"} <= set(debug)


def test_patches_are_git_am_able_with_sign_off():
    patches = kernel.series_files(paths.PATCH_DIR)
    assert patches, "the series is empty"
    for i, p in enumerate(patches, 1):
        text = p.read_text()
        assert re.match(r"From [0-9a-f]{40} ", text), p.name
        assert re.search(rf"^Subject: \[PATCH {i:02d}/{len(patches)}\] \S", text, re.M), p.name
        assert "Signed-off-by:" in text, p.name
        body = text.split("\n\n", 1)[1].split("---\n", 1)[0]
        assert len(body.split()) > 50, f"{p.name}: the commit message must explain the design"


def test_missing_source_is_a_clear_error(tmp_path):
    with pytest.raises(VmscaleError, match="linux-source-6.12"):
        kernel.resolve_source(tmp_path / "nope.tar.xz")


def test_wrong_version_tarball_is_rejected(tmp_path, monkeypatch):
    import subprocess
    top = tmp_path / "linux-6.1.1"
    top.mkdir()
    (top / "Makefile").write_text("VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 1\n")
    tar = tmp_path / "linux-6.1.1.tar.xz"
    subprocess.run(["tar", "-cJf", str(tar), "-C", str(tmp_path), "linux-6.1.1"], check=True)
    monkeypatch.setenv("VMSCALE_BUILD", str(tmp_path / "build"))
    with pytest.raises(VmscaleError, match="not 6.12"):
        kernel.extract_source(tar)
    assert not list((tmp_path / "build" / "linux-src").glob("linux-6.1.1-*"))


def test_the_cover_letter_numbers_the_series_and_maps_every_patch():
    """0000 as upstream reads it: [PATCH 00/NN] with NN the series' length, and the map names
    every patch by its number."""
    patches = kernel.series_files(paths.PATCH_DIR)
    cover = (paths.PATCH_DIR / kernel.COVER_LETTER).read_text()
    assert re.search(rf"^Subject: \[PATCH 00/{len(patches)}\] \S", cover, re.M)
    body = cover.split("Map of the series", 1)[1]
    named = {int(n) for n in re.findall(r"(?<![\d/])(\d{2})(?![\d/])", body)}
    assert named >= set(range(1, len(patches) + 1)), sorted(set(range(1, len(patches) + 1)) - named)


def test_the_pinned_debian_source_is_the_records_and_a_build_from_another_says_so():
    import json
    from vmscale import kernel, paths
    pin = kernel.parse_pin((paths.PATCH_DIR / "debian-source").read_text())
    assert pin["package"] == "linux-source-6.12" and pin["version"].startswith("6.12.")
    assert len(pin["sha256"]) == 64 and int(pin["sha256"], 16) >= 0
    # the source of the record every CI re-makes (results/gem5-rerun-2c): the pin is what it was built from
    m = json.loads((paths.REPO / "results" / "gem5-rerun-2c" / "run" / "manifest.json").read_text())
    assert m["kernel"]["source"]["sha256"] == pin["sha256"]
    assert m["kernel"]["version"] == pin["version"].split("-")[0]
    assert kernel.pin_warning(pin["sha256"], pin) is None
    other = kernel.pin_warning("0" * 64, pin)
    assert "not linux-source-6.12 " + pin["version"] in other and f"={pin['version']}" in other
    assert kernel.pin_warning("0" * 64, {}) is None          # no pin: nothing to compare with
