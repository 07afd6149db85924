#!/bin/bash
# Re-makes gem5-mesh-garnet with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-mesh-garnet
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

rm -rf "$out/runs/mesh-garnet-8c"
vm run --backend gem5 --cores 8 --workload refcount --kernel-variant stock,refcache,percpu-ref --param refcount.iters=2000 --param refcount.chunk=1000 --gem5 network=garnet --gem5 topology=mesh --out "$out/runs/mesh-garnet-8c"
tidy "$out/runs/mesh-garnet-8c/m5out"
vm collect $out/runs/* -o $out/table.csv
