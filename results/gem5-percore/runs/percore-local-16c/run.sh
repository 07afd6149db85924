#!/bin/sh
# vmscale run script (generated)
echo "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$(uname -r)"
echo 'VMSCALE-CASE-BEGIN 1 radixvm-percore local'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && echo "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo percore > /proc/sys/vm/vmscale_radix_pt || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
[ $rc = 0 ] && { /bin/local threads=16 iters=40; rc=$?; }
echo "VMSCALE-CASE-END 1 rc=$rc"
echo 'VMSCALE-CASE-BEGIN 2 radixvm-percore pipeline'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && echo "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo percore > /proc/sys/vm/vmscale_radix_pt || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
[ $rc = 0 ] && { /bin/pipeline threads=16 iters=40; rc=$?; }
echo "VMSCALE-CASE-END 2 rc=$rc"
echo 'VMSCALE-CASE-BEGIN 3 radixvm local'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && echo "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
[ $rc = 0 ] && { /bin/local threads=16 iters=40; rc=$?; }
echo "VMSCALE-CASE-END 3 rc=$rc"
echo 'VMSCALE-CASE-BEGIN 4 radixvm pipeline'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && echo "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && echo "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && echo "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && echo "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
[ $rc = 0 ] && { /bin/pipeline threads=16 iters=40; rc=$?; }
echo "VMSCALE-CASE-END 4 rc=$rc"
echo VMSCALE-SCRIPT-END
