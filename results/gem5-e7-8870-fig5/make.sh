#!/bin/bash
# RadixVM Figure 5 on the reference board: the sweeps (resumable: complete jobs are kept; 1-10
# cores in jobs/, 20 in sweep-20/jobs/, `local` at 40 in sweep-local-40/jobs/ and at 80, with a quarter of the rounds, in
# sweep-local-80/jobs/, per-core RadixVM at 80 with 40 rounds in sweep-local-80-percore/jobs/), the table with the window throughput and capacity
# columns, and the report.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-fig5
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig5.toml --out "$out"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig5-20.toml --out "$out/sweep-20"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig5-local-40.toml --out "$out/sweep-local-40"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig5-local-80.toml --out "$out/sweep-local-80"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-fig5-local-80-percore.toml --out "$out/sweep-local-80-percore"
for m in "$out"/jobs/*/m5out "$out"/sweep-20/jobs/*/m5out "$out"/sweep-local-40/jobs/*/m5out "$out"/sweep-local-80/jobs/*/m5out "$out"/sweep-local-80-percore/jobs/*/m5out; do
  [ -d "$m" ] && (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; })
done
.venv/bin/vmscale collect --restat "$out"/jobs/* "$out"/sweep-20/jobs/* "$out"/sweep-local-40/jobs/* "$out"/sweep-local-80/jobs/* "$out"/sweep-local-80-percore/jobs/* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
