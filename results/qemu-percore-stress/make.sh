#!/bin/bash
# Why radixvm-percore's `stress` case ran 17x longer than radixvm's in the 64-vCPU debug record
# (results/qemu-debug-conformance/64vcpu): the same case on the normal kernel at 16 and 64 vCPUs,
# both designs in one boot.  Run on the 2-core development machine on 2026-11-26.
set -eu
cd "$(dirname "$0")/../.."
for c in 16 64; do
  .venv/bin/vmscale run --backend qemu --cores $c --workload stress \
      --kernel-variant radixvm,radixvm-percore --out "results/qemu-percore-stress/${c}vcpu"
done
