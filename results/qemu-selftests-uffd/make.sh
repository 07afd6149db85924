#!/bin/bash
# The kernel's three userfaultfd selftests (the long uffd-unit-tests among them, which CI's quick set
# leaves out) under stock and the two RadixVM page-table designs, one 8-vCPU boot, after kernel 0036
# (a process that registers region memory leaves the region).  Run on 2026-11-26, 2-core machine.
set -eu
cd "$(dirname "$0")/../.."
.venv/bin/vmscale run --backend qemu --cores 8 --workload selftests \
    --param selftests.tests=uffd-unit-tests,uffd-stress,mkdirty \
    --kernel-variant stock,radixvm,radixvm-percore --timeout 3000 --out results/qemu-selftests-uffd/8vcpu
