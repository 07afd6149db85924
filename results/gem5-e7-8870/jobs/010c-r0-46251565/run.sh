#!/bin/sh
# vmscale run script (generated)
d=/tmp/vmscale-run; rm -rf $d; mkdir -p $d
(eval 'exec 1023</dev/null') 2>/dev/null && eval 'exec 1023</dev/null'
say() { echo "$2"; echo "$2" >> "$d/$1"; }
say 0-head "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$(uname -r)"
wd() { [ -r "$1" ] && cat "$1" || echo -; }
say 0-head "VMSCALE-WATCHDOG rcu_cpu_stall_timeout=$(wd /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout) watchdog_thresh=$(wd /proc/sys/kernel/watchdog_thresh) hung_task_timeout_secs=$(wd /proc/sys/kernel/hung_task_timeout_secs)"
say 1 'VMSCALE-CASE-BEGIN 1 stock fault'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 1 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 1 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 1 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 1 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 1 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 1 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 1 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/fault threads=10 iters=4 mmap_pct=0 pages=64; echo $? > $d/rc-1; } | tee $d/out-1; rc=$(cat $d/rc-1 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-1 >> $d/1; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-1 >> $d/1; fi
say 1 "VMSCALE-CASE-END 1 rc=$rc"
say 2 'VMSCALE-CASE-BEGIN 2 stock refcount'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 2 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 2 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 2 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 2 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 2 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 2 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 2 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/refcount threads=10 chunk=100 iters=2000 counter=atomic; echo $? > $d/rc-2; } | tee $d/out-2; rc=$(cat $d/rc-2 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-2 >> $d/2; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-2 >> $d/2; fi
say 2 "VMSCALE-CASE-END 2 rc=$rc"
say 3 'VMSCALE-CASE-BEGIN 3 rwlock fault'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rwlock > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 3 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 3 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 3 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 3 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 3 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 3 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 3 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/fault threads=10 iters=4 mmap_pct=0 pages=64; echo $? > $d/rc-3; } | tee $d/out-3; rc=$(cat $d/rc-3 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-3 >> $d/3; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-3 >> $d/3; fi
say 3 "VMSCALE-CASE-END 3 rc=$rc"
say 4 'VMSCALE-CASE-BEGIN 4 rcu fault'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rcu > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 4 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 4 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 4 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 4 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 4 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 4 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 4 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/fault threads=10 iters=4 mmap_pct=0 pages=64; echo $? > $d/rc-4; } | tee $d/out-4; rc=$(cat $d/rc-4 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-4 >> $d/4; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-4 >> $d/4; fi
say 4 "VMSCALE-CASE-END 4 rc=$rc"
say 5 'VMSCALE-CASE-BEGIN 5 refcache refcount'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 5 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo refcache > /proc/sys/vm/vmscale_lazy_mm || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 5 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 5 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 5 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 5 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 5 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 5 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/refcount threads=10 chunk=100 iters=2000 counter=refcache; echo $? > $d/rc-5; } | tee $d/out-5; rc=$(cat $d/rc-5 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-5 >> $d/5; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-5 >> $d/5; fi
say 5 "VMSCALE-CASE-END 5 rc=$rc"
say 6 'VMSCALE-CASE-BEGIN 6 percpu-ref refcount'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 6 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 6 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 6 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 6 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 6 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 6 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 6 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/refcount threads=10 chunk=100 iters=2000 counter=percpu; echo $? > $d/rc-6; } | tee $d/out-6; rc=$(cat $d/rc-6 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-6 >> $d/6; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-6 >> $d/6; fi
say 6 "VMSCALE-CASE-END 6 rc=$rc"
irqsum() { awk -v rows='LOC RES CAL TLB' 'BEGIN { n = split(rows, r, " "); for (i = 1; i <= n; i++) want[r[i] ":"] = r[i] } NR == 1 { cpus = NF } ($1 in want) { c = 0; t = 0; for (i = 2; i <= cpus + 1; i++) if ($i > 0) { c++; t += $i } printf "%s=%d/%d ", want[$1], c, t }' /proc/interrupts 2>/dev/null; }
say 0-tail "VMSCALE-INTERRUPTS $(irqsum)"
echo VMSCALE-RECAP-BEGIN
p=$(cat /proc/sys/kernel/printk 2>/dev/null) && echo 1 > /proc/sys/kernel/printk
cat $d/0-head $d/1 $d/2 $d/3 $d/4 $d/5 $d/6 $d/0-tail 2>/dev/null
[ -n "$p" ] && echo "$p" > /proc/sys/kernel/printk
echo VMSCALE-RECAP-END
echo VMSCALE-SCRIPT-END
case "$(m5 mode 2>/dev/null)" in inst|addr) s=$(stty -F /dev/console -g 2>/dev/null) && timeout 2 stty -F /dev/console "$s" 2>/dev/null || sleep 0.3;; esac
