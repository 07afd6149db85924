#!/bin/bash
# Bonsai Figure 18's twin on the reference board, one socket (10 cores): fault under per-VMA locks
# (stock), mmap_lock read locking (rwlock) and RCU faults (rcu) while thread 0 makes 0, 10, 25 or 50%
# of its operations mmap+munmap pairs (scripts/sweeps/gem5-e7-8870-fig18.toml; resumable: complete
# jobs are kept), then the table and the report (its fault section has the figure and the table
# relative to each design's own cost at 0%).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-fig18
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig18.toml --parallel 1 --out "$out"
for m in "$out"/jobs/*/m5out; do
  [ -d "$m" ] && (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; })
done
.venv/bin/vmscale collect --restat "$out"/jobs/* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
