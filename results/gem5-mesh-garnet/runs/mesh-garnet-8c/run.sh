#!/bin/sh
# vmscale run script (generated)
echo "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$(uname -r)"
echo 'VMSCALE-CASE-BEGIN 1 stock refcount'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
[ $rc = 0 ] && { /bin/refcount threads=8 iters=2000 chunk=1000 counter=atomic; rc=$?; }
echo "VMSCALE-CASE-END 1 rc=$rc"
echo 'VMSCALE-CASE-BEGIN 2 refcache refcount'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo refcache > /proc/sys/vm/vmscale_lazy_mm || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
[ $rc = 0 ] && { /bin/refcount threads=8 iters=2000 chunk=1000 counter=refcache; rc=$?; }
echo "VMSCALE-CASE-END 2 rc=$rc"
echo 'VMSCALE-CASE-BEGIN 3 percpu-ref refcount'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
[ $rc = 0 ] && { /bin/refcount threads=8 iters=2000 chunk=1000 counter=percpu; rc=$?; }
echo "VMSCALE-CASE-END 3 rc=$rc"
echo VMSCALE-SCRIPT-END
