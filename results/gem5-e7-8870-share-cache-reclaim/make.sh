#!/bin/bash
# pageshare, pagecache and reclaim on the reference board: the sweeps (resumable: complete jobs are
# kept; 1 and 10 cores in jobs/, 2, 4 and 20 in sweep-20/jobs/, 40 in sweep-40/jobs/), the table with the window throughput and capacity columns, and the report.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-share-cache-reclaim
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-share-cache-reclaim.toml --out "$out"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-share-cache-reclaim-20.toml --parallel 1 --out "$out/sweep-20"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-share-cache-reclaim-40.toml --parallel 1 --out "$out/sweep-40"
for m in "$out"/jobs/*/m5out "$out"/sweep-20/jobs/*/m5out "$out"/sweep-40/jobs/*/m5out; do (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
.venv/bin/vmscale collect --restat "$out"/jobs/* "$out"/sweep-20/jobs/* "$out"/sweep-40/jobs/* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
