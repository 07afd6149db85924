#!/bin/bash
# Re-makes gem5-boot-cost with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-boot-cost
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }
# the boots of 1..64 cores (kernel before 0020), one at a time, then the cost table, laws and figure from the checkpoints they made
for n in 1 2 4 8 16 32 64; do vm checkpoint --cores $n; done
.venv/bin/python -m vmscale_gem5.bootcost $(ls -d build/checkpoints/*c-* | grep -v '\.') --out $out
