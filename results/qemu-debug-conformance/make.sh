#!/bin/bash
# The debug-kernel conformance run kept here (issue 18): once at 64 vCPUs, the kernel's mm
# selftests (the quick ones, less uffd-stress and virtual_address_range: see
# tests/test_conformance.py NOT_AT_32), stress-ng's VM stressors with --verify and the stress
# workload under the five designs.  The 32-vCPU run is the slow-tier test
# tests/test_conformance.py::test_conformance_on_the_debug_kernel_at_32_vcpus.  The run's
# directory keeps its manifest, rows, gzip'd console and the selftests.expect it was judged by.
# 64vcpu-k0023 is the same run on kernel 0001-0023 (before the region had mlock, mseal and keys).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=results/qemu-debug-conformance
tests=map_fixed_noreplace,mremap_dontunmap,madv_populate,mlock2-tests,mdwe_test,mseal_test,mkdirty,compaction_test,gup_longterm,gup_test,hmm-tests,hugetlb-madvise,hugetlb-read-hwpoison,hugetlb-soft-offline,hugepage-mmap,hugepage-mremap,hugepage-shm,hugepage-vmemmap,map_hugetlb,map_populate,mrelease_test,seal_elf,on-fault-limit,thuge-gen,split_huge_page_test,ksm_functional_tests,hugetlb_fault_after_madv,hugetlb_madv_vs_map,hugetlb_dio,droppable,soft-dirty,protection_keys_64,pkey_sighandler_tests_64,va_high_addr_switch,write_to_hugetlbfs
.venv/bin/vmscale run --backend qemu --flavor debug --cores 64 --workload stress,selftests,stressng \
    --kernel-variant stock,rwlock,rcu,radixvm,radixvm-percore \
    --param stress.iters=250 --param selftests.tests=$tests --param selftests.limit=300 \
    --param stressng.timeout=300 --out $here/64vcpu --timeout 7200
cp guest-workloads/selftests.expect $here/64vcpu/selftests.expect
gzip -9 $here/64vcpu/console.log
