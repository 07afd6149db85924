#!/bin/bash
# Re-makes the 2-core record, then re-runs it: with the same kernel, image and gem5 binary the
# simulated ticks are identical (docs/reproducibility.md).  The ROIs are traced for hot lines
# (hotlines=1 observes, it changes no simulated figure); hotlines.csv names the lines that moved.
# GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-rerun-2c
rm -rf "$out/run"
.venv/bin/vmscale run --backend gem5 --cores 2 --workload refcount --kernel-variant stock,refcache \
    --param refcount.iters=4000 --param refcount.chunk=1000 --gem5 hotlines=1 --out "$out/run"
.venv/bin/vmscale hotlines "$out/run" --top 5
(cd "$out/run/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
.venv/bin/vmscale verify "$out" --rerun
