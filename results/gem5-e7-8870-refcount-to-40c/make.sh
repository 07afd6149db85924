#!/bin/bash
# refcount on the reference board (board=e7-8870) at 1, 2, 4, 10, 20 and 40 cores from one image:
# a shared atomic, Refcache and percpu_ref, 2,000 pairs per thread counted every 100 (the
# parameters of results/gem5-e7-8870-refcount).  The image whose refcount opens its
# /proc/refcache_bench files before the ROI (the earlier records opened them inside it, and at 40
# cores 25 threads spent their ROI on the zone lock: FINDINGS, session 29) and faults its threads'
# stacks in before it (session 30); the kernel whose /proc/refcache_bench is a permanent entry, so
# a write takes no count on a line all threads share (session 31).  One run directory per
# core count and counter, so a session that ends mid-way keeps what it finished: a case with a
# manifest is kept unless FRESH=1.  CORES="1 2 4" runs only those core counts (two make.sh with
# disjoint CORES use a host's two cores).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-refcount-to-40c
for n in ${CORES:-1 2 4 10 20 40}; do
  for v in stock refcache percpu-ref; do
    d=$out/$(printf %03dc $n)-$v
    [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
    rm -rf "$d"
    .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload refcount \
        --kernel-variant $v --param refcount.iters=2000 --param refcount.chunk=100 --out "$d"
    (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
  done
done
[ -n "${CORES:-}" ] && exit 0
.venv/bin/vmscale collect --restat "$out"/0*c-* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
