#!/bin/bash
# The reference board's curves from 1 to 20 cores, put together from three records (nothing is run
# here): results/gem5-e7-8870 (1, 2, 4, 10 cores), results/gem5-e7-8870-refcount (20 cores) and
# results/gem5-e7-8870-fault (20 cores).  The 20-core points come from a later image and run script;
# each of those records' 10-core runs is the check of one against the other.  Then every model
# fitted on 1-10 cores (one socket) and judged at 20 (two sockets), beside the USL fitted to the same
# points: the study's methods, and the fit carried by the board's distances (`model sockets`).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-to-20c
.venv/bin/vmscale collect --restat results/gem5-e7-8870/jobs/* results/gem5-e7-8870-refcount/020c \
    results/gem5-e7-8870-fault/020c-{stock,rwlock,rcu} -o "$out/table.csv"
.venv/bin/vmscale report "$out/table.csv" --out "$out/report"
.venv/bin/vmscale model study "$out/table.csv" --train-max 10 --min-points 5 --out "$out/study-10" \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput; 1-10 and 20 cores from two images"
.venv/bin/vmscale model sockets "$out/table.csv" --train-max 10 --out "$out/sockets" \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, board=e7-8870, window throughput; 1-10 and 20 cores from two images"
