#!/bin/bash
# Re-makes gem5-forkcost with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-forkcost
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

rm -rf "$out/run"
vm run --backend gem5 --cores 8 --workload forkcopy --kernel-variant stock,radixvm,radixvm-percore --param forkcopy.threads=1 --param forkcopy.pages=256 --param forkcopy.iters=4 --out "$out/run"
tidy "$out/run/m5out"
vm collect --restat $out/run -o $out/table.csv
