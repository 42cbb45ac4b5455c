# SPDX-License-Identifier: GPL-2.0
# Load and teardown under load (issue 12, item 3): the CUDA-init program on
# every vCPU at once and memory pressure, while pagetrail is detached and
# attached again and again, "reset" is written, a reader holds events and
# events.bin open and reads them throughout, and the target is unloaded and
# loaded again under pagetrail. Then: every driver run succeeded, no
# anomaly was raised on this clean workload (calls in flight at each attach
# are coverage gaps, not faults), sequence numbers increase strictly across
# every read (resets included), produced = read + buffered + lost exactly,
# and after a reset, one clean run and the target's unload pagetrail's table
# agrees with nvsim: nothing pooled or owned is left.
# Short by default (20 attach cycles); "pt.long=1" on the kernel command
# line (scripts/check --long) runs 100, "pt.cycles=N" N (the KASAN boot).
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 14

cycles=20
grep -q 'pt.long=1' /proc/cmdline && cycles=100
n=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^pt\.cycles=\([0-9][0-9]*\)$/\1/p')
[ -n "$n" ] && cycles=$n
rm -f /tmp/stop /tmp/loadfail /tmp/rd.* /tmp/load.* /tmp/an.first

insmod /pt/modules/nvsim.ko && pt_load ring_kb=16384
ok $? "nvsim and pagetrail loaded"

# The workload: one cuinit loop per CPU, and memory pressure.
load() {
	while [ ! -e /tmp/stop ]; do
		taskset -c "$1" cuinit --gens 1 --seed "$2" >> /tmp/load.$1 2>&1 ||
			echo "cpu $1 seed $2" >> /tmp/loadfail
		set -- "$1" $(($2 + 2))
	done
}
load 0 1 & l0=$!
load 1 2 & l1=$!
memhog --allow-empty --limit-mb 256 --step-mb 32 > /tmp/memhog.out 2>&1 &

# Readers that hold events.bin and events open the whole time.
(
	exec 3< $PT/events.bin
	while [ ! -e /tmp/stop ]; do
		dd bs=32768 count=1 <&3 >> /tmp/rd.bin 2>/dev/null
		sleep 0.3
	done
	dd bs=32768 <&3 >> /tmp/rd.bin 2>/dev/null
) & rb=$!
(
	exec 4< $PT/events
	while [ ! -e /tmp/stop ]; do
		dd bs=4096 count=1 <&4 >> /tmp/rd.txt 2>/dev/null
		sleep 0.3
	done
) & rt=$!

# Anomaly counts by kind, kept before each reset clears them.
collect() {
	grep -E '^anomaly_[A-Z_]+=[1-9]' $PT/stats >> /tmp/kinds
	# Keep the first anomalies seen, with their histories, to show below.
	if [ ! -s /tmp/an.first ] && grep -q '^anomaly=' $PT/anomalies; then
		cp $PT/anomalies /tmp/an.first
	fi
}
kinds() { awk -F= '{ n[$1] += $2; t += $2 } END { for (k in n) printf "%s=%d ", k, n[k]; print "total=" t + 0 }' /tmp/kinds; }

# Churn: detach, attach, and now and then reset, with the driver busy.
: > /tmp/kinds
attached=0
i=0
while [ $i -lt "$cycles" ]; do
	i=$((i + 1))
	echo detach > $PT/control
	sleep 0.1
	echo attach > $PT/control && attached=$((attached + 1))
	sleep 0.3
	if [ $((i % 5)) = 0 ]; then
		collect
		echo reset > $PT/control
	fi
done
collect
is "$attached" "$cycles" "$cycles attaches under load, each accepted"

# The target goes away under pagetrail and comes back.
touch /tmp/stop
wait $l0 $l1
rm /tmp/stop
nvsim_rmmod
ok $? "rmmod nvsim while pagetrail is attached and read"
is "$(kv state $PT/control)" waiting "pagetrail waits for it"
insmod /pt/modules/nvsim.ko
for t in 1 2 3 4 5 6 7 8 9 10; do [ "$(kv state $PT/control)" = attached ] && break; sleep 0.5; done
is "$(kv state $PT/control)" attached "and attaches again when it is back"
load 0 101 & l0=$!
load 1 102 & l1=$!
sleep 5
touch /tmp/stop
wait $l0 $l1 $rt
killall memhog 2>/dev/null
wait $rb
collect

test ! -s /tmp/loadfail
ok $? "every cuinit run succeeded ($(cat /tmp/load.* | grep -c '^summary ') runs)"
is "$(kinds)" "total=0" "no anomaly on a clean workload through $cycles attach cycles"
[ -s /tmp/an.first ] && head -n 80 /tmp/an.first | sed 's/^/# /'
diag "$(grep -E '^(gaps|tracked|ring_produced|ring_lost)=' $PT/stats | tr '\n' ' ')"

echo detach > $PT/control
cp $PT/stats /tmp/stats
is "$(kv ring_unaccounted /tmp/stats)" 0 "produced = read + buffered + lost, exactly"
pagetrail decode --check /tmp/rd.bin > /dev/null 2> /tmp/dec.err
ok $? "events.bin, read throughout: sequence numbers strictly increase ($(cat /tmp/dec.err))"
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^seq=/) { s = substr($i, 5) + 0
	if (s <= last) bad++; last = s; n++ } }
     END { print n + 0, bad + 0 }' /tmp/rd.txt > /tmp/txtseq
is "$(cut -d' ' -f2 /tmp/txtseq)" 0 "events, read throughout: sequence numbers strictly increase ($(cut -d' ' -f1 /tmp/txtseq) lines)"

# The end state, exactly: fresh pools (the target reloaded), a reset, one
# clean run, then the target's unload reclaims every pooled chunk; nothing
# may be left pooled or owned, and that run is fully seen.
nvsim_rmmod && echo reset > $PT/control && insmod /pt/modules/nvsim.ko &&
	echo attach > $PT/control
cuinit --gens 2 --drain > /tmp/final.out
nvsim_rmmod
grep -v '^#' $PT/pages | grep -E ' state=(pooled|pooled_dirty|pooled_clean|taken|reclaiming|assigned|mapped) ' > /tmp/left
is "$(wc -l < /tmp/left)" 0 "after the target's unload no chunk is pooled or owned in pagetrail's table"
is "$(kv anomalies) $(kv gaps)" "0 0" "the final clean run: 0 anomalies, 0 gaps"
dmesg | grep -q 'nvsim: unload:.*balanced=1'
ok $? "nvsim's own accounting balanced at unload"
rmmod pagetrail
ok $? "rmmod pagetrail"
done_testing
