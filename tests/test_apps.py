"""The application workloads (Metis-, Psearchy- and Dedup-style): answers verified, VM
operations reported, natively and under QEMU at 8 vCPUs on the stock kernel."""

import json
import os

import pytest

from conftest import vmscale
from vmscale.workloads import APPLICATIONS

CORES = min(2, len(os.sched_getaffinity(0)))
SMALL = ["metis.text_kb=512", "psearchy.files=128", "dedup.input_kb=1024"]


def _rows(d):
    return {r["workload"]: r for r in map(json.loads, (d / "results.jsonl").read_text().splitlines())}


def _args(*extra, apps=APPLICATIONS):
    out = []
    for p in [p for p in SMALL if p.split(".")[0] in apps] + list(extra):
        out += ["--param", p]
    return out


def test_applications_natively(workloads_built, tmp_path):
    r = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", ",".join(APPLICATIONS),
                *_args(), "--out", tmp_path / "n")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = _rows(tmp_path / "n")
    for app in APPLICATIONS:
        assert rows[app]["ok"] and rows[app]["errors"] == 0 and rows[app]["ops"] > 0
        assert rows[app]["minflt"] > 0
    assert rows["metis"]["mmaps"] >= CORES  # at least a block per thread
    assert rows["psearchy"]["mmaps"] == rows["psearchy"]["munmaps"] == 128  # a stdio buffer per file
    assert rows["dedup"]["mmaps"] == rows["dedup"]["munmaps"] > 0
    assert rows["dedup"]["output_bytes"] < 1024 * 1024  # duplicates removed, runs compressed


def test_allocation_unit_and_processes_change_the_vm_mix(workloads_built, tmp_path):
    apps = ["metis", "psearchy"]
    big = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", "metis,psearchy",
                  *_args(apps=apps), "--out", tmp_path / "big")
    small = vmscale("run", "--backend", "native", "--cores", CORES, "--workload", "metis,psearchy",
                    *_args("metis.block_kb=64", "psearchy.processes=1", apps=apps), "--out", tmp_path / "small")
    assert big.returncode == 0 and small.returncode == 0, big.stderr + small.stderr
    b, s = _rows(tmp_path / "big"), _rows(tmp_path / "small")
    assert s["metis"]["mmaps"] > 10 * b["metis"]["mmaps"]  # 64 KiB blocks: mmap heavy
    assert s["psearchy"]["ok"] and s["psearchy"]["ops"] == b["psearchy"]["ops"]
    assert s["psearchy"]["minflt"] > 0  # the worker processes' faults are counted


@pytest.mark.qemu
def test_applications_at_8_vcpus_under_qemu(qemu_ready, tmp_path):
    r = vmscale("run", "--backend", "qemu", "--cores", 8, "--workload", ",".join(APPLICATIONS), *_args(),
                "--out", tmp_path / "q")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    rows = _rows(tmp_path / "q")
    assert all(rows[a]["ok"] and rows[a]["threads"] == 8 for a in APPLICATIONS)
