#!/bin/bash
# PARSEC's reclaim under RCU on the reference board at 1-40 cores, each thread warmed up with as many iterations as its
# ROI and the ROI started once every node the warm-up retired is freed (reclaim's `warmup`, session 59), so that the
# ROI's nodes come from per-CPU page lists filled by frees as a long run's are, not from the zone refilling the empty
# lists a restored boot checkpoint has (scripts/sweeps/gem5-e7-8870-reclaim-warmup.toml); then the table, the report
# and the models fitted on 1-20 cores and judged at 40 (`study-20/`).  The sweep is resumable (complete jobs are kept);
# GEM5 must be set for a job not complete.  80 cores: -warmup-80.toml, not run yet.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-reclaim-warmup
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-warmup.toml --parallel 1 --out "$out/sweep"
# (a finished job only: gzip must not take the files of a job another sweep is still running)
for m in "$out"/sweep*/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
.venv/bin/vmscale collect --restat $(ls -d "$out"/sweep*/jobs/*/manifest.json | xargs -n1 dirname) -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# the hot lines traced at 20 cores in -share-cache-reclaim-warm (cold lists, 1,000 iterations a write: no line moved
# more than 0.07 times an operation there); not the zone lock's profiled holds, which were the cold lists' refills
traces=$(ls results/gem5-e7-8870-share-cache-reclaim-warm/020c-reclaim-stock-hotlines/hotlines.csv)
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --hotlines $traces \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput, warmed-up reclaim"
