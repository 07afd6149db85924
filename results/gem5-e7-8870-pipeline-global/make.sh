#!/bin/bash
# RadixVM Figure 5's pipeline and global on the reference board at 1-80 cores, on the image of
# gem5-e7-8870-warm and -pagecache-own-fd (session 52; gem5-e7-8870-fig5 has them at 1-20 on the image
# before): the sweeps (resumable: complete jobs are kept; 1-20 cores in sweep/jobs/, 40 in sweep-40/jobs/,
# without Linux's pipeline there; 80 in sweep-80/ (pipeline, RadixVM's two designs), and RadixVM's pipeline
# with 160 pages a thread at 40 in sweep-long-40/ (the steady state, by the slope), session 53), the
# hot-line traces of pipeline at 20 cores (the hot-line model's
# stations) and at 40 (a check), each thread's busy and waiting time in them (`vmscale ring`: ring.csv, the
# ring model's input), the table with the window throughput and capacity columns, the report, and the models
# fitted on two sockets (1-20 cores) judged at 40 and 80.  GEM5 must be set for a job or trace not kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-pipeline-global
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-pipeline-global.toml --parallel 1 --out "$out/sweep"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-pipeline-global-40.toml --parallel 1 --out "$out/sweep-40"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-pipeline-global-80.toml --parallel 1 --out "$out/sweep-80"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-pipeline-long-40.toml --parallel 1 --out "$out/sweep-long-40"
# 160 pages a thread at 1-20 and, per-core only, 80 (session 54): the curve at that size and the slope between the sizes
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-pipeline-long.toml --parallel 1 --out "$out/sweep-long"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-pipeline-long-80.toml --parallel 1 --out "$out/sweep-long-80"
# (a finished job only: gzip must not take the files of a job still running)
for m in "$out"/sweep*/jobs/*/m5out; do
  [ -f "$m/../manifest.json" ] || continue
  (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; })
done
# the traces (the sweep's ROI, --gem5 hotlines=1, which changes no simulated figure), one run directory per case,
# kept once it has its manifest unless FRESH=1; TRACED="N:WORKLOAD:VARIANT ..." chooses others (Linux's pipeline
# at 20 cores, 20:pipeline:stock: its untraced 95 ms ROI took 1,278-2,606 host s, traced some hours; per-core RadixVM's at
# 80, 80:pipeline:radixvm-percore: 0.7 ms of its 3.9 ms ROI in 25 min, about 2.3 h of ROI, session 55)
for c in ${TRACED:-20:pipeline:radixvm-percore 20:pipeline:radixvm 40:pipeline:radixvm-percore}; do
    IFS=: read -r n w v <<< "$c"
    d=$out/$(printf %03dc "$n")-$w-$v-hotlines
    if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
      rm -rf "$d"
      .venv/bin/vmscale checkpoint --cores "$n" --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores "$n" --gem5 board=e7-8870 --gem5 hotlines=1 --workload "$w" \
          --kernel-variant "$v" --param "$w.iters=$([ "$w" = pipeline ] && echo 40 || echo 2)" --out "$d"
      # the trace kept as xz in 4 MiB parts (no tracked file reaches 5 MiB; `vmscale hotlines` reads them in order)
      (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
          > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
          && rm hotlines.events.xz)
    fi
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
    [ "$w" != pipeline ] || .venv/bin/vmscale ring "$d" > "$d/ring.txt"
done
runs=$(ls -d "$out"/sweep*/jobs/*/manifest.json | xargs -n1 dirname)
.venv/bin/vmscale collect --restat $runs -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
traces=$(ls "$out"/0*c-*-hotlines/hotlines.csv 2>/dev/null || true)
rings=$(ls "$out"/0*c-*-hotlines/ring.csv 2>/dev/null || true)
# the shoot-down IPIs' handler time the shared tables' threads take from each other (session 55: the ring's receivers)
holds=$(ls results/gem5-e7-8870-profiles/0*c-pipeline-*/holds.csv 2>/dev/null || true)
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput" ${traces:+--hotlines $traces} \
    ${rings:+--rings $rings} ${holds:+--holds $holds}
# past the simulated machine (session 54): the ring (and the hot-line model beside it) at 160, 1,024 and 4,096
# cores on the sockets, crossbar and mesh interconnects, fitted on 1-20
.venv/bin/vmscale model beyond "$out/table.csv" --workload pipeline --train-max 20 --out "$out/beyond-20" \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput" --hotlines $traces \
    --rings $rings ${holds:+--holds $holds}
