#!/bin/bash
# Piggin's page cache with a fd per thread (pagecache.own_fd=1) on the reference board at 1-40 cores, lockless
# (stock) against locked lookups, and the models fitted on two sockets (1-20 cores) judged at 40.  The sweep is
# resumable (complete jobs are kept).  GEM5 must be set for a job not kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-pagecache-own-fd
spec=scripts/sweeps/gem5-e7-8870-pagecache-own-fd.toml
.venv/bin/vmscale sweep run "$spec" --parallel 1 --out "$out/sweep"
# (a finished job only: gzip must not take the files of a job still running)
for m in "$out"/sweep/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
for v in ${TRACED:-stock pagecache-locked}; do
    d=$out/020c-pagecache-$v-hotlines
    if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
      rm -rf "$d"
      .venv/bin/vmscale checkpoint --cores 20 --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores 20 --gem5 board=e7-8870 --gem5 hotlines=1 --workload pagecache \
          --kernel-variant "$v" --param pagecache.iters=200 --param pagecache.file_pages=64 --param pagecache.mmap=0 \
          --param pagecache.own_fd=1 --out "$d"
      # the trace kept as xz in 4 MiB parts (no tracked file reaches 5 MiB; `vmscale hotlines` reads them in order)
      (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
          > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
          && rm hotlines.events.xz)
    fi
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
done
.venv/bin/vmscale collect --restat $(ls -d "$out"/sweep/jobs/*/manifest.json | xargs -n1 dirname) -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput"
traces=$(ls "$out"/0*c-*-hotlines/hotlines.csv 2>/dev/null || true)
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --note "$note" \
    ${traces:+--hotlines $traces}
