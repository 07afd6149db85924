"""Kernel variants: every variant sets every switch, and the counting workload follows the
variant's counter unless the user fixed one."""

import pytest

from vmscale import runner, variants
from vmscale.errors import VmscaleError


def test_every_variant_sets_every_switch():
    keys = {k for v in variants.VARIANTS.values() for k in v} - set(variants.TUNING)
    for name, switches in variants.VARIANTS.items():
        assert set(switches) - set(variants.TUNING) == keys, name   # cases of one boot run in sequence


def test_a_tuning_switch_is_set_back_only_in_runs_that_change_it(workloads_built):
    # cases of one boot run in sequence: after a pcp-high case, a stock case must find the
    # kernel's default again; a run with no such variant writes what it always wrote
    key = "vm/percpu_pagelist_high_fraction"
    mixed = runner.plan(["reclaim"], ["pcp-high", "stock", "parsec-pcp-high", "parsec"], 4, [])
    assert [c.sysctls[key] for c in mixed] == ["8", "0", "8", "0"]
    assert [c.args["smr"] for c in mixed] == ["rcu", "rcu", "parsec", "parsec"]
    plain = runner.plan(["reclaim"], ["stock", "parsec"], 4, [])
    assert all(key not in c.sysctls for c in plain)
    assert [c.sysctls for c in plain] == [variants.sysctls("stock"), variants.sysctls("parsec")]
    assert variants.upstream(key, "0") and not variants.upstream(key, "8")


def test_counter_follows_the_variant(workloads_built):
    cases = runner.plan(["refcount", "local"], ["stock", "refcache", "percpu-ref"], 4, [])
    counters = {(c.variant, c.workload): c.args.get("counter") for c in cases}
    assert counters == {("stock", "refcount"): "atomic", ("refcache", "refcount"): "refcache",
                        ("percpu-ref", "refcount"): "percpu", ("stock", "local"): None,
                        ("refcache", "local"): None, ("percpu-ref", "local"): None}
    fixed = runner.plan(["refcount"], ["refcache"], 4, ["refcount.counter=atomic"])
    assert fixed[0].args["counter"] == "atomic"


def test_only_the_named_cases_run(workloads_built):
    cases = runner.plan(["refcount", "local"], ["stock", "refcache"], 4, [],
                        only={("refcache", "refcount"), ("stock", "local")})
    assert [(c.case_id, c.variant, c.workload) for c in cases] == [(1, "stock", "local"),
                                                                   (2, "refcache", "refcount")]
    with pytest.raises(VmscaleError, match="--case rwlock/local: not among"):
        runner.plan(["local"], ["stock"], 4, [], only={("rwlock", "local")})


def test_unknown_variant_is_refused():
    with pytest.raises(VmscaleError, match="unknown kernel variant 'radix'"):
        variants.counter("radix")


def test_radixvm_variants_keep_mremap_in_stress(workloads_built):
    # the region remaps anonymous memory (kernel 0012): stress mremaps under every design
    cases = runner.plan(["stress", "local"], ["stock", "radixvm", "radixvm-atomic"], 4, [])
    assert all(c.args.get("mremap") is None for c in cases)
    assert variants.sysctls("radixvm")["vm/vmscale_radix_share"] == "refcache"
    assert variants.sysctls("radixvm-atomic")["vm/vmscale_radix_share"] == "atomic"
    fixed = runner.plan(["stress"], ["radixvm"], 4, ["stress.mremap=1"])
    assert fixed[0].args["mremap"] == "1"


def test_page_table_mode_is_set_by_every_variant(workloads_built):
    # cases of one boot run in sequence, so every variant must set the switch back
    for name in variants.VARIANTS:
        want = "percore" if name.startswith("radixvm-percore") else "shared"
        assert variants.sysctls(name)["vm/vmscale_radix_pt"] == want, name
    case = runner.plan(["stress"], ["radixvm-percore"], 4, [])[0]
    assert case.args.get("mremap") is None and variants.radixvm("radixvm-percore")


def test_reclamation_follows_the_variant(workloads_built):
    # PARSEC (kernel 0024-0025): the benchmark retires through the variant's reclamation
    cases = runner.plan(["reclaim", "local"], ["stock", "parsec", "radixvm-parsec"], 4, [])
    assert {(c.variant, c.workload): c.args.get("smr") for c in cases} == {
        ("stock", "reclaim"): "rcu", ("parsec", "reclaim"): "parsec", ("radixvm-parsec", "reclaim"): "parsec",
        ("stock", "local"): None, ("parsec", "local"): None, ("radixvm-parsec", "local"): None}
    assert runner.plan(["reclaim"], ["parsec"], 4, ["reclaim.smr=rcu"])[0].args["smr"] == "rcu"
    assert variants.radixvm("radixvm-parsec") and not variants.radixvm("parsec")
    assert all(variants.reclamation(v) == "rcu" for v in variants.VARIANTS if "parsec" not in v)


def test_upstream_values_are_per_switch():
    # "rcu" is upstream reclamation but not the upstream fault path: a kernel without
    # vm.vmscale_fault cannot run the `rcu` variant, one without vm.vmscale_reclaim reclaims by RCU
    assert variants.upstream("vm/vmscale_reclaim", "rcu")
    assert not variants.upstream("vm/vmscale_fault", "rcu")
    assert variants.upstream("vm/vmscale_fault", "stock")
    assert not variants.upstream("vm/vmscale_reclaim", "parsec")
