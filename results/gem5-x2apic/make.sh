#!/bin/bash
# x2APIC on gem5 (issue 24): gem5 v24.0.0.1 built by `vmscale build gem5` with sim-configs/gem5-patches,
# kernel 0001-0043 (normal flavour, CONFIG_X86_X2APIC), run on 2026-11-26 on the 2-core development
# machine, two or three gem5 processes at a time (host seconds are pessimistic).
#   GEM5=/path/to/patched/build/X86/gem5.opt GEM5_STOCK=/path/to/stock/gem5.opt bash results/gem5-x2apic/make.sh
set -eu
cd "$(dirname "$0")/../.."
out=results/gem5-x2apic
vm() { .venv/bin/python -m vmscale "$@"; }

# A boot's record: its log, console, command, configuration and statistics (gzip'd), from the checkpoint.
keep_boot() {   # destination, cores, gem5 options...
    local dest=$1 cpt
    shift
    cpt=$(vm checkpoint --cores "$@" | sed -n 's/^checkpoint: //p')
    mkdir -p "$dest"
    cp "$cpt/boot-m5out/gem5.log" "$cpt/boot-m5out/gem5.cmd" "$dest/"
    cp "$cpt/boot-m5out/board.pc.com_1.device" "$dest/console.log"
    gzip -9c "$cpt/boot-m5out/config.ini" > "$dest/config.ini.gz"
    gzip -9c "$cpt/boot-m5out/stats.txt" > "$dest/stats.txt.gz"
    basename "$cpt" > "$dest/checkpoint"
}

# 4 and 8 cores in x2APIC mode: every CPU up, IPIs and shootdowns on every CPU, tlbstale ok
for n in 4 8; do
    vm run --backend gem5 --cores $n --gem5 x2apic=on --workload tlbstale \
        --kernel-variant stock,radixvm-percore --param tlbstale.iters=200 --out $out/${n}c-x2apic
done

# xAPIC unchanged: the same boot and run by the patched and by the stock gem5 (the checkpoint is
# moved aside in between, so that each binary boots for itself)
for n in 8 16; do
    args=(run --backend gem5 --cores $n --workload refcount --kernel-variant stock,refcache
          --param refcount.iters=500 --param refcount.chunk=500)
    vm "${args[@]}" --out $out/xapic-equality/${n}c-patched
    cpt=$(python3 -c "import json; print(json.load(open('$out/xapic-equality/${n}c-patched/manifest.json'))['checkpoint'])")
    mv "$cpt" "$cpt.patched"
    GEM5=$GEM5_STOCK vm "${args[@]}" --out $out/xapic-equality/${n}c-stock
done

# 64 cores in both modes: boots, then one short ROI each
keep_boot $out/boot-64c-x2apic 64 --gem5 x2apic=on
keep_boot $out/boot-64c-xapic 64
for mode in x2apic xapic; do
    opt=(); [ $mode = x2apic ] && opt=(--gem5 x2apic=on)
    vm run --backend gem5 --cores 64 "${opt[@]}" --workload refcount --kernel-variant stock \
        --param refcount.iters=100 --param refcount.chunk=100 --out $out/64c-$mode
done

# 128 cores in x2APIC mode (x2apic=on) and 256 (x2APIC by default from 255): boots to /init
keep_boot $out/boot-128c-x2apic 128 --gem5 x2apic=on
keep_boot $out/boot-256c-x2apic 256
cpts=$(for d in $out/{4,8,64}c-x2apic $out/boot-{128,256}c-x2apic; do
    [ -f $d/checkpoint ] && echo build/checkpoints/$(cat $d/checkpoint) ||
        python3 -c "import json; print(json.load(open('$d/manifest.json'))['checkpoint'])"; done)
PYTHONPATH=sim-configs .venv/bin/python -m vmscale_gem5.bootcost $cpts --predict 512,1024 --fit-from 8 --out $out/boot-cost

# a Timing + Ruby ROI at 128 cores: refcount, the shared atomic against Refcache, on an L2 with a way per core.
# Its tail after the ROIs ran for hours: the record is the run directory copied after both ROIs (README).
vm run --backend gem5 --cores 128 --gem5 x2apic=on --gem5 l2_assoc=128 --workload refcount \
    --kernel-variant stock,refcache --param refcount.iters=500 --param refcount.chunk=500 --out /tmp/128c-refcount

# The 128-core ROI on an L2 that holds 128 cores (8 banks of 256 KiB, 128 ways: the board of
# results/gem5-scaling-l2-128), 2,000 pairs per thread as the scaling curves.  Made twice: first
# by the run script of commit fed960f + the UART drain (workloads started with a 64-entry fd table,
# which the threads' opens grew inside the ROI: 128c-refcount-fd-table-grew/), then by the run
# script that holds a descriptor at 1023 (128c-refcount/, this command).  Tidied as every record
# here: stats.txt and config.ini gzip'd; config.json, citations.bib, readfile_* and the raw UART
# log (console.log has it) dropped.
vm run --backend gem5 --cores 128 --gem5 x2apic=on --gem5 l2_assoc=128 --gem5 l2_banks=8 \
    --workload refcount --kernel-variant stock,refcache --param refcount.iters=2000 \
    --param refcount.chunk=1000 --out $out/128c-refcount
(cd $out/128c-refcount/m5out && rm -f config.json citations.bib readfile_* board.pc.com_1.device &&
    gzip -9 stats.txt config.ini)
