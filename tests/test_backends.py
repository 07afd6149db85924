"""The backend interface: every backend has the same front door, refuses options that are
not its own (naming whose they are), and gem5's rows get their own ROI's stats or an error."""

import gzip
from pathlib import Path

import pytest

from conftest import vmscale
from vmscale import backends, console, guest_script
from vmscale.errors import VmscaleError

FIX = Path(__file__).parent / "fixtures" / "gem5" / "roi-8c"


@pytest.mark.parametrize("name", backends.BACKENDS)
def test_every_backend_has_the_interface(name):
    be = backends.get_backend(name)
    for fn in ("prepare", "execute", "row_extras", "failures"):
        assert callable(getattr(be, fn)), (name, fn)
    assert set(be.OPTIONS) <= set(backends.OPTIONAL)


def test_every_optional_field_has_a_backend_that_takes_it():
    takers = {opt for b in backends.BACKENDS for opt in backends.get_backend(b).OPTIONS}
    assert takers == set(backends.OPTIONAL)


@pytest.mark.parametrize("backend,args,message", [
    ("native", ["--kernel-arg", "quiet"], "--kernel-arg applies to qemu runs only, not native"),
    ("native", ["--memory", "512"], "--memory applies to qemu runs only, not native"),
    ("qemu", ["--gem5", "cpu=o3"], "--gem5 applies to gem5 runs only, not qemu"),
    ("qemu", ["--max-host-seconds", "60"], "--max-host-seconds applies to gem5 runs only, not qemu"),
    ("gem5", ["--watchdog-scale", "2"], "--watchdog-scale applies to qemu runs only, not gem5"),
])
def test_an_option_of_another_backend_is_refused_before_anything_runs(backend, args, message, workloads_built,
                                                                       tmp_path):
    r = vmscale("run", "--backend", backend, "--cores", 1, "--workload", "local", *args, "--out", tmp_path / "x")
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not (tmp_path / "x").exists()


def _real_run():
    from vmscale_gem5 import stats
    parsed = console.parse((FIX / "console.log").read_text())
    cases = tuple(guest_script.Case(c.case_id, c.workload, c.variant, {}, {}) for c in parsed.cases.values())
    dumps = stats.parse(gzip.decompress((FIX / "stats.txt.gz").read_bytes()).decode())
    return backends.Request(cores=8, cases=cases), parsed, dumps


def test_gem5_rows_take_their_own_rois_stats():
    from vmscale.backends import gem5
    req, parsed, dumps = _real_run()
    extras = gem5.row_extras(req, backends.Outcome("", {}, dumps), parsed)
    by = {(c.variant, c.workload): extras[c.case_id] for c in req.cases}
    assert by[("stock", "refcount")]["gem5.l1_fwd_getx_per_op"] > 0.5
    assert by[("refcache", "refcount")]["gem5.l1_fwd_getx_per_op"] < 0.1
    # one ROI's dump lost: which dump is whose cannot be known, so no row gets any
    with pytest.raises(VmscaleError, match="cannot tell which is whose"):
        gem5.row_extras(req, backends.Outcome("", {}, dumps[:-2]), parsed)
