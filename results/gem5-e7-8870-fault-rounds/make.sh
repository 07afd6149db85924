#!/bin/bash
# Is it the shoot-downs?  Bonsai's fault at 80 cores on the reference board with the same 256 faults
# per thread as results/gem5-e7-8870-80c, but in one round of 256 pages (one MADV_DONTNEED re-arm per
# thread in the ROI) instead of four rounds of 64: the broadcast TLB shoot-downs each re-arm sends to
# the other 79 CPUs fall fourfold per fault, everything else (the lock lines, the pages' homes, the
# page allocator's work) stays.  The difference from the 64-page point is what the shoot-downs cost.
# At 10 and 20 cores too (session 36, the image whose threads park): what a shoot-down received costs
# where the model is fitted.  One run directory per case, kept once it has a manifest unless
# FRESH=1; CASES= picks some variants, CORES= some core counts (default 80).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-fault-rounds
all="stock"
for n in ${CORES:-80}; do
for v in ${CASES:-$all}; do
  d=$out/$(printf %03dc $n)-$v-256
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload fault --kernel-variant "$v" \
      --param fault.iters=1 --param fault.pages=256 --param fault.mmap_pct=0 --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
done
[ -n "${CASES:-}${CORES:-}" ] && exit 0
.venv/bin/vmscale collect --restat "$out"/0*c-* results/gem5-e7-8870-80c/080c-fault-stock \
    results/gem5-e7-8870-fault/0{1,2}0c-stock -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
