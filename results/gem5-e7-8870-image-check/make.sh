#!/bin/bash
# Do records of two images join one curve?  Session 35 changed the guest image (the harness's threads
# park after the ROI instead of exiting, and its .data/.bss pages are written before the threads
# start), so points measured since and points measured before sit on the same curves.  Three cases
# on the reference board with the new image, beside the same cases of the old image:
# refcount under the shared atomic at 10 and 20 cores (2,000 pairs per thread, chunks of 100:
# results/gem5-e7-8870-refcount-to-40c) and fault under per-VMA locks at 10 (four rounds of 64
# pages: results/gem5-e7-8870).  One run directory per case, kept once it has a manifest unless
# FRESH=1.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-image-check
for c in 010c-refcount-stock 020c-refcount-stock 010c-fault-stock; do
  n=$((10#${c%%c-*})) w=${c#*c-}; w=${w%-stock}
  d=$out/$c
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  case $w in
    refcount) params=(--param refcount.iters=2000 --param refcount.chunk=100) ;;
    fault) params=(--param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0) ;;
  esac
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload $w --kernel-variant stock \
      "${params[@]}" --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
.venv/bin/vmscale collect --restat "$out"/0*c-* -o "$out/table.csv"
# the old image's same cases
.venv/bin/vmscale collect --restat results/gem5-e7-8870-refcount-to-40c/0{1,2}0c-stock \
    results/gem5-e7-8870/jobs/010c-r0-46251565 -o "$out/old-image.csv"
