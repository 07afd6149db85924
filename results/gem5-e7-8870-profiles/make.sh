#!/bin/bash
# Where the threads' time goes, sampled: reference-board runs made with --gem5 roi_profile=$window (every
# 100 us of the ROI, 500 ns of every CPU's instructions traced with their kernel symbols; the
# run's figures are the untraced run's), read by `vmscale threads` (threads.csv, symbols.csv,
# threads.png: each thread's cycles against its instructions, and the CPUs' sampled time through
# the ROI).  Cases (one run directory each, kept once it has a manifest unless FRESH=1; CASES=
# picks some):
#   040c-fault-stock-64, 080c-fault-stock-64: fault under per-VMA locks, one round of 64 pages per
#     thread (a quarter of the curves' ROI: the same faults, one MADV_DONTNEED per thread at its end);
#   080c-local-radixvm-percore-10: local under per-core RadixVM, 10 rounds per thread (as
#     results/gem5-e7-8870-fig5/sweep-local-80).
# The trace is kept as m5out/trace.out.xz.  And on the image whose workloads warm up (session 37),
# for the lock holds (`vmscale threads` writes holds.csv: a hold must fit in a window):
#   010c-fault-stock-warm, 020c-fault-stock-warm (and -rwlock-, -rcu-): fault as results/gem5-e7-8870-warm
#     (two rounds of 64 pages), 20 us of every 100 us traced; the trace (gigabytes) is not kept, its tables are;
#     040c-fault-rcu-warm past the fitted counts (what the model carried the LRU lock's hold to), and
#     080c-fault-rcu-warm (session 46) where the model fitted on 1-20 errs -14.3%.  Since session 40
#     those at 10 and 20 cores trace 90 us of every 100: the LRU lock's 17-41 holds seen at 20 us decided
#     their 80-core verdicts (results/FINDINGS.md, session 40); the holds' spread is kept (hold_sd_cycles).
#   010c-local-stock-warm, 020c-local-stock-warm: local under Linux 6.12, four rounds per thread after the
#     warm-up, 90 us of every 100 us traced (mmap_lock's write holds and hand-offs are tens of us);
#     040c-local-stock-warm the same at 40 cores (past the model's fitted counts: what its prediction carried);
#     002c-, 004c-local-stock-warm and, in place of their four rounds, 010c- and 020c-local-stock-warm with 16 rounds
#     (session 66, the current image): on one socket, where no transfer lengthens, how mmap_lock's hand-off grows with
#     its waiters, and four times the takings at 20 for the path's line;
#     160c-local-stock-warm (session 67: 4,971 host s, 12 GB) the same four rounds at 160 cores, 200 us of every
#     1,000 traced (roi_profile_period), from 20 ms into the ROI (roi_profile_start: its first ms, every mmap_lock
#     waiter spinning, took 55 min untraced and, traced at 90 us of every 1,000 in session 66, over 23 min for 6 ms):
#     what the model carried mmap_lock's cycle to, in the steady state.
#   010c-pagecache-locked-warm, 020c-pagecache-locked-warm: pagecache under the mapping's i_pages lock, and
#   010c-pageshare-atomic-warm, 020c-pageshare-atomic-warm: pageshare under radixvm-atomic, both with the
#     parameters of results/gem5-e7-8870-share-cache-reclaim-warm, 90 us of every 100 us traced (session 43: their
#     holds.csv pairs a queued spinlock's hand-offs, which the profiles made before have none of; since session 44
#     it also has the shoot-down IPIs' handler time, kind 'ipi');
#   080c-pageshare-atomic-500: the same case at 80 cores (where every model fitted on 1-20 missed it), 500 ns of
#     every 100 us traced: where an operation's sixfold growth from 40 cores goes.
#   080c-reclaim-stock-500: reclaim under RCU at 80 cores, as results/gem5-e7-8870-share-cache-reclaim-warm, 500 ns
#     of every 100 us traced: where its slower threads' time goes (the fastest finished in 40% of the slowest's cycles);
#   040c-reclaim-stock-warm: the same at 40 cores as results/gem5-e7-8870-reclaim-warm (50 iterations per write),
#     90 us of every 100 us traced: which spinlock its CPUs queue on (holds.csv names the lock's call sites: the
#     zone lock, refilling per-CPU page lists for the node cache's new slabs); 010c-, 020c-reclaim-stock-warm the
#     same at 10 and 20 cores, the lock stations of the model fitted on 1-20 (and -parsec- for PARSEC's).
#   010c-pagecache-locked-ownfd, 020c-pagecache-locked-ownfd (session 50): the locked page cache with a fd per thread
#     (pagecache.own_fd=1), as results/gem5-e7-8870-pagecache-own-fd, 90 us of every 100 us traced: the i_pages
#     lock's holds and hand-offs for that record's lock stations (its image, not the warm-up one).
#   010c-pipeline-radixvm-40, 020c-pipeline-radixvm-40 (session 55): pipeline under the shared-table RadixVM, 40 pages a
#     thread, as results/gem5-e7-8870-pipeline-global (its image), 90 us of every 100 us traced: the shoot-down IPIs'
#     handler time (holds.csv, kind 'ipi') that every thread takes from the others' munmaps, for the ring's receivers;
#   020c-pipeline-radixvm-percore-500, 080c-pipeline-radixvm-percore-500 (session 55): pipeline under per-core RadixVM, 40
#     pages a thread, 500 ns of every 100 us traced: where the ring's threads spend their time at 80 against 20 cores.
#   080c-pipeline-radixvm-percore-warm80 (session 56): the same with 80 pages a thread, after a warm-up case (local, 4
#     rounds a thread, same variant) in the same restore: whether the ring's pace at 80 slows as the run goes on
#     (the 160-page point, 318.0k cycles a page as a restore's first case, against 222.7k with 40 pages after a warm case).
#     Measured: 193.4k, faster than 40 pages (FINDINGS, sessions 56-57).
#   080c-pipeline-radixvm-percore-warm160 (not run yet, so not in the default list: CASES=... runs it): 160 pages after
#     the same warm-up, ~2.5 h of host: whether the 160-page point's 318.0k was its start or its length (past 6.5 ms).
# KEEP_TRACES=DIR moves a trace that is not kept into DIR (as CASE.trace.out.*) instead of deleting it.
# GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-profiles
all="040c-fault-stock-64 080c-fault-stock-64 080c-local-radixvm-percore-10 010c-fault-stock-warm 020c-fault-stock-warm
     010c-fault-rwlock-warm 020c-fault-rwlock-warm 010c-fault-rcu-warm 020c-fault-rcu-warm 040c-fault-rcu-warm 080c-fault-rcu-warm
     002c-local-stock-warm 004c-local-stock-warm 010c-local-stock-warm 020c-local-stock-warm 040c-local-stock-warm
     160c-local-stock-warm
     010c-pagecache-locked-warm
     020c-pagecache-locked-warm 010c-pageshare-atomic-warm 020c-pageshare-atomic-warm 080c-pageshare-atomic-500
     080c-reclaim-stock-500 040c-reclaim-stock-warm 010c-reclaim-stock-warm 020c-reclaim-stock-warm
     010c-reclaim-parsec-warm 020c-reclaim-parsec-warm 010c-pagecache-locked-ownfd 020c-pagecache-locked-ownfd
     010c-pipeline-radixvm-40 020c-pipeline-radixvm-40 020c-pipeline-radixvm-percore-500 080c-pipeline-radixvm-percore-500
     080c-pipeline-radixvm-percore-warm80"
