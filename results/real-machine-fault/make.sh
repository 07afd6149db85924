#!/bin/bash
# Published page-fault scaling of Linux on a real machine beside ours (nothing is run here): mmtests
# pft-threads on a 2-socket, 32-core Ice Lake under mmap_lock and under per-VMA locks (one VMA, and a
# VMA per thread; cited in scripts/vmscale/realmachines.py), as throughput at N threads over one, and
# our `fault` curves on the reference board the same way: TimingSimpleCPU from
# results/gem5-e7-8870-to-80c, O3 at 1 and 10 cores from results/gem5-e7-8870-o3.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/vmscale realscale results/gem5-e7-8870-to-80c/table.csv results/gem5-e7-8870-o3/table.csv \
    --workload fault --out results/real-machine-fault
