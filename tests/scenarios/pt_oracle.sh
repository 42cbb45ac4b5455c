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

# The kernel's refcount history and pagetrail's view, interleaved in time.
oracle() { # EVENT FILE -> "pfn pagetrail_ref kernel_ref" per pagetrail event
	awk -v ev="$1" '
	/ page_ref_/ { if (match($0, /pfn=0x[0-9a-f]+/)) { p = substr($0, RSTART + 4, RLENGTH - 4)
		if (match($0, / count=-?[0-9]+/)) last[p] = substr($0, RSTART + 7, RLENGTH - 7) } }
	index($0, " " ev ": ") && / anomaly=[A-Z]/ {
		match($0, / head=0x[0-9a-f]+/); h = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, / pfn=0x[0-9a-f]+/); p = substr($0, RSTART + 5, RLENGTH - 5)
		match($0, / ref=-?[0-9]+/); r = substr($0, RSTART + 5, RLENGTH - 5)
		k = (h in last) ? last[h] : "none"
		if (ev == "insert" && k != "none" && match($0, / ret=0 /)) k--
		print p, r, k }' "$2"
}
trace_run() { # CUINIT-ARGS...
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 16384 > $T/buffer_size_kb
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
rmmod pagetrail && rmmod nvsim
ok $? "unloaded"
done_testing
