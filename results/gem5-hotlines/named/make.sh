#!/bin/bash
# vmscale hotlines with every line named (kernel 0035's /proc/vmscale_physmap, read by the
# harness after each traced ROI: `--gem5 hotlines=1` sets physmap=1).  The cases of 8c/ whose
# top lines were "dynamic" pages: pagecache (stock, pagecache-locked) and fault (stock, rwlock,
# rcu), same board and parameters but fault's ROI at 32 pages per thread, to fit a session.
# CORES (default 8) and O (work directory) may be given; results are copied here by hand.
set -u
cd "$(dirname "$0")/../../.."
export GEM5=${GEM5:-/opt/gem5-v24/gem5.opt}
C=${CORES:-8}
O=${O:-/work/hln$C}
mkdir -p $O
V=.venv/bin/vmscale
$V checkpoint --cores $C > $O/checkpoint.log 2>&1 || { echo checkpoint failed; exit 1; }
run() {
  name=$1; shift
  if [ ! -f $O/$name/manifest.json ]; then
    rm -rf $O/$name
    echo "$(date +%T) start $name"
    $V run --backend gem5 --cores $C --gem5 cpu=timing --gem5 hotlines=1 --out $O/$name "$@" > $O/$name.log 2>&1 || { echo "$name failed"; return 1; }
  fi
  $V hotlines $O/$name --top 15 > $O/$name.hotlines.txt 2>&1
  echo "$(date +%T) done $name"
}
run pagecache --workload pagecache --kernel-variant stock,pagecache-locked --param pagecache.iters=${PC_ITERS:-300} \
    --param pagecache.file_pages=64 --param pagecache.mmap=0 --param pagecache.bytes=64
run fault --workload fault --kernel-variant ${FAULT_VARIANTS:-stock,rwlock,rcu} --param fault.iters=1 \
    --param fault.pages=${FAULT_PAGES:-32} --param fault.mmap_pct=0
echo "$(date +%T) all done"
