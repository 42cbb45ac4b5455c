# SPDX-License-Identifier: GPL-2.0
# KUnit suites of pagetrail_kunit.ko as TAP: one line per test case, one per
# parameter of a table case, and one per suite saying it ran to the end.
. /pt/lib/tap.sh

KO=/pt/modules/pagetrail_kunit.ko
KUNIT=/sys/kernel/debug/kunit
SUITES="pagetrail_rules pagetrail_record pagetrail_control pagetrail_ring_account
	pagetrail_layout pagetrail_memsafe pagetrail_frames pagetrail_table
	pagetrail_ring pagetrail_nvidia pagetrail_target pagetrail_clock
	pagetrail_pending pagetrail_staged"
LINES=/tmp/kunit.lines

# KUnit's debugfs results (KTAP) of one suite -> unnumbered TAP lines:
# "ok - suite.case", "not ok - suite.case[param]", "# diagnostics".
ktap_to_tap='
function verdict(s) { return s ~ /^ *not ok / ? "not ok" : "ok" }
function rest(s) { sub(/^ *(not )?ok [0-9]+ /, "", s); return s }
function directive(s) { return index(s, " # ") ? substr(s, index(s, " # ")) : "" }
function name(s) { return index(s, " # ") ? substr(s, 1, index(s, " # ") - 1) : s }
/^    # Subtest: / { next }
/^        # Subtest: / { pcase = substr($0, 20); next }
/^ *KTAP version / || /^1\.\.1$/ { next }
/^    1\.\.[0-9]+$/ { declared = substr($0, 8) + 0; next }
/^        (not )?ok [0-9]+ / {
	r = rest($0)
	print verdict($0) " - " suite "." pcase "[" name(r) "]" directive(r)
	nparam++
	if (verdict($0) != "ok") { pfail++; failed++ }
	next
}
/^    (not )?ok [0-9]+ / {
	r = rest($0); cases++
	if (!nparam) {
		print verdict($0) " - " suite "." r
		if (verdict($0) != "ok") failed++
	} else if (verdict($0) != "ok" && !pfail) {
		print "not ok - " suite "." name(r) ": failed outside its parameters"
		failed++
	}
	nparam = 0; pfail = 0; pcase = ""
	next
}
/^(not )?ok [0-9]+ / { sverdict = verdict($0); next }
/: pass:[0-9]+ fail:[0-9]+ / || /# Totals: / || /^ *# module: / { next }
/[^ ]/ { s = $0; sub(/^[ \t#]*/, "", s); print "# " s }
END {
	ok = declared > 0 && cases == declared && sverdict != "" &&
	     (sverdict == "ok") == (failed == 0)
	printf "%s - %s: ran %d of %d cases to a verdict (%s)\n", ok ? "ok" : "not ok",
	       suite, cases, declared, sverdict == "" ? "none" : sverdict
}'

: > $LINES
if insmod $KO 2>/tmp/kunit.insmod; then
	echo "ok - insmod pagetrail_kunit.ko" >> $LINES
	loaded=1
else
	echo "not ok - insmod pagetrail_kunit.ko" >> $LINES
	sed 's/^/# /' /tmp/kunit.insmod >> $LINES
	loaded=0
fi
for s in $SUITES; do
	if [ -r "$KUNIT/$s/results" ]; then
		awk -v suite="$s" "$ktap_to_tap" "$KUNIT/$s/results" >> $LINES
	else
		echo "not ok - $s: suite registered (no $KUNIT/$s/results)" >> $LINES
	fi
done
if [ $loaded = 1 ]; then
	if rmmod pagetrail_kunit; then r=ok; else r="not ok"; fi
	echo "$r - rmmod pagetrail_kunit" >> $LINES
fi

plan "$(grep -cE '^(not )?ok ' $LINES)"
while IFS= read -r line; do
	case $line in
	"ok - "*) ok 0 "${line#ok - }" ;;
	"not ok - "*) ok 1 "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done < $LINES
done_testing
