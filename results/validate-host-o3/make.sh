#!/bin/bash
# Re-makes validate-host-o3: validate-host's cases (fault with faults only, local) at 1 and 2 cores,
# natively and on this machine's twin with the out-of-order CPU (cpu=o3, gem5's O3CPU) instead of
# TimingSimpleCPU: how much of the twin's gap to the machine is the CPU model.  Needs GEM5.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/validate-host-o3
vm() { .venv/bin/python -m vmscale "$@"; }
rm -rf "$out"/native-* "$out"/sim-* "$out"/validate.*   # native: 5 runs per point (--repeat)
vm validate --workload fault,local --cores 1,2 --board host --gem5 cpu=o3 --out "$out" \
  --param fault.iters=4 --param fault.pages=64 --param fault.mmap_pct=0 --param local.iters=40 "$@"
for m in "$out"/sim-*/m5out; do [ -d "$m" ] && (cd "$m" && rm -f config.json && { [ ! -f stats.txt ] || gzip -f stats.txt config.ini; }); done
