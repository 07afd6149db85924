#!/bin/bash
# RadixVM Figure 5's `local` and Bonsai Figures 16-17's `fault` on the reference board, on the image
# whose workloads warm up before the ROI (session 37): each thread does one uncounted round first
# (local: an mmap/write/munmap of its region, which builds its radix-tree nodes and fills its CPU's
# page and slab lists; fault: one pass over its slice and the MADV_DONTNEED, which allocates its
# page-table page and fills its CPU's page lists and LRU batches), and the counters are read after
# it.  At 80 cores that start-up was most of per-core RadixVM's 10-round ROI (FINDINGS, session 36).
# With the start-up out of the ROI, shorter ROIs: local 10 rounds per thread, fault two rounds of 64
# pages, no mmap/munmap; a case named with a last -R runs R rounds (010c-local-stock-40,
# 010c-fault-stock-4: the slope, what is left of a ROI's fixed part: C = F + c k).  One run
# directory per case, restored from one checkpoint per core count; a case with a manifest is kept
# unless FRESH=1.  With neither CORES nor CASES set, the record's own cases (below); CORES="10 80" and
# CASES="local-stock ..." choose others (their product).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-warm
all="local-radixvm-percore local-stock local-radixvm fault-stock fault-rwlock fault-rcu"
variants="stock radixvm radixvm-percore rwlock rcu"
# the record: Figure 5's local and Figures 16-17's fault at 1-80 cores, the 40-round local curves (the steady state;
# the shared-table RadixVM's since session 51)
# and fault's 4-round slope at 10 (and 40, 80: rcu, rwlock), per-core RadixVM at 160, and fault/stock and rwlock at 160 (sessions 40, 41; a
# 160-core ROI grows gem5 to 11 GB resident: run one at a time on a machine under 32 GB)
record=""
for n in 1 2 4 10 20 40 80; do
  for c in $all local-radixvm-percore-40 local-stock-40 local-radixvm-40; do record+=" ${n}:$c"; done
done
record+=" 10:fault-stock-4 160:local-radixvm-percore 160:fault-stock 160:fault-rwlock"
# fault's 4-round points at 40 and 80 (sessions 47, 48): the slope from 2 rounds is the steady state there
record+=" 40:fault-rwlock-4 40:fault-rcu-4 80:fault-rcu-4 80:fault-rwlock-4 40:fault-stock-4 80:fault-stock-4"
# and at 1-20 (session 62): the steady-state curve of its own, fitted on two sockets and judged at 40 and 80
for n in 1 2 4 10 20; do
  for c in fault-stock-4 fault-rwlock-4 fault-rcu-4; do
    [ "$n:$c" = 10:fault-stock-4 ] || record+=" ${n}:$c"
  done
done
# and the shared-table RadixVM's local at 160 (session 63), Linux's (session 65, 3,117 host s: its mmap_lock's waiters
# sleep once the queue forms): their curves' 8x points
record+=" 160:local-radixvm 160:local-stock"
# and Linux's with 20 rounds (session 66, 5,086 host s to its ROI's end): the slope from 10 to 20 rounds at 160
record+=" 160:local-stock-20"
if [ -n "${CORES:-}${CASES:-}" ]; then
  record=""
  for n in ${CORES:-10 20 40 80}; do for c in ${CASES:-$all}; do record+=" ${n}:$c"; done; done
fi
for nc in $record; do
    n=${nc%%:*} c=${nc#*:}
    w=${c%%-*} v=${c#*-} rounds=
    case ${v##*-} in [0-9]*) rounds=${v##*-} v=${v%-*} ;; esac
    case " $variants " in *" $v "*) ;; *) echo "make.sh: unknown case $c (one of: $all, with -R)" >&2; exit 2 ;; esac
    case $w in
      fault) params=(--param fault.iters=${rounds:-2} --param fault.pages=64 --param fault.mmap_pct=0) ;;
      local) params=(--param local.iters=${rounds:-10}) ;;
      *) echo "make.sh: unknown case $c (one of: $all, with -R)" >&2; exit 2 ;;
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
finished=$(ls -d "$out"/[0-9]*c-*/manifest.json 2>/dev/null | xargs -rn1 dirname)
[ -n "$finished" ] || exit 0
.venv/bin/vmscale collect --restat $finished -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# the models fitted on two sockets (1-20 cores), judged past them; the hot-line traces (the image before,
# results/gem5-e7-8870-{fault,local}-hotlines) and the lock holds profiled on this image (those past 20 cores, as
# local/stock's at 160, only check what the stations carried: the verdict's "locks where profiled past the fit")
traces=$(ls results/gem5-e7-8870-{fault,local}-hotlines/0*c-*/hotlines.csv)
holds=$(ls results/gem5-e7-8870-profiles/[01]*c-*-warm/holds.csv 2>/dev/null || true)
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput; the warm-up image"
.venv/bin/vmscale model study "$out/table.csv" --train-max 20 --min-points 5 --out "$out/study-20" --note "$note" \
    --hotlines $traces ${holds:+--holds $holds}
# the same stations past the simulated machine: 160, 1,024 and 4,096 cores on the board's sockets, a crossbar and a mesh
.venv/bin/vmscale model beyond "$out/table.csv" --train-max 20 --out "$out/beyond-20" --note "$note" \
    --hotlines $traces ${holds:+--holds $holds}
