#!/bin/bash
# vmscale hotlines worked examples at $CORES cores (default 8).  Board and workload parameters as
# the shipped gem5-scaling / gem5-radixvm-fig5 sweeps, but shorter ROIs for fault (1 round of 64
# pages per thread instead of 4) and local (10 iterations instead of 40): tracing costs ~10x.
set -u
cd /work/main
export GEM5=/opt/gem5-v24/gem5.opt
C=${CORES:-8}
O=/work/hl$C
mkdir -p $O
V=.venv/bin/vmscale
while pgrep -f "vmscale run .*--out $O/refcount" > /dev/null; do sleep 10; done
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
run refcount --workload refcount --kernel-variant stock,refcache,percpu-ref --param refcount.iters=2000 --param refcount.chunk=1000
run fault --workload fault --kernel-variant stock,rwlock,rcu --param fault.iters=1 --param fault.pages=64 --param fault.mmap_pct=0 &
run local --workload local --kernel-variant stock,radixvm-percore --param local.iters=10 &
# Added with kernel 0023 (a checkpoint of kernel 0001-0023): Piggin's locked vs lockless page-cache
# lookups, 300 64-byte preads of random pages of one 64-page file per thread.
run pagecache --workload pagecache --kernel-variant stock,pagecache-locked --param pagecache.iters=300 \
    --param pagecache.file_pages=64 --param pagecache.mmap=0 --param pagecache.bytes=64
wait
echo "$(date +%T) all done"
