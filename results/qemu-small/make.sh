#!/bin/bash
# Re-makes qemu-small with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/qemu-small
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

vm sweep run scripts/sweeps/qemu-small.toml --out $out
vm report $out/table.csv --out $out/report --model
