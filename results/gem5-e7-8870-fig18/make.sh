#!/bin/bash
# Bonsai Figure 18's twin on the reference board: fault under per-VMA locks (stock), mmap_lock read
# locking (rwlock) and RCU faults (rcu) while thread 0 makes 0, 10, 25 or 50% of its operations
# mmap+munmap pairs at one socket (10 cores, scripts/sweeps/gem5-e7-8870-fig18.toml), and 0 or 50% at
# two and four sockets (20 and 40 cores, -fig18-20.toml and -fig18-40.toml in sweep-20/ and sweep-40/,
# session 58; 10 and 25% at 20 cores too, -fig18-20-more.toml in sweep-20-more/); resumable: complete jobs are kept.  Then the table and the report (its fault section has
# the figure and the table relative to each design's own cost at 0%, per core count).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-fig18
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig18.toml --parallel 1 --out "$out"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig18-20.toml --parallel 2 --out "$out/sweep-20"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig18-20-more.toml --parallel 2 --out "$out/sweep-20-more"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig18-40.toml --parallel 2 --out "$out/sweep-40"
# (a finished job only: gzip must not take the files of a job still running)
for m in "$out"/jobs/*/m5out "$out"/sweep-*/jobs/*/m5out; do
  [ -f "$m/../manifest.json" ] || continue
  (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; })
done
runs=$(ls -d "$out"/jobs/*/manifest.json "$out"/sweep-*/jobs/*/manifest.json 2>/dev/null | xargs -n1 dirname)
.venv/bin/vmscale collect --restat $runs -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
