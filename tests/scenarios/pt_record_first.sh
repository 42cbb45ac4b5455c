# SPDX-License-Identifier: GPL-2.0
# record_first=1: the probes stage, a consumer interprets later. What the
# product says must not change: the records name the observer (never the
# consumer's thread), come out in one time order across CPUs, keep the
# culprit's stack taken on the probe path, freeze at the anomaly, and
# account for every observation (observed = interpreted + staged + lost).
# A staging ring too small for the load loses observations: counted,
# shown by status, and never turned into a false anomaly.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 33

PT_PARAMS=record_first=1
# Threads named as the consumer is.
consumers() { cat /proc/[0-9]*/comm 2> /dev/null | grep -cx pagetrail_stage; }
insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded with record_first=1"
is "$(kv record_first)" 1 "stats: record_first=1"
# clock=auto: local only with an invariant TSC the kernel trusts, on bare
# metal; these VMs have none, and their CPUs' clocks disagree.
want=causal
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
case $flags in *" constant_tsc "*) case $flags in *" nonstop_tsc "*) case $flags in *" hypervisor "*) ;;
	*) dmesg | grep -q 'Marking TSC unstable' || want=local ;; esac ;; esac ;; esac
is "$(kv clock)" $want "stats: clock=$want, as the CPU's TSC flags decide"

# Two CUDA-init runs, one pinned on each CPU (cuinit pins itself), started
# together: both CPUs stage (nvsim lets one run's allocations go at a time).
# Tracepoints on: the consumer must catch up by itself, with no reader of
# pagetrail's files to drain it (tracefs's trace is not one). Once the
# trace has been quiet for 3 s, a read of stats (which interprets what is
# still staged) must add nothing: a consumer that slept with observations
# staged (its wake lost while it ran) left them for the next reader.
T=/sys/kernel/tracing
# Events in the trace buffer (no overrun at this size): cheap to poll.
tev() { cat $T/per_cpu/cpu*/stats | awk '$1 == "entries:" { n += $2 } END { print n + 0 }'; }
echo 16384 > $T/buffer_size_kb
echo > $T/trace
for e in insert admit scrub; do echo 1 > $T/events/pagetrail/$e/enable; done
cuinit --cpu 0 --gens 2 --drain > /tmp/c0.out &
cuinit --cpu 1 --gens 2 --drain --seed 2 > /tmp/c1.out
wait
pid0=$(sed -n 's/^cuinit .* pid=\([0-9]*\).*/\1/p' /tmp/c0.out)
pid1=$(sed -n 's/^cuinit .* pid=\([0-9]*\).*/\1/p' /tmp/c1.out)
want=$(cat /tmp/c0.out /tmp/c1.out | awk '/^mmap .* rc=0 / { sub(/.*pages=/, ""); n += $1 } END { print n + 0 }')
last=-1 quiet=0
for i in $(seq 60); do
	n1=$(tev)
	if [ "$n1" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0; fi
	[ $quiet -ge 3 ] && break
	last=$n1
	sleep 1
done
is "$(grep -c ' insert: ' $T/trace)" "$want" "no reader: the consumer traced every mapped page's insert by itself"
cat $PT/stats > /dev/null
n2=$(tev)
for e in insert admit scrub; do echo 0 > $T/events/pagetrail/$e/enable; done
is "$n2" "$n1" "quiet for 3 s after ${i} s: a read found nothing left to interpret ($n1 events)"
cat $PT/events > /tmp/ev.txt
cp $PT/stats /tmp/stats
n=$(wc -l < /tmp/ev.txt)
cmp_ok "$n" -gt 20000 "two CUDA-init runs interpreted: $n records"
# The consumer is pagetrail's own thread, made at load: kworkers may
# observe for real (PREEMPT_RT frees pages from them). It allocates
# nothing, or it would be seen taking pages the pool freed (it was, on
# PREEMPT_RT, while it allocated its cursors each run). Records drained
# by a reader (cat, below) name their observers: see the inserts.
is "$(consumers)" 1 "one consumer thread, pagetrail_stage"
grep -m 3 ' comm=pagetrail_stage ' /tmp/ev.txt | while read -r l; do diag "$l"; done
is "$(grep -c ' comm=pagetrail_stage ' /tmp/ev.txt)" 0 \
	"no record names the consumer's thread as the observer"
is "$(grep ' role=insert ' /tmp/ev.txt | grep -vcE " cpu=(0 pid=$pid0|1 pid=$pid1) ")" 0 \
	"every insert names the cuinit that mapped (pid $pid0 on CPU 0, $pid1 on CPU 1)"
is "$(grep ' role=scrub ' /tmp/ev.txt | grep -vc ' comm=nv_mem_pool_scr')" 0 "every scrub names the scrubber kthread"
# The consumer merges the CPUs' staging by time: along the sequence
# numbers, time never goes back, on either CPU or across them.
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	print f["seq"], f["ts"], f["cpu"] }' /tmp/ev.txt | sort -n > /tmp/order
is "$(awk 'NR > 1 && $2 < ts { back++ } { ts = $2 } END { print back + 0 }' /tmp/order)" 0 \
	"time never goes back along the sequence numbers"
