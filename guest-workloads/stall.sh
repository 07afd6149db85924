#!/bin/sh
# stall: hold one CPU in the kernel with preemption off for ms milliseconds, through the
# debug kernel's /proc/sys/debug/vmscale_stall_ms (patch 0009).  Not a benchmark: it proves
# that a run's stall detectors, at the timeouts the backend chose, still catch a real stall.
# The workload itself succeeds; the run must fail on the kernel's report.  RCU's stall report
# touches the soft-lockup watchdog, so one stall is reported by whichever detector fires
# first: detector=lockup silences RCU's warnings during the hold to test the other one.
if [ "$1" = "--describe" ]; then
	echo '{"name":"stall","summary":"hold a CPU in the kernel with preemption off (debug kernel; tests stall detection)","ops_unit":"stall","params":{"threads":{"default":"0","help":"ignored"},"ms":{"default":"1000","help":"milliseconds to hold the CPU"},"detector":{"default":"rcu","help":"rcu, or lockup (RCU stall warnings suppressed during the hold)"}}}'
	exit 0
fi
ms=1000 detector=rcu
for a in "$@"; do
	case "$a" in
	ms=*) ms=${a#ms=} ;;
	detector=rcu|detector=lockup) detector=${a#detector=} ;;
	threads=*) ;;
	*) echo "stall: unknown parameter '$a' (see --describe)" >&2; exit 2 ;;
	esac
done
knob=/proc/sys/debug/vmscale_stall_ms
if [ ! -w "$knob" ]; then
	echo "stall: $knob is missing: run it on the debug kernel (--flavor debug)" >&2
	echo "VMSCALE-RESULT {\"workload\":\"stall\",\"ok\":false,\"errors\":1,\"ops\":0,\"ops_unit\":\"stall\",\"ms\":$ms}"
	exit 1
fi
suppress=/sys/module/rcupdate/parameters/rcu_cpu_stall_suppress
[ "$detector" = lockup ] && { echo 1 > "$suppress" || exit 1; }
echo "$ms" > "$knob" || exit 1
# Let the grace period that the hold blocked complete before RCU may warn again.
[ "$detector" = lockup ] && { sleep 3; echo 0 > "$suppress"; }
echo "VMSCALE-RESULT {\"workload\":\"stall\",\"ok\":true,\"errors\":0,\"ops\":1,\"ops_unit\":\"stall\",\"ms\":$ms,\"detector\":\"$detector\"}"
