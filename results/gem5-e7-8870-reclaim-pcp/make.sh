#!/bin/bash
# PARSEC's reclaim on the reference board with the page allocator's per-CPU lists at the kernel's default and fixed at
# their largest (`pcp-high`: vm.percpu_pagelist_high_fraction = 8), at 10, 20 and 40 cores, 2,000 iterations a thread
# (scripts/sweeps/gem5-e7-8870-reclaim-pcp.toml: the four variants one after another from one restore; -pcp-first.toml:
# pcp-high alone, the first case after its restore as stock's is in the other).  Session 59: whether RCU's zone-lock refills,
# which the models fitted on 1-20 cores miss at 40 and 80 (+46%, +140%), grow with lists split over more CPUs or are
# the ROI's start.  The sweeps are resumable (complete jobs are kept); GEM5 must be set for a job not complete.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-reclaim-pcp
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-pcp.toml --parallel 1 --out "$out/sweep"
.venv/bin/vmscale sweep run scripts/sweeps/gem5-e7-8870-reclaim-pcp-first.toml --parallel 1 --out "$out/sweep-first"
# (a finished job only: gzip must not take the files of a job another sweep is still running)
for m in "$out"/sweep*/jobs/*/m5out; do [ -f "$m/../manifest.json" ] || continue; (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
# one table and report per sweep: pcp-high first after its restore and third after one are different conditions, and
# one curve would average them
for s in sweep sweep-first; do
  .venv/bin/vmscale collect --restat $(ls -d "$out/$s"/jobs/*/manifest.json | xargs -n1 dirname) -o "$out/$s/table.csv"
  .venv/bin/vmscale report "$out/$s/table.csv" --out "$out/$s/report"
done
