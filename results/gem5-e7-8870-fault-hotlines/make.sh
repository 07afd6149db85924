#!/bin/bash
# The lines Bonsai's fault moves on the reference board: `fault` under per-VMA locks (stock),
# mmap_lock read locking (rwlock) and RCU faults (rcu) at 10 cores (one socket; results/gem5-e7-8870-fault's parameters),
# its ROI traced (--gem5 hotlines=1: the trace changes no simulated figure) and `vmscale hotlines`
# naming the lines (hotlines.txt, hotlines.csv): the stations of the hot-line model.  One run
# directory per case, kept unless FRESH=1; the record's cases (below: all three at 10 cores, stock and rwlock at
# 20, rwlock at 80 (session 41), stock at 80 (session 46), rcu at 20 (session 61), or COUNTS="10 20" and
# VARIANTS="stock" (their product).  GEM5 must be set for a
# run that is not kept.
# Every trace to 40 cores holds 2,560 faults (64 pages, 40 / cores rounds per thread, at least one: 4 at 10, as the curve's
# points, 2 at 20): the rates per fault are the model's stations, and a trace's host time grows with its
# events (a 10-core trace is ~3x the untraced case).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-fault-hotlines
record="10:stock 10:rwlock 10:rcu 20:stock 20:rwlock 20:rcu 80:rwlock 80:stock"
if [ -n "${COUNTS:-}${VARIANTS:-}" ]; then
  record=""
  for n in ${COUNTS:-10}; do for v in ${VARIANTS:-stock rwlock rcu}; do record+=" $n:$v"; done; done
fi
for nv in $record; do
    n=${nv%%:*} v=${nv#*:}
    d=$out/$(printf %03dc $n)-fault-$v
    iters=$(( n >= 40 ? 1 : 40 / n ))
    if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
      rm -rf "$d"
      .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 hotlines=1 --workload fault \
          --kernel-variant $v --param fault.iters=$iters --param fault.pages=64 --param fault.mmap_pct=0 --out "$d"
      # the trace kept as xz (a third of gzip's size), in 4 MiB parts so that no tracked file reaches 5 MiB
      # (`vmscale hotlines` reads the parts in order; the 10- and 20-core traces are whole files)
      (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
          > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
          && rm hotlines.events.xz)
    fi
    # the analysis, re-made from the kept trace every time (gem5 is not needed for it; percpu.json keeps
    # the per-CPU offsets of a boot checkpoint since replaced)
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
done
