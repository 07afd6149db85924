"""The package as pip installs it outside editable mode: a wheel in a fresh venv runs the CLI."""

import subprocess
import sys
import zipfile

import pytest

from conftest import REPO


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(REPO), "-w", str(d / "dist")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    wheel = next((d / "dist").glob("vmscale-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(d / "venv")], check=True, timeout=300)
    py = d / "venv" / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0, r.stderr[-3000:]
    return wheel, d / "venv" / "bin" / "vmscale", d


def test_the_wheel_holds_every_package_of_the_tree(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    for folder, package in (("scripts", "vmscale"), ("queueing-model", "vmscale_model"),
                            ("sim-configs", "vmscale_gem5")):
        for module in (REPO / folder / package).rglob("*.py"):
            assert f"{package}/{module.relative_to(REPO / folder / package)}" in names, module


def test_the_installed_cli_runs_outside_the_checkout(installed, workloads_built):
    _, exe, d = installed
    env = {"PATH": "/usr/bin:/bin", "HOME": str(d), "VMSCALE_BUILD": str(workloads_built.parent)}
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, cwd=d, env=env)
    assert r.returncode == 0 and "workloads" in r.stdout and "model" in r.stdout, r.stderr
    r = subprocess.run([str(exe), "workloads"], capture_output=True, text=True, cwd=d, env=env)
    assert r.returncode == 0 and "refcount:" in r.stdout, r.stderr
    # the model from the installed package, not the checkout, on a shipped table
    r = subprocess.run([str(exe), "model", "study", str(REPO / "results" / "gem5-scaling" / "table.csv"),
                        "--train-max", "8", "--out", str(d / "study")], capture_output=True, text=True, cwd=d, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (d / "study" / "study.json").is_file() and "refcount" in r.stdout
    r = subprocess.run([str(d / "venv" / "bin" / "python"), "-c", "import vmscale_model, vmscale_gem5, vmscale; "
                        "print(vmscale_model.__file__, vmscale_gem5.__file__, vmscale.__file__)"],
                       capture_output=True, text=True, cwd=d, env=env)
    assert r.returncode == 0 and str(REPO) not in r.stdout and "site-packages" in r.stdout, r.stdout + r.stderr
