#!/bin/bash
# vmapi, the workload that checks how the rest of Linux treats memory at the region's address, under
# stock and the two RadixVM page-table designs, kernel 0001-0042: on the normal kernel with
# overcommit=1 (vm.overcommit_memory=2 for the round), and on the debug kernel (lockdep, DEBUG_VM,
# CONFIG_MEMCG) with memcg=1 and notifier=1.  Two rounds each, 8 vCPUs.  Run on 2026-11-26, 2-core machine.
set -eu
cd "$(dirname "$0")/../.."
.venv/bin/vmscale run --backend qemu --cores 8 --workload vmapi --kernel-variant stock,radixvm,radixvm-percore \
    --param vmapi.iters=2 --param vmapi.overcommit=1 --out results/qemu-vmapi/8vcpu
.venv/bin/vmscale run --backend qemu --flavor debug --cores 8 --workload vmapi \
    --kernel-variant stock,radixvm,radixvm-percore --param vmapi.iters=2 --param vmapi.memcg=1 \
    --param vmapi.notifier=1 --out results/qemu-vmapi/8vcpu-debug
