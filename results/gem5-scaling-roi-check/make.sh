#!/bin/bash
# Re-makes gem5-scaling-roi-check with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-scaling-roi-check
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

rm -rf "$out/8c-4000-pairs"
vm run --backend gem5 --cores 8 --workload refcount --kernel-variant stock,refcache,percpu-ref --param refcount.iters=4000 --param refcount.chunk=1000 --out "$out/8c-4000-pairs"
tidy "$out/8c-4000-pairs/m5out"
