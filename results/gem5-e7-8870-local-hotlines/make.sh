#!/bin/bash
# The lines RadixVM Figure 5's `local` moves under Linux 6.12 (stock) on the reference board at 10
# and 20 cores (one and two sockets; results/gem5-e7-8870-fig5's parameters: 40 mmap/write/munmap
# rounds per thread of one page), its ROI traced (--gem5 hotlines=1: the trace changes no simulated
# figure) and `vmscale hotlines` naming the lines (hotlines.txt, hotlines.csv): the stations of the
# hot-line model for local/stock.  One run directory per case, kept unless FRESH=1; COUNTS="10" and
# VARIANTS="stock radixvm" choose.  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-local-hotlines
for n in ${COUNTS:-10 20}; do
  for v in ${VARIANTS:-stock}; do
    d=$out/$(printf %03dc $n)-local-$v
    [ "${FRESH:-0}" = 0 ] && [ -f "$d/manifest.json" ] && continue
    rm -rf "$d"
    .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 hotlines=1 --workload local \
        --kernel-variant $v --param local.iters=40 --out "$d"
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
    # the trace kept as xz: a third of gzip's size (`vmscale hotlines` reads either)
    (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
        > hotlines.events.xz && rm hotlines.events.gz)
  done
done
