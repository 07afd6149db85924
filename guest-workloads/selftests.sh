#!/bin/sh
# selftests: the programs of Linux's tools/testing/selftests/mm that build here, built
# static into the image (/selftests), run under the current variant.  Prints one
# VMSCALE-RESULT line like the other workloads: ops = tests passed, errors = tests failed
# (exit 4, KSFT_SKIP, counts as skipped; a failure /selftests/EXPECTED lists for this
# design, from guest-workloads/selftests.expect, counts as expected, with its reason there).
if [ "$1" = "--describe" ]; then
	echo '{"name":"selftests","summary":"the kernel mm selftests that build static here (in the image)","ops_unit":"test passed","params":{"threads":{"default":"0","help":"ignored"},"tests":{"default":"all","help":"comma-separated subset of the built tests"},"limit":{"default":"300","help":"seconds a test may run before it is killed (a failure)"}}}'
	exit 0
fi
DIR=${VMSCALE_SELFTESTS:-/selftests}
tests=all limit=300
for a in "$@"; do
	case "$a" in
	tests=*) tests=${a#tests=} ;;
	limit=*) limit=${a#limit=} ;;
	threads=*) ;;
	*) echo "selftests: unknown parameter '$a' (see --describe)" >&2; exit 2 ;;
	esac
done
[ "$tests" = all ] && tests=$(cat "$DIR/SUBSET")
pass=0 fail=0 skip=0 xfail=0 json="" retried="" secs="" xpass=""
mode=$(cat /proc/sys/vm/vmscale_as 2>/dev/null || echo stock)
[ "$mode" = radixvm ] && [ "$(cat /proc/sys/vm/vmscale_radix_pt 2>/dev/null)" = percore ] &&
	mode=radixvm-percore
# The status a test fails with here by design (selftests.expect), or nothing: the line for
# this mode, else (per-core tables) the region's line, else the line for every design.
expected() {
	[ -f "$DIR/EXPECTED" ] && awk -v m="$mode" -v t="$1" '
		$1 ~ /^#/ || $2 != t { next }
		$1 == m { own = $3 }
		$1 == "radixvm" && m == "radixvm-percore" { region = $3 }
		$1 == "all" { every = $3 }
		END { s = own != "" ? own : region != "" ? region : every; if (s != "") print s }' "$DIR/EXPECTED"
}
# One run, set up as tools/testing/selftests/mm/run_vmtests.sh sets it up.
run_one() {
	args=""
	case "$1" in
	uffd-stress) args="anon 8 4" ;;
	transhuge-stress) args="-d 10" ;;
	esac
	(cd /tmp && timeout "$limit" "$DIR/$1" $args > "/tmp/selftest-$1.log" 2>&1); rc=$?
	return 0
}
for t in $(echo "$tests" | tr ',' ' '); do
	t0=$(date +%s) exp=$(expected "$t")
	if [ ! -x "$DIR/$t" ]; then
		echo "selftests: $t is not in the image" >&2; fail=$((fail + 1)); rc=127
	else
		run_one "$t"
		if [ $rc != 0 ] && [ $rc != 4 ] && [ "$rc" != "$exp" ]; then
			# Timing-sensitive tests (uffd) can flake under TCG: one retry, reported.
			echo "selftests: $t exited $rc; retrying once:" >&2
			tail -n 5 "/tmp/selftest-$t.log" >&2
			run_one "$t"
			retried="$retried${retried:+,}\"$t\""
		fi
		if [ -n "$exp" ] && [ "$rc" = "$exp" ]; then
			xfail=$((xfail + 1))
		else
			if [ -n "$exp" ] && { [ $rc = 0 ] || [ $rc = 4 ]; }; then
				echo "selftests: $t is listed as exiting $exp here but exited $rc: update selftests.expect" >&2
				xpass="$xpass${xpass:+,}\"$t\""
			fi
			case $rc in
			0) pass=$((pass + 1)) ;;
			4) skip=$((skip + 1)) ;;
			*) fail=$((fail + 1)); echo "selftests: $t failed (exit $rc):" >&2
			   # every failed subtest (kselftest's "not ok" lines), then how it ended
			   grep -a "^not ok" "/tmp/selftest-$t.log" | head -n 40 >&2
			   tail -n 15 "/tmp/selftest-$t.log" >&2 ;;
			esac
		fi
	fi
	json="$json${json:+,}\"$t\":$rc"
	secs="$secs${secs:+,}\"$t\":$(($(date +%s) - t0))"
done
ok=true; [ $fail = 0 ] || ok=false
echo "VMSCALE-RESULT {\"workload\":\"selftests\",\"ok\":$ok,\"errors\":$fail,\"ops\":$pass,\"skipped\":$skip,\"expected_failures\":$xfail,\"ops_unit\":\"test passed\",\"mode\":\"$mode\",\"exit_codes\":{$json},\"seconds\":{$secs},\"retried\":[$retried],\"unexpected_passes\":[$xpass]}"
[ $fail = 0 ]
