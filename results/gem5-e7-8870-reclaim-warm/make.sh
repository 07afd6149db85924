#!/bin/bash
# PARSEC's reclaim on the reference board at 1-40 and 80 cores, RCU (stock) and PARSEC, 50 iterations per write to
# /proc/parsec_bench so that the window throughput counts a thread's operations in steps of 2.5% (the curves of
# results/gem5-e7-8870-share-cache-reclaim-warm wrote 1,000 of 2,000 at once: two steps), on the image the warm
# record's checkpoints boot; the models fitted on 1-20 cores and judged at 40 and 80, with the hot lines traced at
# 20 cores in that record (the same workload, 1,000 iterations per write: the lines per operation move little with
# the syscalls) and the lock holds profiled at 10 and 20 cores.  The sweeps are resumable (complete jobs are kept); GEM5 must be set for a job not complete.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-reclaim-warm
for s in "" -80; do
  .venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-warm$s.toml --parallel 1 --out "$out/sweep$s"
done
# (a finished job only: gzip must not take the files of a job another sweep is still running)
for m in "$out"/sweep*/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
.venv/bin/vmscale collect --restat $(ls -d "$out"/sweep*/jobs/*/manifest.json | xargs -n1 dirname) -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput"
traces=$(ls results/gem5-e7-8870-share-cache-reclaim-warm/020c-reclaim-*-hotlines/hotlines.csv)
# the lock holds profiled on this record's parameters (results/gem5-e7-8870-profiles: the zone lock)
holds=$(ls results/gem5-e7-8870-profiles/0*c-reclaim-*-warm/holds.csv 2>/dev/null || true)
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --note "$note" \
    --hotlines $traces ${holds:+--holds $holds}
