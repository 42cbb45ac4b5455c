# SPDX-License-Identifier: GPL-2.0
# Issue 10 case 4: the release race. nv_mem_pool_free_pages has put the
# freed allocation's chunks on the dirty list and dropped the lock; before
# it returns, another thread (nvsim_racer) takes 6 of them into its own
# allocation. When nv_free_system_pages returns, those chunks belong to the
# racer: pagetrail must not mark them released, and nothing is a gap or an
# anomaly.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 16

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
echo 6 > $P/fault_release_race
cuinit --race --hold > /tmp/cuinit.out &
cpid=$!
i=0
while ! grep -q '^hold ' /tmp/cuinit.out && [ $i -lt 300 ]; do sleep 1; i=$((i + 1)); done
r=$(grep '^race ' /tmp/cuinit.out)
diag "$r"
is "$(echo "$r" | field runs) $(echo "$r" | field pool_chunks)" "1 6" \
	"the racer took 6 chunks before admission returned"
racer=$(grep '^chunk name=racer' /tmp/cuinit.out | field pfn)
n=0
for p in $racer; do
	grep -q "^chunk name=racefree .* pfn=$p\$" /tmp/cuinit.out && n=$((n + 1))
done
is "$n" 6 "all 6 are chunks of the allocation being freed"

# While the racer's allocation lives: what does pagetrail say its chunks are?
cat $PT/pages > /tmp/pages
rel=0 asg=0 racer_last=0
for p in $racer; do
	l=$(grep "^pfn=$p " /tmp/pages)
	echo "$l" >&2
	case $l in *" state=released "*) rel=$((rel + 1)) ;; esac
	case $l in *" state=assigned "*) asg=$((asg + 1)) ;; esac
	case $l in *" comm=nvsim_racer "*) racer_last=$((racer_last + 1)) ;; esac
done
is "$rel" 0 "no chunk the racer owns is marked released"
is "$asg" 6 "all 6 are assigned"
is "$racer_last" 6 "their last event is the racer's"

kill -TERM $cpid
wait $cpid
ok $? "cuinit let go of everything"
echo drain > /sys/kernel/debug/nvsim/control
cp $PT/stats /tmp/stats
cat $PT/anomalies > /tmp/anomalies
pt_drain
head -n 40 /tmp/anomalies >&2
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(($(ev gapped) + $(ev anomalous)))" 0 "no record carries a gap or an anomaly"
is "$(grep ' comm=nvsim_racer role=take ' /tmp/ev.txt | wc -l)" 6 "the racer's 6 takes were recorded"
is "$(grep ' comm=nvsim_racer role=assign cause=pool ' /tmp/ev.txt | wc -l)" 6 "and its 6 pool assignments"
# Release records: only for chunks the freeing allocation still owned.
bad=0
for p in $racer; do
	awk -v p="$p" '$0 ~ (" role=release .*pfn=" p " ") { n++ } END { exit n > 0 }' /tmp/ev.txt ||
		bad=$((bad + 1))
done
is "$bad" 0 "no release record on a chunk the racer had taken"
is "$(ev role_take_clean) $(ev role_take_dirty)" "$(nv chunks_taken_clean) $(nv chunks_taken_dirty)" \
	"takes == nvsim's"
is "$(ev role_assign)" "$(nv set_page_calls)" "assignments == nv_alloc_set_page calls"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
