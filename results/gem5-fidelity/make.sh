#!/bin/bash
# The CPU-model fidelity card on the reference board (nothing is run here): each workload's cost at 1
# and 10 cores under TimingSimpleCPU and under O3CPU (results/gem5-e7-8870-o3: the ROIs on O3, set-up
# and tear-down on Timing), the scaling ratio cost(10)/cost(1) of each, and the papers' absolute
# figures beside them (cited, not ours).  Timing: results/gem5-e7-8870 (one image for 1, 2, 4 and 10
# cores), whose refcount points results/gem5-e7-8870-refcount-to-40c replaces (refcount's files opened
# before its ROI: the image the O3 refcount cases ran on); RadixVM's Figure 5 workloads from
# results/gem5-e7-8870-fig5, pageshare, pagecache and reclaim from results/gem5-e7-8870-share-cache-reclaim;
# a later table's point replaces an earlier's.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/vmscale fidelity results/gem5-e7-8870/table.csv results/gem5-e7-8870-refcount-to-40c/table.csv \
    results/gem5-e7-8870-fig5/table.csv results/gem5-e7-8870-share-cache-reclaim/table.csv \
    results/gem5-e7-8870-o3/table.csv --cores 1,10 --out results/gem5-fidelity
