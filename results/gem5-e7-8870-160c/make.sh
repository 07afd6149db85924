#!/bin/bash
# The reference board's sockets doubled: 160 cores, sixteen sockets of ten (a machine the seeds did
# not have: the sockets topology's Moebius ladder, 3 links per socket as on the eight-socket Xeon, so
# every other socket is 1 to 4 hops away: 3 at one, 4 at two, 4 at three, 4 at four), for the
# model's 8x point beyond two sockets.  The cases of results/gem5-e7-8870-80c with the same
# parameters, kernel and image (refcount: 2,000 pairs per thread in chunks of 100; fault: four rounds
# of 64 pages; local under per-core RadixVM: 40 rounds, as results/gem5-e7-8870-fig5's
# sweep-local-80-percore), so that each point joins its curve.  One run directory per case, all
# restored from one checkpoint (the boot: ~1,400 host s, resumable in legs); a case with a manifest
# is kept unless FRESH=1.  CASES="refcount-stock ..." runs only those.  GEM5 must be set.  The cases
# need the harness whose threads park after the ROI and then exit one at a time (sessions 35-36):
# with threads that gave their stacks back as they exited, the shared atomic's tear-down had not
# simulated 10 ms in 5,000 host s; with 160 parked threads ended together by exit_group, not 10 ms
# in 6 host minutes (all spinning on the process's siglock and tasklist_lock).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-160c
n=160
all="refcount-stock refcount-refcache refcount-percpu-ref local-radixvm-percore fault-stock fault-rcu fault-rwlock"
for c in ${CASES:-$all}; do
  w=${c%%-*} v=${c#*-}
  case $w in
    refcount) params=(--param refcount.iters=2000 --param refcount.chunk=100) ;;
    fault) params=(--param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0) ;;
    local) params=(--param local.iters=40) ;;
    *) echo "make.sh: unknown case $c (one of: $all)" >&2; exit 2 ;;
  esac
  d=$out/$(printf %03dc $n)-$c
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870 --max-host-seconds 2400
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload "$w" --kernel-variant "$v" \
      "${params[@]}" --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
done
# the table and report of the cases finished so far
finished=$(ls -d "$out"/160c-*/manifest.json 2>/dev/null | xargs -rn1 dirname)
[ -n "$finished" ] || exit 0
.venv/bin/vmscale collect --restat $finished -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
