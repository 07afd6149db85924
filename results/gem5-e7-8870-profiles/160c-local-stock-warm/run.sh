#!/bin/sh
# vmscale run script (generated)
d=/tmp/vmscale-run; rm -rf $d; mkdir -p $d
(eval 'exec 1023</dev/null') 2>/dev/null && eval 'exec 1023</dev/null'
say() { echo "$2"; echo "$2" >> "$d/$1"; }
get() { v=-; [ -r "$1" ] && read -r v < "$1"; }
getn() { v=-; [ -r "$1" ] && v=$(cat "$1"); }
m5m=${VMSCALE_M5:-$(m5 mode 2>/dev/null)}
get /proc/sys/kernel/osrelease
say 0-head "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$v"
get /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout; w="rcu_cpu_stall_timeout=$v"
getn /proc/sys/kernel/watchdog_thresh; w="$w watchdog_thresh=$v"
getn /proc/sys/kernel/hung_task_timeout_secs; w="$w hung_task_timeout_secs=$v"
say 0-head "VMSCALE-WATCHDOG $w"
say 1 'VMSCALE-CASE-BEGIN 1 stock local'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && get /proc/sys/vm/vmscale_fault && say 1 "VMSCALE-SYSCTL vm/vmscale_fault=$v"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && get /proc/sys/vm/vmscale_lazy_mm && say 1 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$v"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && get /proc/sys/vm/vmscale_as && say 1 "VMSCALE-SYSCTL vm/vmscale_as=$v"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && get /proc/sys/vm/vmscale_radix_share && say 1 "VMSCALE-SYSCTL vm/vmscale_radix_share=$v"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && get /proc/sys/vm/vmscale_radix_pt && say 1 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$v"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && get /proc/sys/vm/vmscale_pagecache && say 1 "VMSCALE-SYSCTL vm/vmscale_pagecache=$v"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && get /proc/sys/vm/vmscale_reclaim && say 1 "VMSCALE-SYSCTL vm/vmscale_reclaim=$v"
if [ $rc = 0 ]; then case "$m5m" in inst|addr) VMSCALE_RECAP=$d/1 VMSCALE_CASE=1 /bin/local threads=160 iters=4; rc=$?;; *) { /bin/local threads=160 iters=4; echo $? > $d/rc-1; } | tee $d/out-1; rc=$(cat $d/rc-1 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-1 >> $d/1; sed -n '/^VMSCALE-PHYSMAP-BEGIN$/,/^VMSCALE-PHYSMAP-END$/p' $d/out-1 >> $d/1;; esac; fi
say 1 "VMSCALE-CASE-END 1 rc=$rc"
irqsum() { awk -v rows='LOC RES CAL TLB' 'BEGIN { n = split(rows, r, " "); for (i = 1; i <= n; i++) want[r[i] ":"] = r[i] } NR == 1 { cpus = NF } ($1 in want) { c = 0; t = 0; for (i = 2; i <= cpus + 1; i++) if ($i > 0) { c++; t += $i } printf "%s=%d/%d ", want[$1], c, t }' /proc/interrupts 2>/dev/null; }
say 0-tail "VMSCALE-INTERRUPTS $(irqsum)"
echo VMSCALE-RECAP-BEGIN
case "$m5m" in inst|addr) cat $d/0-head $d/1 $d/0-tail > $d/recap 2>/dev/null; m5 writefile $d/recap recap.txt > /dev/null 2>&1 && echo "VMSCALE-RECAP-FILE recap.txt" || cat $d/recap;; *)
p=; [ -r /proc/sys/kernel/printk ] && read -r p < /proc/sys/kernel/printk && echo 1 > /proc/sys/kernel/printk
cat $d/0-head $d/1 $d/0-tail 2>/dev/null
[ -n "$p" ] && echo "$p" > /proc/sys/kernel/printk;; esac
echo VMSCALE-RECAP-END
echo VMSCALE-SCRIPT-END
case "$m5m" in inst|addr) s=$(stty -F /dev/console -g 2>/dev/null) && timeout 2 stty -F /dev/console "$s" 2>/dev/null || sleep 0.3;; esac
