#!/bin/bash
# Re-makes gem5-hotlines with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-hotlines
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }
for d in 8c 16c 32c named; do bash "$out/$d/make.sh"; done