is "$(awk '{ print $3 }' /tmp/order | sort -u | tr '\n' ' ')" "0 1 " "records from both CPUs were merged"
is "$(awk 'NR > 1 && $1 != s + 1 { g++ } { s = $1 } END { print g + 0 }' /tmp/order)" 0 "sequence numbers without a hole"
obs=$(kv stage_observed /tmp/stats)
is "$(kv stage_unaccounted /tmp/stats) $(kv stage_lost /tmp/stats) $(kv stage_buffered /tmp/stats)" "0 0 0" \
	"observed ($obs) = interpreted + staged + lost; none lost, none left staged after a read"
cmp_ok "$(kv stage_consumed /tmp/stats)" -ge "$n" "at least one interpreted observation per record"
# 64-byte slots: a section's head, then one slot an observation. nvsim's
# chunks are small and it samples no pool count: none takes a second slot.
slots=$(kv stage_slots /tmp/stats)
is "$(kv stage_slot_bytes /tmp/stats) $(kv stage_wide /tmp/stats)" "64 0" \
	"64-byte staging slots; no observation took a second one"
cmp_ok "$slots" -gt "$obs" "the slots written ($slots) hold the observations and their sections' heads"
cmp_ok "$slots" -le $((2 * obs)) "at most one head an observation"
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 0" "a clean run: 0 anomalies, 0 gaps"

# The foreign put: the culprit's stack is taken on the probe path.
foreign_run() { cuinit --foreign --seed $((2 + $1)) > /tmp/cuinit.out; }
echo reset > $PT/control
foreign_chain foreign_run
ok $? "cuinit --foreign: the foreign put broke a later mmap (run $try of 3)"
fpfn=$(grep '^foreign ' /tmp/cuinit.out | field pfn)
fpid=$(grep '^foreign ' /tmp/cuinit.out | field pid)
cat $PT/anomalies > /tmp/anomalies
a=$(anomaly FREE_WHILE_POOLED "$fpfn")
like "$a" " pid=$fpid .*comm=nvsim_foreign " "FREE_WHILE_POOLED on $fpfn names the foreign thread (pid $fpid)"
like "$(anomaly_block FREE_WHILE_POOLED "$fpfn" | sed -n '/stack:/,$p' | tr '\n' ' ')" "nvsim_foreign" \
	"its stack, taken on the probe path, is the foreign thread's"
# Anomalies judged from the chunk's state on the driver's own path have no
# stack: counted, and shown as such.
awk '/^anomaly=/ { if (on && !frames) n++; on = 1; frames = 0; st = 0; next }
	/^  stack:/ { st = 1; next } /^  [a-z]/ { st = 0 } st && /^    / { frames++ }
	END { if (on && !frames) n++; print n + 0 }' /tmp/anomalies > /tmp/unstacked
is "$(kv anomalies_unstacked)" "$(cat /tmp/unstacked)" \
	"anomalies without a stack: as many as the counter says ($(cat /tmp/unstacked))"
rmmod pagetrail

# freeze_on_anomaly: the interpreter freezes at the anomaly's record.
PT_PARAMS="record_first=1 freeze_on_anomaly=1"
pt_load ring_kb=32768
foreign_chain foreign_run
cat $PT/events > /tmp/fz.txt
cp $PT/stats /tmp/stats
last=$(tail -n 1 /tmp/fz.txt)
like "$last" "anomaly=[A-Z]" "frozen: the last record kept is an anomaly's ($(echo "$last" | field anomaly))"
is "$(grep -c 'anomaly=[A-Z]' /tmp/fz.txt)" 1 "and the only anomaly kept: the first one"
cmp_ok "$(kv ring_dropped_frozen /tmp/stats)" -gt 0 "what was observed after it was counted, not kept"
is "$(kv frozen $PT/control)" 1 "control: frozen=1"
rmmod pagetrail

# A staging ring far too small: 64 KiB per CPU, the consumer woken late.
PT_PARAMS=
pt_load ring_kb=32768 record_first=1 stage_kb=64 stage_wake_pct=90
cuinit --gens 2 --drain > /dev/null
cp $PT/stats /tmp/stats
lost=$(kv stage_lost /tmp/stats)
cmp_ok "$lost" -gt 0 "a 64 KiB staging ring lost observations ($lost)"
is "$(kv stage_unaccounted /tmp/stats)" 0 "and still observed = interpreted + staged + lost"
is "$(kv anomalies /tmp/stats)" 0 "no false anomaly: a loss leaves every chunk known unsure"
pagetrail status > /tmp/status.txt
like "$(cat /tmp/status.txt)" "staging lost [0-9]+ observations" "status says what was lost before interpretation"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
is "$(consumers)" 0 "and the consumer thread with it"
done_testing
