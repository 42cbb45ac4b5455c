# SPDX-License-Identifier: GPL-2.0
# An independent oracle: CONFIG_DEBUG_PAGE_REF makes the kernel trace every
# refcount change (page_ref:*). Recorded in the same ftrace buffer as
# pagetrail's own tracepoints, the kernel's last refcount of a page before
# pagetrail's event must equal the refcount pagetrail sampled, for every
# page pagetrail flags (foreign_put: 0 at insert; pinned_admit: 2 at admit).
# pagetrail samples at vm_insert_page's entry and records at its return: a
# successful insert took its own reference in between, which the kernel's
# history shows before pagetrail's event, so for ret=0 that one is deducted.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
T=/sys/kernel/tracing
plan 12

[ -d $T/events/page_ref ] || bail "no page_ref tracepoints: not a DEBUG_PAGE_REF kernel"
insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"

# The kernel's refcount history and pagetrail's view, in time. pagetrail
# writes its event when it interprets the observation (record first), so
# the buffer's order is not the order things happened in: the trace clock
# is local_clock() ("perf"), the clock of the observer's ts_ns, and each
# pagetrail event is set against the page_ref events up to its ts_ns (in
# the trace's microseconds: one in the same microsecond counts as before,
# as the insert's own reference, taken between sample and stamp, must).
oracle() { # EVENT FILE -> "pfn pagetrail_ref kernel_ref" per pagetrail event
	awk -v ev="$1" '
	function us(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
		split($i, t, /[.:]/); return t[1] * 1000000 + t[2] } return -1 }
	/ page_ref_/ { if (match($0, /pfn=0x[0-9a-f]+/)) { p = substr($0, RSTART + 4, RLENGTH - 4)
		if (match($0, / count=-?[0-9]+/)) { n = ++nref[p]; rt[p, n] = us(); rc[p, n] = substr($0, RSTART + 7, RLENGTH - 7) } } }
	index($0, " " ev ": ") && / anomaly=[A-Z]/ {
		match($0, / head=0x[0-9a-f]+/); h[++ne] = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, / pfn=0x[0-9a-f]+/); pf[ne] = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, / ref=-?[0-9]+/); r[ne] = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, / ts_ns=[0-9]+/); at[ne] = int(substr($0, RSTART + 7, RLENGTH - 7) / 1000)
		ok0[ne] = ($0 ~ / ret=0 /) }
	END { for (e = 1; e <= ne; e++) { k = "none"; p = h[e]
		for (i = 1; i <= nref[p] && rt[p, i] <= at[e]; i++) k = rc[p, i]
		if (ev == "insert" && k != "none" && ok0[e]) k--
		print pf[e], r[e], k } }' "$2"
}
trace_run() { # CUINIT-ARGS...
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 16384 > $T/buffer_size_kb
	clk=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $T/trace_clock)
	echo perf > $T/trace_clock
	echo 1 > $T/events/page_ref/enable
	echo 1 > $T/events/pagetrail/enable
	echo 1 > $T/tracing_on
	cuinit "$@" > /tmp/cuinit.out
	# Record first: what is still staged goes out before tracing stops.
	cat $PT/stats > /dev/null
	echo 0 > $T/tracing_on
	echo 0 > $T/events/page_ref/enable
	echo 0 > $T/events/pagetrail/enable
	cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print "overrun=" s + 0 }' > /tmp/overrun
	cat $T/trace > /tmp/trace.txt
	echo "$clk" > $T/trace_clock
}

# Up to three runs until the chain happens (see foreign_chain).
foreign_run() { trace_run --foreign --seed $((2 + $1)); }
foreign_chain foreign_run
ok $? "foreign: the put broke a later generation's mmap (the chain happened, run $try of 3)"
is "$(cat /tmp/overrun)" "overrun=0" "foreign: the ftrace buffer lost nothing"
pfn=$(grep '^foreign ' /tmp/cuinit.out | field pfn)
oracle insert /tmp/trace.txt > /tmp/oracle.txt
cat /tmp/oracle.txt >&2
o=$(grep "^$pfn " /tmp/oracle.txt | head -n1)
isnt "$o" "" "foreign: pagetrail flagged the insert of $pfn"
is "$(echo "$o" | cut -d' ' -f2)" 0 "foreign: pagetrail sampled refcount 0"
is "$(echo "$o" | cut -d' ' -f3)" 0 "foreign: the kernel's page_ref history says 0 at that moment"
grep " page_ref_mod_and_test: pfn=$pfn " /tmp/trace.txt | grep -q 'count=0'
ok $? "foreign: the kernel traced the put that took it to 0"
is "$(awk '$2 != $3' /tmp/oracle.txt | wc -l)" 0 "foreign: every flagged insert agrees with the kernel"

echo reset > $PT/control
echo 1 > /sys/module/nvsim/parameters/fault_pinned_admit
trace_run --pin
echo 0 > /sys/module/nvsim/parameters/fault_pinned_admit
pfn=$(grep '^pin ' /tmp/cuinit.out | field pfn)
oracle admit /tmp/trace.txt > /tmp/oracle.txt
cat /tmp/oracle.txt >&2
o=$(grep "^$pfn " /tmp/oracle.txt | head -n1)
is "$(echo "$o" | cut -d' ' -f2)" 2 "pinned: pagetrail sampled refcount 2 at admission of $pfn"
is "$(echo "$o" | cut -d' ' -f3)" 2 "pinned: the kernel's page_ref history says 2"
is "$(awk '$2 != $3' /tmp/oracle.txt | wc -l)" 0 "pinned: every flagged admission agrees with the kernel"
grep -E "(page_ref_[a-z_]+|admit): .*(pfn|head)=$pfn " /tmp/trace.txt | tail -n 14 | while read -r l; do diag "$l"; done
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
