#!/bin/bash
# pageshare, pagecache and reclaim on the reference board at 1-40 cores (the contended two, pageshare under
# radixvm-atomic and pagecache-locked, reclaim and Refcache also at 80), on the image
# the warm record's checkpoints boot
# (results/gem5-e7-8870-share-cache-reclaim ran the image before: its harness wrote the program's statics inside the
# ROI and queued every thread on one start counter), and their hot lines traced at 20 cores (--gem5 hotlines=1, the
# curve's own parameters: the trace changes no simulated figure) for the hot-line models fitted on 1-20 and judged
# at 40 and 80: the contended designs first (TRACED picks others, as count:workload:variant).  The sweep is resumable
# (complete jobs are kept); a traced case with a manifest is kept unless FRESH=1.  GEM5 must be set for a run not
# kept.  The lockless page cache's trace (20:pagecache:stock, session 48) boots the image after ccbench's fix of
# session 45, which changed no workload of this record.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-share-cache-reclaim-warm
spec=scripts/sweeps/gem5-e7-8870-share-cache-reclaim-warm.toml
.venv/bin/vmscale sweep run "$spec" --parallel 1 --out "$out/sweep"
# at 80 cores (4x the fitted counts), a job each: the contended designs, reclaim and Refcache
for w in pagecache pageshare reclaim refcache; do
  .venv/bin/vmscale sweep run "${spec%.toml}-80-$w.toml" --parallel 1 --out "$out/sweep-80-$w"
done
# (a finished job only: gzip must not take the files of a job another sweep is still running)
for m in "$out"/sweep*/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
for t in ${TRACED:-20:pagecache:pagecache-locked 20:pageshare:radixvm-atomic 20:pagecache:stock 20:pageshare:radixvm \
                 20:reclaim:stock 20:reclaim:parsec}; do
    n=${t%%:*} c=${t#*:}
    w=${c%%:*} v=${c#*:}
    case $w in      # the sweep's own parameters, the workload's only
      pageshare) params=(--param pageshare.iters=40) ;;
      pagecache) params=(--param pagecache.iters=200 --param pagecache.file_pages=64 --param pagecache.mmap=0) ;;
      reclaim) params=(--param reclaim.iters=2000 --param reclaim.chunk=1000 --param reclaim.every=1) ;;
      *) echo "make.sh: unknown traced case $t" >&2; exit 2 ;;
    esac
    d=$out/$(printf %03dc $n)-$w-$v-hotlines
    if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
      rm -rf "$d"
      .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 hotlines=1 --workload $w \
          --kernel-variant $v "${params[@]}" --out "$d"
      # the trace kept as xz in 4 MiB parts (no tracked file reaches 5 MiB; `vmscale hotlines` reads them in order)
      (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
          > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
          && rm hotlines.events.xz)
    fi
    # the analysis, re-made from the kept trace (percpu.json keeps the per-CPU offsets of its boot)
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
done
# the jobs that finished (a job still running, or stopped, has no manifest)
.venv/bin/vmscale collect --restat $(ls -d "$out"/sweep*/jobs/*/manifest.json | xargs -n1 dirname) -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# the models fitted on two sockets (1-20 cores), judged at 40 and 80, with the hot lines traced here and the lock
# holds profiled at 10 and 20 cores on this image (results/gem5-e7-8870-profiles)
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput"
traces=$(ls "$out"/0*c-*-hotlines/hotlines.csv 2>/dev/null || true)
holds=$(ls results/gem5-e7-8870-profiles/0*c-page{cache,share}-*-warm/holds.csv 2>/dev/null || true)
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --note "$note" \
    ${traces:+--hotlines $traces} ${holds:+--holds $holds}
# the traced curves past the simulated machine: 160, 1,024 and 4,096 cores on the board's sockets, a crossbar and a mesh
.venv/bin/vmscale model beyond "$out/table.csv" --train-max 20 --out "$out/beyond-20" --note "$note" \
    ${traces:+--hotlines $traces} ${holds:+--holds $holds}
