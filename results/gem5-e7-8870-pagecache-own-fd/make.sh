#!/bin/bash
# Piggin's page cache with a fd per thread (pagecache.own_fd=1) on the reference board at 1-40 cores (the sweep) and
# 80 (both) and 160 (lockless), lockless (stock) against locked lookups, and the models fitted on two sockets (1-20 cores)
# judged past them, the locked one with its lock's holds (gem5-e7-8870-profiles/0{10,20}c-pagecache-locked-ownfd);
# the hot-line traces at 20 cores (the stations) and of the lockless design at 80 (a check, session 51).
# The sweep is resumable (complete jobs are kept).  GEM5 must be set for a job not kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-pagecache-own-fd
spec=scripts/sweeps/gem5-e7-8870-pagecache-own-fd.toml
# the runs outside the sweep (the points past it, the traces) take the spec's ROI
params=(--param pagecache.iters=200 --param pagecache.file_pages=64 --param pagecache.mmap=0 --param pagecache.own_fd=1)
.venv/bin/vmscale sweep run "$spec" --parallel 1 --out "$out/sweep"
# past the sweep, one run directory per case (session 50: the lockless design at 80 and 160 cores; session 51: the
# locked one at 80, a 30 ms ROI in 2.4 h of host), kept once it has its manifest unless FRESH=1; TOP="N:VARIANT ..."
# chooses others
for nv in ${TOP:-80:stock 160:stock 80:pagecache-locked}; do
    n=${nv%%:*} v=${nv#*:}
    d=$out/$(printf %03dc "$n")-pagecache-$v
    [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
    rm -rf "$d"
    .venv/bin/vmscale checkpoint --cores "$n" --gem5 board=e7-8870
    .venv/bin/vmscale run --backend gem5 --cores "$n" --gem5 board=e7-8870 --gem5 cpu=timing --workload pagecache \
        --kernel-variant "$v" "${params[@]}" --out "$d"
    (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
# (a finished job only: gzip must not take the files of a job still running)
for m in "$out"/sweep/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
# the traces: the model's stations at 20 cores, and the lockless design at 80 as a check of what it carries (session
# 51; never an input: a method learns only from traces at or below its fitted counts)
for nv in ${TRACED:-20:stock 20:pagecache-locked 80:stock}; do
    n=${nv%%:*} v=${nv#*:}
    d=$out/$(printf %03dc "$n")-pagecache-$v-hotlines
    if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
      rm -rf "$d"
      .venv/bin/vmscale checkpoint --cores "$n" --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores "$n" --gem5 board=e7-8870 --gem5 hotlines=1 --workload pagecache \
          --kernel-variant "$v" "${params[@]}" --out "$d"
      # the trace kept as xz in 4 MiB parts (no tracked file reaches 5 MiB; `vmscale hotlines` reads them in order)
      (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
          > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
          && rm hotlines.events.xz)
    fi
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
done
runs=$(ls -d "$out"/sweep/jobs/*/manifest.json "$out"/[0-9]*c-pagecache-*/manifest.json | grep -v -- -hotlines/ \
    | xargs -n1 dirname)
.venv/bin/vmscale collect --restat $runs -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput"
traces=$(ls "$out"/0*c-*-hotlines/hotlines.csv 2>/dev/null || true)
holds=$(ls results/gem5-e7-8870-profiles/0*c-pagecache-locked-ownfd/holds.csv 2>/dev/null || true)
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --note "$note" \
    ${traces:+--hotlines $traces} ${holds:+--holds $holds}
# the traced stations past the simulated machine: 160, 1,024 and 4,096 cores on the sockets, a crossbar and a mesh
.venv/bin/vmscale model beyond "$out/table.csv" --train-max 20 --out "$out/beyond-20" --note "$note" \
    ${traces:+--hotlines $traces} ${holds:+--holds $holds}
