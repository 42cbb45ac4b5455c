# SPDX-License-Identifier: GPL-2.0
# TAP helpers for guest scenarios (busybox sh). Each scenario sources this,
# calls plan N, the assertions, then done_testing; stdout is the TAP stream.

_tap_n=0
_tap_fail=0

plan() { echo "1..$1"; }

ok() {	# ok COND-RC DESCRIPTION
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_fail=$((_tap_fail + 1))
		return 1
	fi
}

is() {	# is GOT EXPECTED DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got: '$1'"
		echo "#   expected: '$2'"
		return 1
	fi
}

isnt() {	# isnt GOT UNEXPECTED DESCRIPTION
	if [ "$1" != "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got: '$1'"; return 1; fi
}

cmp_ok() {	# cmp_ok A OP B DESCRIPTION   (numeric: -eq -ne -lt -le -gt -ge)
	if [ "$1" "$2" "$3" ] 2>/dev/null; then
		ok 0 "$4"
	else
		ok 1 "$4"
		echo "#   '$1' $2 '$3' is false"
		return 1
	fi
}

like() {	# like STRING REGEX DESCRIPTION
	if echo "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   '$1' does not match /$2/"
		return 1
	fi
}

skip() { # skip N REASON: N assertions this kernel cannot make
	local i=0
	while [ $i -lt "$1" ]; do ok 0 "# SKIP $2"; i=$((i + 1)); done
}

diag() { echo "# $*"; }

# Log to the console (stderr) so a failing run can be read afterwards.
note() { echo "[scenario] $*" >&2; }

bail() { echo "Bail out! $*"; exit 2; }

done_testing() { [ "$_tap_fail" -eq 0 ]; }

# field KEY < "k1=v1 k2=v2": print the value of KEY in each input line.
field() {
	awk -v k="$1" '{ for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }'
}

# expect_report ERE ... expect_end: kernel reports (WARNING, BUG: Bad page
# state ...) matching ERE that the kernel prints between the two calls are
# what the scenario provokes on purpose: the runner excuses those, and only
# those, in that window (PT-EXPECT-REPORT, scripts/runvm). The scenario
# should still assert that the report came.
expect_report() { _exp_re=$1; _exp_t0=$(cut -d' ' -f1 /proc/uptime); }
expect_end() {
	echo "PT-EXPECT-REPORT $_exp_t0 $(cut -d' ' -f1 /proc/uptime) $_exp_re"
}
