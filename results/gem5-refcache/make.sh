#!/bin/bash
# Re-makes gem5-refcache with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-refcache
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

rm -rf "$out/runs/scale-16c"
vm run --backend gem5 --cores 16 --workload refcount,lazymm --kernel-variant stock,refcache,percpu-ref --param refcount.iters=2000 --param refcount.chunk=1000 --param lazymm.iters=100 --param lazymm.spin=2000 --out "$out/runs/scale-16c"
tidy "$out/runs/scale-16c/m5out"
rm -rf "$out/runs/scale-8c"
vm run --backend gem5 --cores 8 --workload refcount,lazymm --kernel-variant stock,refcache,percpu-ref --param refcount.iters=2000 --param refcount.chunk=1000 --param lazymm.iters=100 --param lazymm.spin=2000 --out "$out/runs/scale-8c"
tidy "$out/runs/scale-8c/m5out"
vm collect $out/runs/* -o $out/table.csv
vm report $out/table.csv --out $out/report
