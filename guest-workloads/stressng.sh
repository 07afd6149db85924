#!/bin/sh
# stressng: the VM stressors of stress-ng (a third-party stress tool, Debian's build, in the
# image with its libraries), each with --verify, run under the current kernel variant.  One
# VMSCALE-RESULT line like the other workloads: ops = stressors passed, errors = stressors
# failed; exit 3 (out of resources) and 4 (not implemented here) count as skipped.
if [ "$1" = "--describe" ]; then
	echo '{"name":"stressng","summary":"stress-ng VM stressors with content verification (third-party)","ops_unit":"stressor passed","params":{"threads":{"default":"0","help":"ignored (see workers)"},"workers":{"default":"2","help":"instances of each stressor"},"stressors":{"default":"vm:20,mmap:4,mremap:10,madvise:10,fork:50,brk:50,mlock:50,msync:50,memfd:5,remap:20,vm-rw:20,vm-segv:50,bigheap:50,shm-sysv:50,pagemove:2","help":"comma-separated NAME:OPS (bogo ops per instance)"},"timeout":{"default":"120","help":"seconds each stressor may run"},"bytes":{"default":"","help":"bytes each instance maps per operation in vm, mmap, mremap and memfd (--NAME-bytes; default: stress-ng'"'"'s own, 256M)"}}}'
	exit 0
fi
SNG=${VMSCALE_STRESS_NG:-/bin/stress-ng}
workers=2 timeout=120 bytes=
stressors="vm:20,mmap:4,mremap:10,madvise:10,fork:50,brk:50,mlock:50,msync:50,memfd:5,remap:20,vm-rw:20,vm-segv:50,bigheap:50,shm-sysv:50,pagemove:2"
for a in "$@"; do
	case "$a" in
	workers=*) workers=${a#workers=} ;;
	stressors=*) stressors=${a#stressors=} ;;
	timeout=*) timeout=${a#timeout=} ;;
	bytes=*) bytes=${a#bytes=} ;;
	threads=*) ;;
	*) echo "stressng: unknown parameter '$a' (see --describe)" >&2; exit 2 ;;
	esac
done
if [ ! -x "$SNG" ]; then
	echo "stressng: $SNG is not in the image (install Debian's stress-ng, then vmscale build image)" >&2
	echo "VMSCALE-RESULT {\"workload\":\"stressng\",\"ok\":false,\"errors\":1,\"ops\":0,\"ops_unit\":\"stressor passed\"}"
	exit 1
fi
pass=0 fail=0 skip=0 json=""
mkdir -p /var/tmp/stressng
# seconds since boot, to the hundredth, as an integer of hundredths (the shell has no floats)
now() { read -r up _ < /proc/uptime; echo "${up%.*}${up#*.}"; }
secs=""
for s in $(echo "$stressors" | tr ',' ' '); do
	name=${s%%:*} ops=${s#*:}
	t0=$(now)
	size=""
	case "$name" in vm|mmap|mremap|memfd) [ -z "$bytes" ] || size="--$name-bytes $bytes" ;; esac
	# $size unquoted: empty, or an option and its value
	(cd /var/tmp/stressng && "$SNG" --"$name" "$workers" --"$name"-ops "$ops" $size --verify \
		--timeout "$timeout" --temp-path /var/tmp/stressng > "/tmp/stressng-$name.log" 2>&1); rc=$?
	case $rc in
	0) pass=$((pass + 1)) ;;
	3|4) skip=$((skip + 1)); echo "stressng: $name skipped (exit $rc)" >&2 ;;
	*) fail=$((fail + 1)); echo "stressng: $name failed (exit $rc):" >&2; tail -n 15 "/tmp/stressng-$name.log" >&2 ;;
	esac
	json="$json${json:+,}\"$name\":$rc"
	t=$(($(now) - t0)); secs="$secs${secs:+,}\"$name\":$((t / 100)).$((t / 10 % 10))"
done
ok=true; [ $fail = 0 ] || ok=false
echo "VMSCALE-RESULT {\"workload\":\"stressng\",\"ok\":$ok,\"errors\":$fail,\"ops\":$pass,\"skipped\":$skip,\"ops_unit\":\"stressor passed\",\"exit_codes\":{$json},\"seconds\":{$secs}}"
[ $fail = 0 ]
