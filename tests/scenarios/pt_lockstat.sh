# SPDX-License-Identifier: GPL-2.0
# No global lock on the hot path (issue 11, item 2), shown with the kernel's
# lock statistics: the CUDA-init program pinned on each vCPU at once with
# pagetrail attached, then /proc/lock_stat (CONFIG_LOCK_STAT) and lockdep.
#
# What is asserted, and why it can fail:
# - pagetrail's hot path takes one lock per observation, the shard lock of
#   the chunk (class &pt_shards[i].lock); the old global tracker lock is
#   gone. Fails if a global lock comes back on the probe path.
# - Every contention lock_stat counts on the shard class is one pagetrail
#   attributed itself (it tries the lock first and, on a wait, compares the
#   holder's chunk with its own): shard_contended_same counts waits for the
#   same chunk (two CPUs moving one page: the ordering we want), and
#   shard_contended_other waits for an unrelated chunk that hashed to the
#   same shard. Hashed locks make that rare, not impossible: two chunks
#   busy at the same instant on the two CPUs share one of the 4096 shards
#   once in 4096 overlaps, and under TCG a vCPU descheduled while it holds
#   a lock lets the other run a whole time slice of acquisitions against
#   it, so overlaps are far longer than on hardware (6.12 TCG: 5 in 207,482
#   acquisitions; the 7.3 sanitizer kernel: 0 in 435,382). So the assertion
#   is a bound: at most one unrelated wait per 5,000 acquisitions, where a
#   global lock would make every overlap a wait. It fails if the lock is
#   not per chunk (per region, or global), or, by chance, in a storm of
#   unlucky collisions; the counts are printed either way.
# - No other lock class of pagetrail's is contended on this clean workload
#   (the anomaly store's lock is taken only for an anomaly; readers' mutexes
#   are not on the probe path).
# - lockdep stays silent: debug_locks is still 1 and the log holds no
#   lockdep report; the ring's books balance; no anomaly is raised.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
if [ ! -e /proc/lock_stat ]; then
	echo "1..0 # SKIP no /proc/lock_stat (CONFIG_LOCK_STAT)"
	exit 0
fi
plan 11
rm -f /tmp/loadfail /tmp/load.*

insmod /pt/modules/nvsim.ko && pt_load
ok $? "nvsim and pagetrail loaded"
is "$(kv state $PT/control)" attached "attached"

echo 0 > /proc/lock_stat
echo 1 > /proc/sys/kernel/lock_stat
runs=6
storm() { # CPU SEED
	local i=0
	while [ $i -lt $runs ]; do
		taskset -c "$1" cuinit --gens 2 --seed $(($2 + 2 * i)) >> /tmp/load.$1 2>&1 ||
			echo "cpu $1 run $i" >> /tmp/loadfail
		i=$((i + 1))
	done
}
storm 0 1 & s0=$!
storm 1 2 & s1=$!
wait $s0 $s1
echo 0 > /proc/sys/kernel/lock_stat
cp /proc/lock_stat /tmp/lock_stat
cp $PT/stats /tmp/stats

test ! -s /tmp/loadfail
ok $? "$((2 * runs)) cuinit runs, one loop pinned on each vCPU, all succeeded"

# lock_stat's summary line per class: name, then con-bounces, contentions,
# waittime (min max total avg), acq-bounces, acquisitions, holdtime...
awk '/^ *[^ -].*: +[0-9]/ {
	i = index($0, ":"); name = substr($0, 1, i - 1); gsub(/^ +/, "", name)
	split(substr($0, i + 1), f, " ")
	print name, f[2], f[8] }' /tmp/lock_stat > /tmp/classes
grep -E '^&?pt_' /tmp/classes > /tmp/ptclasses
sed 's/^/# /' /tmp/ptclasses
# The shard locks are one class (one init site); a reload may number it #2.
shardre='^&pt_shards\[i\]\.lock(#[0-9]+)? '
con=$(grep -E "$shardre" /tmp/ptclasses | awk '{ s += $2 } END { print s + 0 }')
acq=$(grep -E "$shardre" /tmp/ptclasses | awk '{ s += $3 } END { print s + 0 }')
same=$(kv shard_contended_same /tmp/stats)
other=$(kv shard_contended_other /tmp/stats)
diag "shard class: acquisitions=$acq contentions=$con; pagetrail: locked=$(kv shard_locked /tmp/stats) same=$same other=$other shards=$(kv shards /tmp/stats) produced=$(kv ring_produced /tmp/stats)"

cmp_ok "$acq" -gt 0 "the shard locks carried the storm ($acq acquisitions)"
! grep -q 'pt_tracker_lock' /tmp/classes
ok $? "no global tracker lock exists any more"
cmp_ok "$con" -le $((same + other)) "every contention lock_stat saw on the shard class was attributed ($con <= $same + $other)"
locked=$(kv shard_locked /tmp/stats)
cmp_ok $((other * 5000)) -le "$locked" "unrelated chunks did not contend: $other waits in $locked acquisitions (same-chunk waits: $same)"
is "$(grep -vE "$shardre" /tmp/ptclasses | awk '$2 > 0' | wc -l)" 0 \
	"no other pagetrail lock class contended"

grep -q 'debug_locks: *1' /proc/lockdep_stats
ok $? "lockdep still on (debug_locks=1): nothing it reported"
is "$(kv ring_unaccounted /tmp/stats)" 0 "produced = read + buffered + lost, exactly"
is "$(kv anomalies /tmp/stats)" 0 "no anomaly on this clean workload"
grep -q '^anomaly=' $PT/anomalies && head -n 40 $PT/anomalies | sed 's/^/# /'
rmmod pagetrail && nvsim_rmmod
done_testing
