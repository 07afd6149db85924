#!/bin/bash
# The reference board (board=e7-8870) at 10 and 20 cores, refcount under a shared atomic, Refcache
# and percpu_ref (2,000 pairs per thread, counted every 100), made with the run script that starts
# no process but the workload and drains the console before each ROI (docs/gem5.md).  The 10-core
# point overlaps results/gem5-e7-8870 (the previous image and script): the check of one against the
# other.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-refcount
for n in 10 20; do
  d=$out/$(printf %03dc $n)
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload refcount \
      --kernel-variant stock,refcache,percpu-ref --param refcount.iters=2000 --param refcount.chunk=100 --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
.venv/bin/vmscale collect --restat "$out"/0*c -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
