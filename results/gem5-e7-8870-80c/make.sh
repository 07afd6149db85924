#!/bin/bash
# The reference board (board=e7-8870) whole: 80 cores, eight sockets of ten, the seeds' machine.
# refcount under a shared atomic, Refcache and percpu_ref (results/gem5-e7-8870-refcount-to-40c's
# parameters, kernel and image) and Bonsai's fault under per-VMA locking, RCU faults and mmap_lock read
# locking (results/gem5-e7-8870-fault's).  8x one socket, 4x two.  One run directory per case, all
# restored from one checkpoint, so that a session that ends mid-way keeps the cases it finished: a
# case with a manifest is kept unless FRESH=1.  CASES="refcount-stock fault-rcu ..." runs only
# those (two make.sh with disjoint CASES use a host's two cores; the checkpoint's lock lets one of
# them boot).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-80c
n=80
all="refcount-stock refcount-refcache refcount-percpu-ref fault-stock fault-rcu fault-rwlock"
for c in ${CASES:-$all}; do
  w=${c%%-*} v=${c#*-}
  case $w in
    refcount) params=(--param refcount.iters=2000 --param refcount.chunk=100) ;;
    fault) params=(--param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0) ;;
    *) echo "make.sh: unknown case $c (one of: $all)" >&2; exit 2 ;;
  esac
  d=$out/$(printf %03dc $n)-$c
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload "$w" --kernel-variant "$v" \
      "${params[@]}" --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
[ -n "${CASES:-}" ] && exit 0
.venv/bin/vmscale collect --restat "$out"/080c-* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
