#!/bin/bash
# PARSEC's reclaim under RCU on the reference board at 1-40 cores, each thread warmed up with as many iterations as its
# ROI and the ROI started once every node the warm-up retired is freed (reclaim's `warmup`, session 59), so that the
# ROI's nodes come from per-CPU page lists filled by frees as a long run's are, not from the zone refilling the empty
# lists a restored boot checkpoint has (scripts/sweeps/gem5-e7-8870-reclaim-warmup.toml); then the table, the report
# and the models fitted on 1-20 cores and judged at 40 (`study-20/`).  The sweep is resumable (complete jobs are kept);
# GEM5 must be set for a job not complete.  PARSEC's curve (-warmup-parsec.toml, session 60); 80 cores, RCU and PARSEC
# a restore each (-warmup-80.toml: not run to its end yet; its warm-up alone outlasts a 3-hour session here, RUNLOG
# session 60, so give it a Slurm job: `vmscale sweep slurm`; here only with WITH_80=1, so that re-making the record
# boots no 80-core machine); and the hot lines of the warm RCU ROI traced at 20 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-reclaim-warmup
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-warmup.toml --parallel 1 --out "$out/sweep"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-warmup-parsec.toml --parallel 1 --out "$out/sweep-parsec"
if [ "${WITH_80:-0}" = 1 ]; then
  .venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-warmup-80.toml --parallel 1 --out "$out/sweep-80"
fi
# (a finished job only: gzip must not take the files of a job another sweep is still running)
for m in "$out"/sweep*/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
.venv/bin/vmscale collect --restat $(ls -d "$out"/sweep*/jobs/*/manifest.json | xargs -n1 dirname) -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# the hot lines of the warm RCU ROI at 20 cores (the curve's own parameters: the trace changes no simulated figure),
# kept unless FRESH=1; the study before it (session 59) used the cold ROI's trace of -share-cache-reclaim-warm
d=$out/020c-reclaim-stock-hotlines
if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores 20 --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores 20 --gem5 board=e7-8870 --gem5 cpu=timing --gem5 hotlines=1 \
      --workload reclaim --kernel-variant stock --param reclaim.chunk=50 --param reclaim.every=1 \
      --param reclaim.iters=2000 --param reclaim.warmup=2000 --out "$d"
  # the trace kept as xz in 4 MiB parts (no tracked file reaches 5 MiB; `vmscale hotlines` reads them in order)
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
      > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
      && rm hotlines.events.xz)
fi
.venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
traces=$d/hotlines.csv
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --hotlines $traces \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput, warmed-up reclaim"
