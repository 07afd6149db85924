#!/bin/bash
# The reference board's curves from 1 to 80 cores (the seeds' whole machine), put together from
# records (nothing is run here): results/gem5-e7-8870-to-40c's sources and results/gem5-e7-8870-80c
# (eight sockets; the cases it has so far), RadixVM Figure 5's (results/gem5-e7-8870-fig5: local to 80,
# pipeline and global to 20; per-core RadixVM's 40-round point at 80 replaces its 10-round one) and
# pageshare, pagecache and reclaim to 40 (results/gem5-e7-8870-share-cache-reclaim).  Then every
# model fitted on one socket (1-10 cores, judged at 20, 40 and 80: 2x, 4x, 8x) and on two (1-20, judged at 40 and 80: 2x, 4x), beside the
# USL fitted to the same points, and the fit carried by the board's distances with its parts.  Since
# session 36 the curves that results/gem5-e7-8870-160c has cases for go on to 160 cores (sixteen
# sockets; the image whose threads exit in turn), so the two-socket fit is judged there at 8x.  Since session 64
# refcount's curve is results/gem5-e7-8870-window-edges' 20,000 pairs a thread, on one image with the window's
# edges timed (1-80 cores, and 160 for the shared atomic and percpu_ref), in place of the records' 2,000-pair
# ROIs (gem5-e7-8870-refcount-to-40c, the 80- and 160-core records), whose edges were untimed and whose
# start-up was a quarter of the window at 80 (FINDINGS, session 63).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-to-80c
eighty=$(ls -d results/gem5-e7-8870-80c/080c-fault-*/manifest.json | xargs -n1 dirname)   # finished cases only
refcount=$(ls -d results/gem5-e7-8870-window-edges/*c-refcount-*-20000/manifest.json | xargs -n1 dirname)
fig5=results/gem5-e7-8870-fig5 scr=results/gem5-e7-8870-share-cache-reclaim
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput; fault 1-10, 20, 40, 80 cores from two images (results/gem5-e7-8870-image-check), refcount from one (20,000 pairs a thread, the window's edges timed), the rest from one per record"
.venv/bin/vmscale collect --restat --replace results/gem5-e7-8870/jobs/* results/gem5-e7-8870-fault/020c-{stock,rwlock,rcu} \
    results/gem5-e7-8870-40c/040c-fault-* $refcount $eighty \
    $fig5/jobs/* $fig5/sweep-20/jobs/* $fig5/sweep-local-40/jobs/* $fig5/sweep-local-80/jobs/* \
    $fig5/sweep-local-80-percore/jobs/* $scr/jobs/* $scr/sweep-20/jobs/* $scr/sweep-40/jobs/* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
# hot-line traces on the reference board (fault at 10 and 20 cores, the shared atomic at 10, 20 and 40,
# local/stock at 10 and 20): the study uses a curve's largest traced count not above its fitted ones
# (local/stock's only: 020c-local-radixvm was traced on the warm record's image, session 43, after this study was made)
traces=$(ls results/gem5-e7-8870-fault-hotlines/0*c-*/hotlines.csv results/gem5-e7-8870-local-hotlines/0*c-local-stock/hotlines.csv \
         results/gem5-e7-8870-handover/0*c-*/hotlines.csv \
         2>/dev/null || true)
# lock holds of fault/stock sampled at 10 and 20 cores (results/gem5-e7-8870-profiles, the warm-up image): the
# hotlocks method; the study uses the profiles at or below --train-max
holds=$(ls results/gem5-e7-8870-profiles/0*c-*-warm/holds.csv 2>/dev/null || true)
for n in 10 20; do
  .venv/bin/vmscale model study "$out/table.csv" --train-max $n --min-points 5 --out "$out/study-$n" --note "$note" \
      --hotlines $traces ${holds:+--holds $holds}
  .venv/bin/vmscale model sockets "$out/table.csv" --train-max $n --out "$out/sockets-$n" --note "$note"
done
# refcount's shared atomic past the simulated machine (its stations the traced line, carried by the distances of
# the board's sockets, a crossbar and a mesh): 160, 1,024 and 4,096 cores; fault's are in -warm/beyond-20
.venv/bin/vmscale model beyond "$out/table.csv" --workload refcount --train-max 20 --out "$out/beyond-20" \
    --note "$note" --hotlines $traces
