#!/bin/sh
# vmscale run script (generated)
d=/tmp/vmscale-run; rm -rf $d; mkdir -p $d
say() { echo "$2"; echo "$2" >> "$d/$1"; }
say 0-head "VMSCALE-SCRIPT-BEGIN cpus=$(nproc) kernel=$(uname -r)"
wd() { [ -r "$1" ] && cat "$1" || echo -; }
say 0-head "VMSCALE-WATCHDOG rcu_cpu_stall_timeout=$(wd /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout) watchdog_thresh=$(wd /proc/sys/kernel/watchdog_thresh) hung_task_timeout_secs=$(wd /proc/sys/kernel/hung_task_timeout_secs)"
say 1 'VMSCALE-CASE-BEGIN 1 stock stress'
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
if [ $rc = 0 ]; then { /bin/stress threads=64 iters=250; echo $? > $d/rc-1; } | tee $d/out-1; rc=$(cat $d/rc-1 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-1 >> $d/1; fi
say 1 "VMSCALE-CASE-END 1 rc=$rc"
say 2 'VMSCALE-CASE-BEGIN 2 stock selftests'
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
if [ $rc = 0 ]; then { /bin/selftests threads=64 tests=map_fixed_noreplace,mremap_dontunmap,madv_populate,mlock2-tests,mdwe_test,mseal_test,mkdirty,compaction_test,gup_longterm,gup_test,hmm-tests,hugetlb-madvise,hugetlb-read-hwpoison,hugetlb-soft-offline,hugepage-mmap,hugepage-mremap,hugepage-shm,hugepage-vmemmap,map_hugetlb,map_populate,mrelease_test,seal_elf,on-fault-limit,thuge-gen,split_huge_page_test,ksm_functional_tests,hugetlb_fault_after_madv,hugetlb_madv_vs_map,hugetlb_dio,droppable,soft-dirty,protection_keys_64,pkey_sighandler_tests_64,va_high_addr_switch,write_to_hugetlbfs limit=300; echo $? > $d/rc-2; } | tee $d/out-2; rc=$(cat $d/rc-2 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-2 >> $d/2; fi
say 2 "VMSCALE-CASE-END 2 rc=$rc"
say 3 'VMSCALE-CASE-BEGIN 3 stock stressng'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
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
if [ $rc = 0 ]; then { /bin/stressng threads=64 timeout=300; echo $? > $d/rc-3; } | tee $d/out-3; rc=$(cat $d/rc-3 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-3 >> $d/3; fi
say 3 "VMSCALE-CASE-END 3 rc=$rc"
say 4 'VMSCALE-CASE-BEGIN 4 rwlock stress'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rwlock > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
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
if [ $rc = 0 ]; then { /bin/stress threads=64 iters=250; echo $? > $d/rc-4; } | tee $d/out-4; rc=$(cat $d/rc-4 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-4 >> $d/4; fi
say 4 "VMSCALE-CASE-END 4 rc=$rc"
say 5 'VMSCALE-CASE-BEGIN 5 rwlock selftests'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rwlock > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 5 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
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
if [ $rc = 0 ]; then { /bin/selftests threads=64 tests=map_fixed_noreplace,mremap_dontunmap,madv_populate,mlock2-tests,mdwe_test,mseal_test,mkdirty,compaction_test,gup_longterm,gup_test,hmm-tests,hugetlb-madvise,hugetlb-read-hwpoison,hugetlb-soft-offline,hugepage-mmap,hugepage-mremap,hugepage-shm,hugepage-vmemmap,map_hugetlb,map_populate,mrelease_test,seal_elf,on-fault-limit,thuge-gen,split_huge_page_test,ksm_functional_tests,hugetlb_fault_after_madv,hugetlb_madv_vs_map,hugetlb_dio,droppable,soft-dirty,protection_keys_64,pkey_sighandler_tests_64,va_high_addr_switch,write_to_hugetlbfs limit=300; echo $? > $d/rc-5; } | tee $d/out-5; rc=$(cat $d/rc-5 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-5 >> $d/5; fi
say 5 "VMSCALE-CASE-END 5 rc=$rc"
say 6 'VMSCALE-CASE-BEGIN 6 rwlock stressng'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rwlock > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
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
if [ $rc = 0 ]; then { /bin/stressng threads=64 timeout=300; echo $? > $d/rc-6; } | tee $d/out-6; rc=$(cat $d/rc-6 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-6 >> $d/6; fi
say 6 "VMSCALE-CASE-END 6 rc=$rc"
say 7 'VMSCALE-CASE-BEGIN 7 rcu stress'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rcu > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 7 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 7 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 7 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 7 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 7 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 7 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 7 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/stress threads=64 iters=250; echo $? > $d/rc-7; } | tee $d/out-7; rc=$(cat $d/rc-7 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-7 >> $d/7; fi
say 7 "VMSCALE-CASE-END 7 rc=$rc"
say 8 'VMSCALE-CASE-BEGIN 8 rcu selftests'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rcu > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 8 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 8 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 8 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 8 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 8 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 8 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 8 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/selftests threads=64 tests=map_fixed_noreplace,mremap_dontunmap,madv_populate,mlock2-tests,mdwe_test,mseal_test,mkdirty,compaction_test,gup_longterm,gup_test,hmm-tests,hugetlb-madvise,hugetlb-read-hwpoison,hugetlb-soft-offline,hugepage-mmap,hugepage-mremap,hugepage-shm,hugepage-vmemmap,map_hugetlb,map_populate,mrelease_test,seal_elf,on-fault-limit,thuge-gen,split_huge_page_test,ksm_functional_tests,hugetlb_fault_after_madv,hugetlb_madv_vs_map,hugetlb_dio,droppable,soft-dirty,protection_keys_64,pkey_sighandler_tests_64,va_high_addr_switch,write_to_hugetlbfs limit=300; echo $? > $d/rc-8; } | tee $d/out-8; rc=$(cat $d/rc-8 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-8 >> $d/8; fi
say 8 "VMSCALE-CASE-END 8 rc=$rc"
say 9 'VMSCALE-CASE-BEGIN 9 rcu stressng'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo rcu > /proc/sys/vm/vmscale_fault || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 9 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 9 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo stock > /proc/sys/vm/vmscale_as || rc=97; fi
[ -r /proc/sys/vm/vmscale_as ] && say 9 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo atomic > /proc/sys/vm/vmscale_radix_share || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 9 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 9 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 9 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 9 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/stressng threads=64 timeout=300; echo $? > $d/rc-9; } | tee $d/out-9; rc=$(cat $d/rc-9 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-9 >> $d/9; fi
say 9 "VMSCALE-CASE-END 9 rc=$rc"
say 10 'VMSCALE-CASE-BEGIN 10 radixvm stress'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 10 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 10 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && say 10 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 10 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 10 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 10 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 10 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/stress threads=64 iters=250; echo $? > $d/rc-10; } | tee $d/out-10; rc=$(cat $d/rc-10 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-10 >> $d/10; fi
say 10 "VMSCALE-CASE-END 10 rc=$rc"
say 11 'VMSCALE-CASE-BEGIN 11 radixvm selftests'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 11 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 11 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && say 11 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 11 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 11 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 11 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 11 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/selftests threads=64 tests=map_fixed_noreplace,mremap_dontunmap,madv_populate,mlock2-tests,mdwe_test,mseal_test,mkdirty,compaction_test,gup_longterm,gup_test,hmm-tests,hugetlb-madvise,hugetlb-read-hwpoison,hugetlb-soft-offline,hugepage-mmap,hugepage-mremap,hugepage-shm,hugepage-vmemmap,map_hugetlb,map_populate,mrelease_test,seal_elf,on-fault-limit,thuge-gen,split_huge_page_test,ksm_functional_tests,hugetlb_fault_after_madv,hugetlb_madv_vs_map,hugetlb_dio,droppable,soft-dirty,protection_keys_64,pkey_sighandler_tests_64,va_high_addr_switch,write_to_hugetlbfs limit=300; echo $? > $d/rc-11; } | tee $d/out-11; rc=$(cat $d/rc-11 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-11 >> $d/11; fi
say 11 "VMSCALE-CASE-END 11 rc=$rc"
say 12 'VMSCALE-CASE-BEGIN 12 radixvm stressng'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 12 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 12 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && say 12 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 12 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo shared > /proc/sys/vm/vmscale_radix_pt || rc=97; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 12 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 12 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 12 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/stressng threads=64 timeout=300; echo $? > $d/rc-12; } | tee $d/out-12; rc=$(cat $d/rc-12 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-12 >> $d/12; fi
say 12 "VMSCALE-CASE-END 12 rc=$rc"
say 13 'VMSCALE-CASE-BEGIN 13 radixvm-percore stress'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 13 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 13 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && say 13 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 13 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo percore > /proc/sys/vm/vmscale_radix_pt || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 13 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 13 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 13 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/stress threads=64 iters=250; echo $? > $d/rc-13; } | tee $d/out-13; rc=$(cat $d/rc-13 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-13 >> $d/13; fi
say 13 "VMSCALE-CASE-END 13 rc=$rc"
say 14 'VMSCALE-CASE-BEGIN 14 radixvm-percore selftests'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 14 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 14 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && say 14 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 14 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo percore > /proc/sys/vm/vmscale_radix_pt || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 14 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 14 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 14 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/selftests threads=64 tests=map_fixed_noreplace,mremap_dontunmap,madv_populate,mlock2-tests,mdwe_test,mseal_test,mkdirty,compaction_test,gup_longterm,gup_test,hmm-tests,hugetlb-madvise,hugetlb-read-hwpoison,hugetlb-soft-offline,hugepage-mmap,hugepage-mremap,hugepage-shm,hugepage-vmemmap,map_hugetlb,map_populate,mrelease_test,seal_elf,on-fault-limit,thuge-gen,split_huge_page_test,ksm_functional_tests,hugetlb_fault_after_madv,hugetlb_madv_vs_map,hugetlb_dio,droppable,soft-dirty,protection_keys_64,pkey_sighandler_tests_64,va_high_addr_switch,write_to_hugetlbfs limit=300; echo $? > $d/rc-14; } | tee $d/out-14; rc=$(cat $d/rc-14 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-14 >> $d/14; fi
say 14 "VMSCALE-CASE-END 14 rc=$rc"
say 15 'VMSCALE-CASE-BEGIN 15 radixvm-percore stressng'
rc=0
if [ -w /proc/sys/vm/vmscale_fault ]; then echo stock > /proc/sys/vm/vmscale_fault || rc=97; fi
[ -r /proc/sys/vm/vmscale_fault ] && say 15 "VMSCALE-SYSCTL vm/vmscale_fault=$(cat /proc/sys/vm/vmscale_fault)"
if [ -w /proc/sys/vm/vmscale_lazy_mm ]; then echo atomic > /proc/sys/vm/vmscale_lazy_mm || rc=97; fi
[ -r /proc/sys/vm/vmscale_lazy_mm ] && say 15 "VMSCALE-SYSCTL vm/vmscale_lazy_mm=$(cat /proc/sys/vm/vmscale_lazy_mm)"
if [ -w /proc/sys/vm/vmscale_as ]; then echo radixvm > /proc/sys/vm/vmscale_as || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_as ] && say 15 "VMSCALE-SYSCTL vm/vmscale_as=$(cat /proc/sys/vm/vmscale_as)"
if [ -w /proc/sys/vm/vmscale_radix_share ]; then echo refcache > /proc/sys/vm/vmscale_radix_share || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_share ] && say 15 "VMSCALE-SYSCTL vm/vmscale_radix_share=$(cat /proc/sys/vm/vmscale_radix_share)"
if [ -w /proc/sys/vm/vmscale_radix_pt ]; then echo percore > /proc/sys/vm/vmscale_radix_pt || rc=97; else rc=98; fi
[ -r /proc/sys/vm/vmscale_radix_pt ] && say 15 "VMSCALE-SYSCTL vm/vmscale_radix_pt=$(cat /proc/sys/vm/vmscale_radix_pt)"
if [ -w /proc/sys/vm/vmscale_pagecache ]; then echo lockless > /proc/sys/vm/vmscale_pagecache || rc=97; fi
[ -r /proc/sys/vm/vmscale_pagecache ] && say 15 "VMSCALE-SYSCTL vm/vmscale_pagecache=$(cat /proc/sys/vm/vmscale_pagecache)"
if [ -w /proc/sys/vm/vmscale_reclaim ]; then echo rcu > /proc/sys/vm/vmscale_reclaim || rc=97; fi
[ -r /proc/sys/vm/vmscale_reclaim ] && say 15 "VMSCALE-SYSCTL vm/vmscale_reclaim=$(cat /proc/sys/vm/vmscale_reclaim)"
if [ $rc = 0 ]; then { /bin/stressng threads=64 timeout=300; echo $? > $d/rc-15; } | tee $d/out-15; rc=$(cat $d/rc-15 2>/dev/null || echo 99); grep 'VMSCALE-RESULT ' $d/out-15 >> $d/15; fi
say 15 "VMSCALE-CASE-END 15 rc=$rc"
echo VMSCALE-RECAP-BEGIN
p=$(cat /proc/sys/kernel/printk 2>/dev/null) && echo 1 > /proc/sys/kernel/printk
cat $d/0-head $d/1 $d/2 $d/3 $d/4 $d/5 $d/6 $d/7 $d/8 $d/9 $d/10 $d/11 $d/12 $d/13 $d/14 $d/15 2>/dev/null
[ -n "$p" ] && echo "$p" > /proc/sys/kernel/printk
echo VMSCALE-RECAP-END
echo VMSCALE-SCRIPT-END
case "$(m5 mode 2>/dev/null)" in inst|addr) sleep 0.3;; esac
