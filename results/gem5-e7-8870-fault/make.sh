#!/bin/bash
# The reference board (board=e7-8870) at 20 and 10 cores: Bonsai Figures 16/17's fault (each thread
# faults 64 fresh pages 4 times, no mmap/munmap in the ROI) under per-VMA locking (stock), mmap_lock
# read locking (rwlock) and RCU faults (rcu), with results/gem5-e7-8870's parameters.  The 10-core
# point overlaps that record (an older run script and kernel build): the check of one against the
# other.  One run directory per case, restored from one checkpoint per core count, so that a
# session that ends mid-way keeps the cases it finished: a case with a manifest is kept unless
# FRESH=1.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-fault
for n in 20 10; do
  for v in stock rwlock rcu; do
    d=$out/$(printf %03dc $n)-$v
    [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
    rm -rf "$d"
    .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload fault --kernel-variant $v \
        --param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0 --out "$d"
    (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
  done
done
.venv/bin/vmscale collect --restat "$out"/0*c-* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
