#!/bin/bash
# refcount on the 128-core-capable L2 board (8 banks x 256 KiB, 128 ways) at 1-64 cores, then the
# 128-core point of results/gem5-x2apic, one table, the model judged where it was not fitted.
#   GEM5=/path/to/gem5.opt bash results/gem5-scaling-l2-128/make.sh    (the 128-core run needs
#   a gem5 built by `vmscale build gem5`; its directory is made by results/gem5-x2apic/make.sh)
set -eu
cd "$(dirname "$0")/../.."
out=results/gem5-scaling-l2-128
vm() { .venv/bin/python -m vmscale "$@"; }
vm sweep run scripts/sweeps/gem5-scaling-l2-128.toml --out $out
for m in $out/jobs/*/m5out; do
    (cd $m && rm -f config.json citations.bib readfile_* board.pc.com_1.device && gzip -9f stats.txt config.ini)
done
# The sweep's 1-64 cores and the 128-core run: one table (the 128-core rows carry x2apic=on in
# their board label, so no curve mixes them silently).
vm collect $out/jobs results/gem5-x2apic/128c-refcount -o $out/with-128/table.csv
# Every curve fitted on 1-16 cores, judged at 32 and 64 beside the USL ...
vm model study $out/table.csv --train-max 16 --out $out/study \
    --note "gem5 v24.0.0.1 Timing+Ruby MESI_Two_Level, crossbar, L2 8x256 KiB 128-way, kernel 0001-0043"
# ... and at 128 cores: the same caches in x2APIC mode (the APIC mode is not part of the caches or
# the interconnect: `interconnect` with equal hops predicts the source fit unchanged).
for v in stock refcache; do
    vm model interconnect $out/with-128/table.csv --workload refcount --variant $v \
        --from "l2_assoc=128 l2_banks=8" --to "l2_assoc=128 l2_banks=8 x2apic=on" --out $out/with-128/$v
done
