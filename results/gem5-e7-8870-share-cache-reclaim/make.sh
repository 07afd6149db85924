#!/bin/bash
# pageshare, pagecache and reclaim on the reference board: the sweep (resumable: complete jobs are
# kept), the table with the window throughput and capacity columns, and the report.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-share-cache-reclaim
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-share-cache-reclaim.toml --out "$out"
for m in "$out"/jobs/*/m5out; do (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
.venv/bin/vmscale collect --restat "$out"/jobs/* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
