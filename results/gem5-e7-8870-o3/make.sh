#!/bin/bash
# The fidelity card on the reference board: `fault` (256 faults per thread, no mmap/munmap) with gem5's
# O3 CPU (`cpu=o3`) beside the Timing CPU's runs of the same cases (results/gem5-e7-8870,
# results/gem5-e7-8870-fault: 51,294 cycles per fault at one core), against Bonsai's 7,400 cycles per
# fault at 10 cores on the real E7-8870 (Figure 17).  Restored from the Atomic boot the Timing runs use.
# O3 spends most of a run's host time outside its ROI (10 cores: a 600 host-second ROI, then 25 ms of
# guest tear-down that O3 takes two hours over), so the runs switch to the Timing CPU outside the ROIs
# (`tail_cpu=timing`); 001c-stock, made without the switch, is the check that the ROI is the same.
# A case with a manifest is kept unless FRESH=1.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-o3
# cores:variant:tail_cpu ('-': no switch)
# (rwlock at 10 cores and refcount under O3 are the next cases: not run yet)
for c in 1:stock:- 1:stock:timing 1:rcu:timing 10:stock:timing 10:rcu:timing; do
  IFS=: read -r n v tail <<< "$c"
  d=$out/$(printf %03dc $n)-$v
  tailopt=()
  if [ "$tail" != - ]; then d=$d-tail; tailopt=(--gem5 tail_cpu=$tail); fi
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 cpu=o3 "${tailopt[@]}" --workload fault \
      --kernel-variant $v --param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0 --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
.venv/bin/vmscale collect --restat "$out"/0*c-* -o "$out/table.csv"