for c in ${CASES:-$all}; do
  n=$((10#${c%%c-*})) window=500 period= start=
  case $c in
    *-fault-stock-64) w=fault v=stock params=(--param fault.iters=1 --param fault.pages=64 --param fault.mmap_pct=0) ;;
    *-fault-*-warm) w=fault v=${c#*-fault-} v=${v%-warm} window=20000 params=(--param fault.iters=2 --param fault.pages=64 --param fault.mmap_pct=0)
      case $c in 0[12]0c-fault-*-warm) window=90000 ;; esac ;;
    *-local-stock-warm) w=local v=stock window=90000 params=(--param local.iters=4)
      case $c in 00[24]c-*|0[12]0c-*) params=(--param local.iters=16) ;; 160c-*) window=200000 period=1000 start=20000 ;; esac ;;
    *-pagecache-locked-warm) w=pagecache v=pagecache-locked window=90000
      params=(--param pagecache.iters=200 --param pagecache.file_pages=64 --param pagecache.mmap=0) ;;
    *-pagecache-locked-ownfd) w=pagecache v=pagecache-locked window=90000
      params=(--param pagecache.iters=200 --param pagecache.file_pages=64 --param pagecache.mmap=0
              --param pagecache.own_fd=1) ;;
    *-pageshare-atomic-warm) w=pageshare v=radixvm-atomic window=90000 params=(--param pageshare.iters=40) ;;
    *-pageshare-atomic-500) w=pageshare v=radixvm-atomic params=(--param pageshare.iters=40) ;;
    *-reclaim-stock-500) w=reclaim v=stock
      params=(--param reclaim.iters=2000 --param reclaim.chunk=1000 --param reclaim.every=1) ;;
    *-reclaim-*-warm) w=reclaim v=${c#*-reclaim-} v=${v%-warm} window=90000
      params=(--param reclaim.iters=2000 --param reclaim.chunk=50 --param reclaim.every=1) ;;
    *-pipeline-radixvm-40) w=pipeline v=radixvm window=90000 params=(--param pipeline.iters=40) ;;
    *-pipeline-radixvm-percore-500) w=pipeline v=radixvm-percore params=(--param pipeline.iters=40) ;;
    *-pipeline-radixvm-percore-warm80) w=local,pipeline v=radixvm-percore
      params=(--param local.iters=4 --param pipeline.iters=80) ;;
    *-pipeline-radixvm-percore-warm160) w=local,pipeline v=radixvm-percore
      params=(--param local.iters=4 --param pipeline.iters=160) ;;
    *-local-radixvm-percore-10) w=local v=radixvm-percore params=(--param local.iters=10) ;;
    *) echo "make.sh: unknown case $c (one of: $all)" >&2; exit 2 ;;
  esac
  d=$out/$c
  [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
  rm -rf "$d"
  .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
  .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 roi_profile=$window \
      ${period:+--gem5 roi_profile_period=$period} ${start:+--gem5 roi_profile_start=$start} --workload $w \
      --kernel-variant $v "${params[@]}" --out "$d"
  (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
  .venv/bin/vmscale threads "$d"
  if [ $window = 500 ]; then
    (cd "$d/m5out" && gzip -dc trace.out.gz | xz -9 > trace.out.xz && rm trace.out.gz)
  fi
  # a trace is kept as xz under 4 MiB (no tracked file reaches 5 MiB; 080c-pageshare-atomic-500's is 17 MB)
  if [ -f "$d/m5out/trace.out.xz" ] && [ $(stat -c %s "$d/m5out/trace.out.xz") -lt 4194304 ]; then
    :
  elif [ -n "${KEEP_TRACES:-}" ]; then
    for f in "$d"/m5out/trace.out.*; do mv "$f" "$KEEP_TRACES/$c.${f##*/}"; done
  else
    rm -f "$d"/m5out/trace.out.*
  fi
done
