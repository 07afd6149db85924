#!/bin/bash
# The window's edges timed (session 63): refcount's three counters on the reference board, with the
# harness whose window opens and closes at the mean time of its scans of every thread's count, beside
# the same cases measured before (results/gem5-e7-8870-refcount-to-40c at 40 cores,
# results/gem5-e7-8870-80c at 80), whose scans were untimed: the open read the counts before its clock
# and the close after its own, so the window counted half of each scan's span in operations and none in
# cycles (a transfer across the board's sockets per count: FINDINGS, session 63).  The same parameters as
# those records, 2,000 pairs a thread counted every 100, and ten times as many (a case named -20000):
# there the scans and the start-up are a tenth of the window.  One run directory per case, restored from
# one checkpoint per core count (session 63 ran 1, 2, 4, 40 and 80, session 64 10, 20 and, at 20,000 pairs, 160
# for percpu_ref and the shared atomic, session 65 Refcache's at 160: 6,222 host s); a case with
# a manifest is kept unless FRESH=1.  CORES="40" runs only
# those core counts, CASES="stock-20000" only those cases.  GEM5 must be set.  (The 40- and 80-core 2,000-pair cases ran from commit
# d841ec6c and 6f0efc3a with this harness: their manifests' image is this one's.)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-window-edges
all="percpu-ref refcache stock percpu-ref-20000 refcache-20000 stock-20000"
for n in ${CORES:-1 2 4 10 20 40 80 160}; do
  cases=${CASES:-$all}
  [ "$n" = 160 ] && [ -z "${CASES:-}" ] && cases="percpu-ref-20000 refcache-20000 stock-20000"
  for c in $cases; do
    v=${c%-20000} iters=2000
    [ "$v" = "$c" ] || iters=20000
    d=$out/$(printf %03dc $n)-refcount-$c
    [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
    rm -rf "$d"
    .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870 --max-host-seconds 2400
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --workload refcount \
        --kernel-variant $v --param refcount.iters=$iters --param refcount.chunk=100 --out "$d"
    (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
  done
done
# the table and report of the cases finished so far
finished=$(ls -d "$out"/[0-9]*c-*/manifest.json 2>/dev/null | xargs -rn1 dirname)
[ -n "$finished" ] || exit 0
.venv/bin/vmscale collect --restat $finished -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# the model judged on this curve is results/gem5-e7-8870-to-80c's study (refcount's points there are these)
