#!/bin/bash
# Re-makes gem5-pageshare-pagecache with the commands that made it (from its manifests and sweep specs, as
# results/README.md describes).  Made before builds were reproducible: a re-make runs today's
# kernel and image, so its figures can differ from the record's (docs/reproducibility.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-pageshare-pagecache
vm() { .venv/bin/python -m vmscale "$@"; }
tidy() { (cd "$1" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); }

# each spec kept here was run into a sweep directory of its own; their jobs are gathered in $out/jobs
for spec in sweep-32.toml sweep-percore-atomic-32.toml sweep-percore-atomic.toml sweep.toml; do
  s=$(mktemp -d)/sweep
  vm sweep run "$out/$spec" --out "$s" || echo "make.sh: jobs of $spec failed: see $s/failures.jsonl" >&2
  for j in "$s"/jobs/*/; do [ -f "$j/manifest.json" ] || continue; rm -rf "$out/jobs/$(basename "$j")"; mv "$j" "$out/jobs/"; done
done
for m in "$out"/jobs/*/m5out; do [ -d "$m" ] && tidy "$m"; done
vm collect --restat $out/jobs/* -o $out/table.csv
vm model study $out/table.csv --out $out/study
vm model study $out/table.csv --train-max 8 --out $out/study-8
vm report $out/table.csv --out $out/report
