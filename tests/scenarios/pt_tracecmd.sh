# SPDX-License-Identifier: GPL-2.0
# The module's tracepoints, read by the usual tools: trace-cmd records the
# foreign_put chain and perf records the noncomp one; both show the same
# events, with the same fields, as pagetrail's own flight recorder.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 17

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
ls /sys/kernel/tracing/events/pagetrail > /tmp/tp.list
is "$(grep -cxE 'admit|scrub|take|assign|reclaim|free|release|alloc|insert|map|vma|anomaly' /tmp/tp.list)" 12 \
	"tracefs lists the pagetrail tracepoints (one per role, plus anomaly)"

# trace-cmd's recorder threads allocate pages as they read; on CPU 1, where
# the foreign thread frees its page, they took it first now and then (the
# sanitizer kernel is slow enough to widen that window), so the chain never
# happened: trace-cmd and everything it starts stay on CPU 0. Anything else
# on CPU 1 can still take the page first: up to three runs (foreign_chain),
# the checks read the run in which the chain happened.
record() {
	taskset -c 0 trace-cmd record -q -b 20000 -e pagetrail -o /tmp/tc.dat \
		sh -c "$(then_drain cuinit --foreign --seed $((2 + $1)))" > /tmp/cuinit.out 2>/tmp/tc.err
	rc=$?
}
foreign_chain record
chain=$?
ok $rc "trace-cmd record -e pagetrail around cuinit --foreign"
trace-cmd report -i /tmp/tc.dat > /tmp/tc.txt 2>/dev/null
ok $? "trace-cmd report"
pfn=$(grep '^foreign ' /tmp/cuinit.out | field pfn)
ok $chain "the foreign put broke a later generation's mmap (the chain this test follows happened, run $try of 3)"
pt_drain
is "$(grep -c ' insert: ' /tmp/tc.txt)" "$(ev role_insert)" \
	"trace-cmd saw as many inserts as the flight recorder ($(ev role_insert))"
is "$(grep -c ' admit: ' /tmp/tc.txt)" "$(ev role_admit)" "and as many admissions"
grep ' free: ' /tmp/tc.txt | grep "pfn=$pfn " | grep -q 'nvsim_foreign.*pooled_clean->freed cause=foreign'
ok $? "free of $pfn by nvsim_foreign, pooled_clean->freed, cause=foreign"
l=$(grep ' insert: ' /tmp/tc.txt | grep "pfn=$pfn ")
diag "$l"
like "$l" "cuinit.* ref=0 .* ret=-22 .*anomaly=INSERT_ZERO_REF" "insert of $pfn: cuinit, ref=0, ret=-22, INSERT_ZERO_REF" ||
	{ diag "flight recorder: $(grep "pfn=$pfn " /tmp/ev.txt | grep -E ' role=(insert|free|take) ')"
	  diag "trace: $(grep -E ' (insert|free|take): ' /tmp/tc.txt | grep "pfn=$pfn ")"
	  diag "flight recorder, failed inserts: $(grep ' role=insert ' /tmp/ev.txt | grep -v ' ret=0 ')"
	  diag "trace, failed inserts: $(grep ' insert: ' /tmp/tc.txt | grep -v ' ret=0 ')"
	  diag "$(grep -E '^(stage_|events_|ring_)' $PT/stats | tr '\n' ' ')"; }
like "$(grep ' anomaly: ' /tmp/tc.txt | grep "pfn=$pfn " | grep 'kind=FREE_WHILE_POOLED')" "nvsim_foreign" \
	"anomaly event FREE_WHILE_POOLED names the foreign thread"
like "$(grep ' map: ' /tmp/tc.txt | grep 'ret=-11')" "inner_ret=-22 failed_pfn=$pfn " "map event: -22 -> -11 on $pfn"

echo reset > $PT/control
echo 1 > /sys/module/nvsim/parameters/fault_noncomp
perf record -q --no-buildid-cache -e 'pagetrail:*' -a -o /tmp/perf.data -- \
	sh -c "$(then_drain cuinit --noncomp)" > /tmp/nc.out 2>/tmp/perf.err
ok $? "perf record -e 'pagetrail:*' around cuinit --noncomp"
echo 0 > /sys/module/nvsim/parameters/fault_noncomp
perf script -i /tmp/perf.data > /tmp/perf.txt 2>/dev/null
ok $? "perf script"
tail_pfn=$(printf '0x%x' $(($(nv fault_noncomp_pfn) + 1)))
is "$(grep -c 'pagetrail:insert:' /tmp/perf.txt)" 2 "perf: two inserts (page 0 fine, page 1 refused)"
like "$(grep 'pagetrail:insert:' /tmp/perf.txt | grep "pfn=$tail_pfn ")" "ref=0 .* ret=-22 .*anomaly=INSERT_ZERO_REF" \
	"perf: the tail page $tail_pfn with ref=0, ret=-22"
like "$(grep 'pagetrail:anomaly:' /tmp/perf.txt)" "kind=INSERT_ZERO_REF pfn=$tail_pfn " "perf: the anomaly event"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
