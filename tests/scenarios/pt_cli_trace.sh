# SPDX-License-Identifier: GPL-2.0
# pagetrail --trace: a user who only ran trace-cmd (locally, or streamed
# over trace-cmd listen on loopback) gets the same diagnosis as from the
# module's own files: same class, pfn, culprit thread and record seqs.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 15

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
# Thread names come from the kernel's saved_cmdlines at the end of a
# recording: keep enough that the short-lived foreign thread is still there.
echo 8192 > /sys/kernel/tracing/saved_cmdlines_size
echo 1 > $P/fault_foreign_put
taskset -c 0 trace-cmd record -q -b 20000 -e pagetrail -o /tmp/tc.dat \
	sh -c "$(then_drain cuinit --foreign --seed 3)" > /tmp/cuinit.out 2> /tmp/tc.err
ok $? "trace-cmd record -e pagetrail around cuinit --foreign"
echo 0 > $P/fault_foreign_put
f=$(grep '^foreign ' /tmp/cuinit.out)
pfn=$(echo "$f" | field pfn); fpid=$(echo "$f" | field pid)
pagetrail capture -o /tmp/live.cap 2> /dev/null
pagetrail diagnose --from /tmp/live.cap > /tmp/live.txt
pagetrail diagnose --trace /tmp/tc.dat > /tmp/trace.txt
cat /tmp/trace.txt >&2
z=$(grep '^finding [0-9]*: class=Z8 ' /tmp/trace.txt | head -n1)
is "$(echo "$z" | field pfn) $(echo "$z" | field culprit)" "$pfn nvsim_foreign/$fpid" \
	"--trace: Z8 on nvsim's pfn, culprit the foreign thread"
# The capture is taken after trace-cmd stopped: it may hold later records
# (trace-cmd's own exit reusing the page), so the trace's records must be
# the capture's first ones, and everything else equal.
is "$(grep '^finding' /tmp/trace.txt | sed 's/ records=.*//')" "$(grep '^finding' /tmp/live.txt | sed 's/ records=.*//')" \
	"--trace and --from a capture give the same findings (class, rule, pfn, culprit and its record)"
tr=$(grep '^finding 1:' /tmp/trace.txt | field records)
lr=$(grep '^finding 1:' /tmp/live.txt | field records)
case "$lr," in "$tr,"*) r=0 ;; *) r=1 ;; esac
ok $r "--trace cites the capture's records ($tr of $lr)"
like "$(cat /tmp/trace.txt)" "return chain: vm_insert_page\(pfn $pfn\) = -22 .* mmap\(2\) fails with EAGAIN" \
	"--trace: the return chain"
pagetrail history "$pfn" --trace /tmp/tc.dat > /tmp/h.txt
like "$(cat /tmp/h.txt)" " nvsim_foreign/$fpid +[0-9]+ free +foreign +pooled_clean->freed" "history --trace: the foreign free"

# The same through trace-cmd listen on loopback (record -N).
echo reset > $PT/control
rmmod pagetrail && nvsim_rmmod && insmod /pt/modules/nvsim.ko $Z2_RELEASE && pt_load ring_kb=32768
ok $? "reloaded"
mkdir -p /tmp/listen
ip link set lo up 2> /dev/null || ifconfig lo 127.0.0.1 up
# trace-cmd listen names its client with getnameinfo(): give it a hosts file.
[ -f /etc/hosts ] || echo "127.0.0.1 localhost" > /etc/hosts
[ -f /etc/nsswitch.conf ] || echo "hosts: files" > /etc/nsswitch.conf
# On CPU 0, like the recorder: the page the foreign thread frees waits on
# CPU 1's free list for the pool (see pt_tracecmd).
taskset -c 0 trace-cmd listen -p 18765 -d /tmp/listen > /tmp/listen.log 2>&1 &
lpid=$!
sleep 2
echo 1 > $P/fault_foreign_put
# record -N sends the command lines when it connects: the foreign thread,
# born later, is named by the task events recorded alongside.
# The agent reads the ring as slowly as TCG lets it: size the ring here so
# that no record is overwritten before it goes out.
echo 32768 > /sys/kernel/tracing/buffer_size_kb
taskset -c 0 trace-cmd record -q -N 127.0.0.1:18765 -e pagetrail -e task:task_newtask -e task:task_rename \
	sh -c "$(then_drain cuinit --foreign --seed 3)" > /tmp/cuinit.out 2> /tmp/tcn.err
