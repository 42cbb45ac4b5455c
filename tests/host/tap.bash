# SPDX-License-Identifier: GPL-2.0
# TAP helpers for host-side tests (bash). Sourced; ends with summary.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$TOP/scripts/common.sh"
_n=0 _pass=0 _fail=0

ok() {	# ok RC DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_n - $2"; _pass=$((_pass + 1))
	else
		echo "not ok $_n - $2"; _fail=$((_fail + 1))
	fi
}

is() {	# is GOT EXPECTED DESCRIPTION
	[ "$1" = "$2" ]; local rc=$?
	ok $rc "$3"
	[ $rc = 0 ] || printf '#   got: %s\n#   expected: %s\n' "$1" "$2"
}

like() {	# like STRING REGEX DESCRIPTION
	grep -Eq -- "$2" <<< "$1"; local rc=$?
	ok $rc "$3"
	[ $rc = 0 ] || printf '#   %s\n#   does not match /%s/\n' "$(head -c 300 <<< "$1")" "$2"
}

summary() {
	echo "1..$_n"
	echo "$_pass passed, $_fail failed"
	[ "$_fail" = 0 ]
}
