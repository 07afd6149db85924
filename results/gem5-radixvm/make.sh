#!/bin/bash
# Re-makes gem5-radixvm with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-radixvm
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

rm -rf "$out/runs/radixvm-local-8c"
vm run --backend gem5 --cores 8 --workload local,pipeline --kernel-variant radixvm,stock --param local.iters=40 --param pipeline.iters=40 --out "$out/runs/radixvm-local-8c"
tidy "$out/runs/radixvm-local-8c/m5out"
rm -rf "$out/runs/radixvm-pageshare-8c"
vm run --backend gem5 --cores 8 --workload pageshare --kernel-variant radixvm,radixvm-atomic --param pageshare.iters=40 --out "$out/runs/radixvm-pageshare-8c"
tidy "$out/runs/radixvm-pageshare-8c/m5out"
vm collect $out/runs/* -o $out/table.csv
vm report $out/table.csv --out $out/report
