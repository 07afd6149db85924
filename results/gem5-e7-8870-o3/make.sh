#!/bin/bash
# The fidelity card on the reference board: `fault` (256 faults per thread, no mmap/munmap),
# `refcount` (2,000 get/put pairs per thread) and RadixVM's `local`, `pipeline` and `global` (the ROI
# sizes of results/gem5-e7-8870-fig5), `pageshare`, `pagecache` and `reclaim` (those of
# results/gem5-e7-8870-share-cache-reclaim) with gem5's O3 CPU (`cpu=o3`) beside the Timing CPU's runs
# of the same cases (results/gem5-e7-8870, results/gem5-e7-8870-refcount-to-40c: 51,294 cycles per
# fault at one core), against Bonsai's 7,400 cycles per fault at 10 cores on the real E7-8870
# (Figure 17).  Restored from the Atomic boot the Timing runs use (the fault cases of stock and rcu from the image before
# refcount opened its files ahead of its ROI; the refcount cases from the image and kernel of
# results/gem5-e7-8870-refcount-to-40c;
# fault/rwlock, pageshare, pagecache and reclaim from the image and kernel of results/kernel-reproducible).
# O3 spends most of a run's host time outside its ROI (10 cores: a 600 host-second ROI, then 25 ms of
# guest tear-down that O3 takes two hours over), so the runs switch to the Timing CPU outside the ROIs
# (`tail_cpu=timing`); 001c-stock, made without the switch, is the check that the ROI is the same.
# A case with a manifest is kept unless FRESH=1.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-o3
# cores:workload:variant:tail_cpu ('-': no switch); CASES="..." runs only those
all="1:fault:stock:- 1:fault:stock:timing 1:fault:rcu:timing 10:fault:stock:timing 10:fault:rcu:timing
     10:fault:rwlock:timing 1:refcount:stock:timing 10:refcount:stock:timing 1:refcount:refcache:timing
     10:refcount:refcache:timing 1:local:stock:timing 1:local:radixvm-percore:timing 10:local:radixvm-percore:timing
     10:local:stock:timing 1:pipeline:stock:timing 1:pipeline:radixvm-percore:timing 1:global:stock:timing
     1:global:radixvm-percore:timing 10:pipeline:radixvm-percore:timing 10:global:radixvm-percore:timing
     10:global:stock:timing 10:pipeline:stock:timing 1:fault:rwlock:timing 1:pageshare:radixvm:timing
     10:pageshare:radixvm:timing 1:pageshare:radixvm-atomic:timing 10:pageshare:radixvm-atomic:timing
     1:pagecache:stock:timing 10:pagecache:stock:timing 1:pagecache:pagecache-locked:timing
     10:pagecache:pagecache-locked:timing 1:reclaim:stock:timing 10:reclaim:stock:timing 1:reclaim:parsec:timing
     10:reclaim:parsec:timing"
for c in ${CASES:-$all}; do
  IFS=: read -r n w v tail <<< "$c"
  case $w in
    fault) params=(--param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0); name=$v ;;
    refcount) params=(--param refcount.iters=2000 --param refcount.chunk=100); name=refcount-$v ;;
    local) params=(--param local.iters=40); name=local-$v ;;
    pipeline) params=(--param pipeline.iters=40); name=pipeline-$v ;;
    global) params=(--param global.iters=2); name=global-$v ;;
    pageshare) params=(--param pageshare.iters=40); name=pageshare-$v ;;
    pagecache) params=(--param pagecache.iters=200 --param pagecache.file_pages=64 --param pagecache.mmap=0)
               name=pagecache-$v ;;
    reclaim) params=(--param reclaim.iters=2000 --param reclaim.chunk=1000 --param reclaim.every=1); name=reclaim-$v ;;
    *) echo "make.sh: unknown workload in $c" >&2; exit 2 ;;
  esac
  d=$out/$(printf %03dc $n)-$name
  tailopt=()
  if [ "$tail" != - ]; then d=$d-tail; tailopt=(--gem5 tail_cpu=$tail); fi
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 cpu=o3 "${tailopt[@]}" --workload $w \
      --kernel-variant $v "${params[@]}" --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
[ -n "${CASES:-}" ] && exit 0
.venv/bin/vmscale collect --restat "$out"/0*c-* -o "$out/table.csv"
