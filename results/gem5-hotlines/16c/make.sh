#!/bin/bash
# vmscale hotlines worked examples at 16 cores (run from the checkout, as 8c/make.sh): refcount first (as at 8 cores), then local and
# fault with ROIs halved again (5 iterations; 32 pages per thread) so that the traced runs fit a session.
set -u
cd /work/main
export GEM5=/opt/gem5-v24/gem5.opt
C=16
O=/work/hl$C
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
run refcount --workload refcount --kernel-variant stock,refcache,percpu-ref --param refcount.iters=2000 --param refcount.chunk=1000
run local --workload local --kernel-variant stock,radixvm-percore --param local.iters=5 &
run fault --workload fault --kernel-variant stock,rwlock,rcu --param fault.iters=1 --param fault.pages=32 --param fault.mmap_pct=0 &
wait
echo "$(date +%T) all done"