echo 0 > $P/fault_foreign_put
# The listener forks a child per client, which merges the per-CPU streams
# into the .dat after the client leaves and then exits; its "CPUn data
# recorded" lines come before the file is finished. Wait for the child to
# exit (TCG under a loaded host: at most 5 min), never kill it mid-write.
listen_children() { awk -v p=$lpid '$4 == p { print $1 }' /proc/[0-9]*/stat 2> /dev/null; }
for i in $(seq 150); do
	[ -z "$(listen_children)" ] && break
	sleep 2
done
ok $([ -z "$(listen_children)" ]; echo $?) "trace-cmd listen finished writing (${i}x2 s)"
kill $lpid 2> /dev/null
cat /tmp/listen.log /tmp/tcn.err >&2
dat=$(ls /tmp/listen/*.dat 2> /dev/null | head -n1)
diag "listen wrote: $dat"
f=$(grep '^foreign ' /tmp/cuinit.out)
pfn=$(echo "$f" | field pfn); fpid=$(echo "$f" | field pid)
pagetrail diagnose > /tmp/live2.txt
pagetrail diagnose --trace "$dat" > /tmp/net.txt 2> /tmp/net.err
rc=$?
cat /tmp/net.txt /tmp/net.err >&2
ok $([ $rc -le 1 ]; echo $?) "diagnose --trace reads the listener's file (exit $rc)"
z=$(grep '^finding [0-9]*: class=Z8 ' /tmp/net.txt | head -n1)
# Under TCG the network agent may fall behind and the kernel ring overwrite
# records before they go out. Then the diagnosis must say how many are
# missing (the Z8 chain itself may be among them: no finding may then
# claim another page); when none are, it must equal the live one.
lost=$(sed -n 's/^  UNKNOWN  \([0-9]*\) records missing from the events read.*/\1/p' /tmp/net.txt)
if [ -n "$lost" ] && [ -z "$z" ]; then
	is "$(grep -c '^finding [0-9]*: class=Z8 ' /tmp/net.txt)" 0 \
		"listen/record -N: the Z8 chain was among the $lost lost records, and no Z8 finding names another page"
else
	like "$(echo "$z" | field pfn) $(echo "$z" | field culprit)" "^$pfn (nvsim_foreign|<\.\.\.>)/$fpid$" \
		"listen/record -N: Z8 on nvsim's pfn, culprit the foreign thread's pid"
fi
if [ -n "$lost" ]; then
	diag "record -N lost $lost records in this run (agent behind under TCG)"
	is "$(grep -c '^finding' /tmp/live2.txt) $(grep -c 'class=UNDETERMINED' /tmp/live2.txt)" "1 0" \
		"listen/record -N lost records and says so; the live files, complete, give one Z8 finding"
else
	is "$(grep -c '^finding' /tmp/live2.txt) $(grep '^finding' /tmp/net.txt)" "1 $(grep '^finding' /tmp/live2.txt)" \
		"listen/record -N and the live files give the same (one) finding" ||
		diag "$(grep -E '^(stage_|events_)' $PT/stats | tr '\n' ' ')"
fi

# A small recording (stale context, nozero) handed to the host as a fixture
# for its --trace tests and the fuzz seeds, when it is small enough.
echo 1 > $P/fault_stale_context
trace-cmd record -q -e pagetrail -o /tmp/stale.dat sh -c "$(then_drain cuinit --stale=nozero)" > /tmp/cuinit.out 2> /dev/null
echo 0 > $P/fault_stale_context
pfn=$(grep '^free .*name=stale' /tmp/cuinit.out | field first_pfn)
pagetrail diagnose --trace /tmp/stale.dat > /tmp/st.txt
z=$(grep '^finding [0-9]*: class=Z2 ' /tmp/st.txt | head -n1)
is "$(echo "$z" | field rule) $(echo "$z" | field pfn)" "Z2.insert-after-free $pfn" "--trace: stale context (nozero) is Z2 on $pfn"
size=$(wc -c < /tmp/stale.dat)
diag "stale.dat: $size bytes, pfn $pfn"
cmp_ok "$size" -gt 0 "trace-cmd wrote stale.dat"
if [ "$size" -lt 3000000 ]; then
	echo "PT-FILE-BEGIN stale.dat $pfn"
	base64 /tmp/stale.dat
	echo "PT-FILE-END"
fi
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
