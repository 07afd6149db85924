#!/bin/bash
# The reference board's curves from 1 to 40 cores, put together from records (nothing is run here):
# fault from results/gem5-e7-8870 (1, 2, 4, 10 cores), results/gem5-e7-8870-fault (20) and
# results/gem5-e7-8870-40c (40, four sockets); refcount from results/gem5-e7-8870-refcount-to-40c
# (1-40 from one image, the files opened before the ROI), which replaces gem5-e7-8870's refcount
# points (`collect --replace`).  Then every model fitted on 1-10 cores (one socket) and judged at 20
# and 40 (2x and 4x beyond, two and four sockets), beside the USL fitted to the same points: the
# study's methods (the board's distances among them), and the fit carried by the board's distances
# with its parts (`model sockets`).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-to-40c
note="gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput; fault 1-10, 20 and 40 cores from two images, refcount 1-40 from one"
.venv/bin/vmscale collect --restat --replace results/gem5-e7-8870/jobs/* results/gem5-e7-8870-fault/020c-{stock,rwlock,rcu} \
    results/gem5-e7-8870-40c/040c-fault-* results/gem5-e7-8870-refcount-to-40c/0*c-* -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
.venv/bin/vmscale model study "$out/table.csv" --train-max 10 --min-points 5 --out "$out/study-10" --note "$note"
.venv/bin/vmscale model sockets "$out/table.csv" --train-max 10 --out "$out/sockets" --note "$note"
