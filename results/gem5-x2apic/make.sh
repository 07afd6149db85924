#!/bin/bash
# x2APIC on gem5 (issue 24): gem5 v24.0.0.1 built by `vmscale build gem5` with sim-configs/gem5-patches
# 0001-0006, kernel 0001-0043 (normal flavour, CONFIG_X86_X2APIC), run on 2026-11-26 on the 2-core
# development machine (two gem5 processes at a time: host seconds are pessimistic).
#   GEM5=/path/to/patched/build/X86/gem5.opt bash results/gem5-x2apic/make.sh
set -eu
cd "$(dirname "$0")/../.."
out=results/gem5-x2apic
# 4 and 8 cores in x2APIC mode: every CPU up, IPIs and shootdowns on every CPU, tlbstale ok
for n in 4 8; do
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 x2apic=on --workload tlbstale \
        --kernel-variant stock,radixvm-percore --param tlbstale.iters=200 --out $out/${n}c-x2apic
done
# 128 cores in x2APIC mode (x2apic=on) and 256 (x2APIC by default from 255): boots to /init
.venv/bin/vmscale checkpoint --cores 128 --gem5 x2apic=on
.venv/bin/vmscale checkpoint --cores 256
# a Timing + Ruby ROI at 128 cores: refcount, the shared atomic against Refcache, as gem5-scaling's 64-core job
.venv/bin/vmscale run --backend gem5 --cores 128 --gem5 x2apic=on --workload refcount \
    --kernel-variant stock,refcache --param refcount.iters=2000 --param refcount.chunk=1000 --out $out/128c-refcount
# the boots' logs and consoles, and their cost curve
python3 scripts/copy_boots.py 2>/dev/null || true
