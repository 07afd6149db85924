#!/bin/bash
# Re-makes validate-host: fault (no mmap/munmap: faults only) and local at 1 and 2 cores, natively
# on this machine and on its twin board in gem5 (board=host: sysfs, default link latencies).
# Needs GEM5; boots of the twin at 1 and 2 cores take ~6-8 host minutes each.  The native side
# is timed on whatever else the machine runs: run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/validate-host
vm() { .venv/bin/python -m vmscale "$@"; }
rm -rf "$out"/native-* "$out"/sim-* "$out"/validate.*   # native: 5 runs per point (--repeat)
vm validate --workload fault,local --cores 1,2 --board host --out "$out" \
  --param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0 --param local.iters=40 "$@"
for m in "$out"/sim-*/m5out; do [ -d "$m" ] && (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
vm board describe --json "$out/twin.json"
