#!/bin/bash
# The lines RadixVM Figure 5's `local` moves under Linux 6.12 (stock) on the reference board at 10
# and 20 cores (one and two sockets; one page per mmap/write/munmap round, results/gem5-e7-8870-fig5's
# 40 rounds per thread at 10 cores and 400 / cores from there, so that every trace holds 400 rounds: a
# round at 20 costs ~3.7x one at 10, and the 10-core trace took 1,640 host s), its ROI traced (--gem5 hotlines=1: the trace changes no simulated
# figure) and `vmscale hotlines` naming the lines (hotlines.txt, hotlines.csv): the stations of the
# hot-line model for local/stock; and (session 43, on the warm record's image) local under the shared-table RadixVM
# at 20 cores, 20 rounds per thread, whose growth is the TLB shoot-downs it broadcasts.  One run directory per case,
# kept unless FRESH=1; COUNTS="10 20" and VARIANTS="stock radixvm" choose others (their product).  GEM5 must be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-local-hotlines
cases="10:stock 20:radixvm"
if [ -n "${COUNTS:-}${VARIANTS:-}" ]; then
  cases=""
  for n in ${COUNTS:-10}; do for v in ${VARIANTS:-stock}; do cases+=" $n:$v"; done; done
fi
for nv in $cases; do
  n=${nv%%:*}
  for v in ${nv#*:}; do
    d=$out/$(printf %03dc $n)-local-$v
    iters=$(( n >= 400 ? 1 : 400 / n ))
    if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
      rm -rf "$d"
      .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
      .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 hotlines=1 --workload local \
          --kernel-variant $v --param local.iters=$iters --out "$d"
      # the trace kept as xz (a third of gzip's size), in 4 MiB parts so that no tracked file reaches 5 MiB
      # (`vmscale hotlines` reads the parts in order)
      (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini && zcat hotlines.events.gz | xz -9 -T1 \
          > hotlines.events.xz && rm hotlines.events.gz && split -b 4M hotlines.events.xz hotlines.events.xz.part- \
          && rm hotlines.events.xz)
    fi
    # the analysis, re-made from the kept trace every time (gem5 is not needed for it; percpu.json keeps
    # the per-CPU offsets of a boot checkpoint since replaced)
    .venv/bin/vmscale hotlines "$d" --top 8 > "$d/hotlines.txt"
  done
done
