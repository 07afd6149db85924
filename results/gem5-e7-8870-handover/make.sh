#!/bin/bash
# Where the shared atomic goes next: refcount under the shared atomic on the reference board at 10,
# 20 and 40 cores (one, two and four sockets; gem5-e7-8870-refcount-to-40c's parameters, kernel and image),
# its ROI traced (--gem5 hotlines=1: the trace changes no simulated figure), and `vmscale hotlines`
# naming the lines, with the share of the line's hand-overs between sockets and each socket's
# acquisitions (hotlines.txt).  80 cores (eight sockets, session 48: the top of the curve, issue 44)
# has the same kernel and parameters on the image of the warm record (gem5-e7-8870-warm), whose
# threads wait, alive, for the process's exit.  One run directory per core count, kept unless FRESH=1;
# COUNTS="20" runs only those.  GEM5 must be set for a run that is not kept.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/gem5-e7-8870-handover
for n in ${COUNTS:-10 20 40 80}; do
  d=$out/$(printf %03dc $n)-refcount-stock
  if [ "${FRESH:-0}" != 0 ] || [ ! -f "$d/manifest.json" ]; then
    rm -rf "$d"
    .venv/bin/vmscale checkpoint --cores $n --gem5 board=e7-8870
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 board=e7-8870 --gem5 hotlines=1 --workload refcount \
        --kernel-variant stock --param refcount.iters=2000 --param refcount.chunk=100 --out "$d"
    (cd "$d/m5out" && rm -f config.json && gzip -f stats.txt config.ini)
  fi
  # the analysis, re-made from the kept trace every time (gem5 is not needed for it; percpu.json keeps the
  # per-CPU offsets of a boot checkpoint since replaced)
  .venv/bin/vmscale hotlines "$d" --top 5 > "$d/hotlines.txt"
done
