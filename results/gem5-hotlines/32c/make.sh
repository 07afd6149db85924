#!/bin/bash
# The hot lines of PARSEC vs RCU reclamation at 32 cores (kernel 0001-0025): `reclaim` with a
# tenth of results/gem5-reclaim/'s ROI (200 retired nodes per thread; tracing costs 10-40x),
# restored from the 32-core boot checkpoint of that sweep (same board and kernel).
set -u
cd /work/main
export GEM5=/opt/gem5-v24/gem5.opt
O=/work/hot-reclaim-32
nice -n 5 .venv/bin/vmscale run --backend gem5 --cores 32 --workload reclaim --kernel-variant stock,parsec \
    --param reclaim.iters=200 --param reclaim.chunk=200 --gem5 hotlines=1 --out $O
.venv/bin/vmscale hotlines $O --top 15 > $O/hotlines.txt
