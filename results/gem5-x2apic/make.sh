#!/bin/bash
# x2APIC on gem5 (issue 24): gem5 v24.0.0.1 built by `vmscale build gem5` with sim-configs/gem5-patches,
# kernel 0001-0043 (normal flavour, CONFIG_X86_X2APIC), run on 2026-11-26 on the 2-core development
# machine, two or three gem5 processes at a time (host seconds are pessimistic).
#   GEM5=/path/to/patched/build/X86/gem5.opt bash results/gem5-x2apic/make.sh
set -eu
cd "$(dirname "$0")/../.."
out=results/gem5-x2apic

# A boot's record: its log, console, command, configuration and statistics (gzip'd), from the checkpoint.
keep_boot() {   # cores, gem5 options..., destination
    local n=$1 dest=${@: -1} cpt
    cpt=$(.venv/bin/vmscale checkpoint --cores "$n" "${@:2:$#-2}" | sed -n 's/^checkpoint: //p')
    mkdir -p "$dest"
    cp "$cpt/boot-m5out/gem5.log" "$cpt/boot-m5out/gem5.cmd" "$dest/"
    cp "$cpt/boot-m5out/board.pc.com_1.device" "$dest/console.log"
    gzip -9c "$cpt/boot-m5out/config.ini" > "$dest/config.ini.gz"
    gzip -9c "$cpt/boot-m5out/stats.txt" > "$dest/stats.txt.gz"
    echo "$cpt" > "$dest/checkpoint"
}

# 4 and 8 cores in x2APIC mode: every CPU up, IPIs and shootdowns on every CPU, tlbstale ok
for n in 4 8; do
    .venv/bin/vmscale run --backend gem5 --cores $n --gem5 x2apic=on --workload tlbstale \
        --kernel-variant stock,radixvm-percore --param tlbstale.iters=200 --out $out/${n}c-x2apic
done
# 128 cores in x2APIC mode (x2apic=on) and 256 (x2APIC by default from 255): boots to /init
keep_boot 128 --gem5 x2apic=on $out/boot-128c-x2apic
keep_boot 256 $out/boot-256c-x2apic
# a Timing + Ruby ROI at 128 cores: refcount, the shared atomic against Refcache, on an L2 with a
# way per core (128: every CPU's copy of a per-CPU line fits its set, see the scaling section)
.venv/bin/vmscale run --backend gem5 --cores 128 --gem5 x2apic=on --gem5 l2_assoc=128 --workload refcount \
    --kernel-variant stock,refcache --param refcount.iters=500 --param refcount.chunk=500 --out $out/128c-refcount
