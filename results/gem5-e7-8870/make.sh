#!/bin/bash
# Re-makes the reference board's curves: the sweep (resumable: complete jobs are kept), the
# table with the window throughput and capacity columns, and the report.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870.toml --out "$out"
for m in "$out"/jobs/*/m5out; do (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
.venv/bin/vmscale collect --restat "$out"/jobs/* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# every curve judged by every method where it was not fitted: fitted on 1-4 cores, judged at 10
.venv/bin/vmscale model study "$out/table.csv" --train-max 4 --min-points 4 --out "$out/study-4" \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870 (sockets of 10), window throughput"
