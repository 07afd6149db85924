#!/bin/sh
# selftests: a cheap, self-contained subset of Linux's tools/testing/selftests/mm, built
# static into the image (/selftests), run under the current fault-path variant.  Prints one
# VMSCALE-RESULT line like the other workloads: ops = tests passed, errors = tests failed
# (exit 4, KSFT_SKIP, counts as skipped).
if [ "$1" = "--describe" ]; then
	echo '{"name":"selftests","summary":"a subset of the kernel mm selftests (static, in the image)","ops_unit":"test passed","params":{"threads":{"default":"0","help":"ignored"},"tests":{"default":"all","help":"comma-separated subset of the built tests"}}}'
	exit 0
fi
DIR=${VMSCALE_SELFTESTS:-/selftests}
tests=all
for a in "$@"; do
	case "$a" in
	tests=*) tests=${a#tests=} ;;
	threads=*) ;;
	*) echo "selftests: unknown parameter '$a' (see --describe)" >&2; exit 2 ;;
	esac
done
[ "$tests" = all ] && tests=$(cat "$DIR/SUBSET")
pass=0 fail=0 skip=0 json="" retried=""
for t in $(echo "$tests" | tr ',' ' '); do
	args=""
	[ "$t" = uffd-stress ] && args="anon 8 4"
	if [ ! -x "$DIR/$t" ]; then
		echo "selftests: $t is not in the image" >&2; fail=$((fail + 1)); rc=127
	else
		(cd /tmp && "$DIR/$t" $args > "/tmp/selftest-$t.log" 2>&1); rc=$?
		if [ $rc != 0 ] && [ $rc != 4 ]; then
			# Timing-sensitive tests (uffd) can flake under TCG: one retry, reported.
			echo "selftests: $t exited $rc; retrying once:" >&2
			tail -n 5 "/tmp/selftest-$t.log" >&2
			(cd /tmp && "$DIR/$t" $args > "/tmp/selftest-$t.log" 2>&1); rc=$?
			retried="$retried${retried:+,}\"$t\""
		fi
		case $rc in
		0) pass=$((pass + 1)) ;;
		4) skip=$((skip + 1)) ;;
		*) fail=$((fail + 1)); echo "selftests: $t failed (exit $rc):" >&2; tail -n 15 "/tmp/selftest-$t.log" >&2 ;;
		esac
	fi
	json="$json${json:+,}\"$t\":$rc"
done
ok=true; [ $fail = 0 ] || ok=false
echo "VMSCALE-RESULT {\"workload\":\"selftests\",\"ok\":$ok,\"errors\":$fail,\"ops\":$pass,\"skipped\":$skip,\"ops_unit\":\"test passed\",\"exit_codes\":{$json},\"retried\":[$retried]}"
[ $fail = 0 ]
