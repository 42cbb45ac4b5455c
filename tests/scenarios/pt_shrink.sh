# SPDX-License-Identifier: GPL-2.0
# Reclaim with pagetrail attached: drop_caches=2 (slab shrinkers) and then
# memhog's memory pressure make nvsim's shrinkers free pool chunks. Every
# reclaimed chunk is seen removed by the shrinker and freed on its behalf,
# the counts match nvsim's, and nothing is a gap or an anomaly.
# An earlier hog in the same boot (pt_cli's) can leave kswapd given up on
# every node (16 passes without progress: the pool's frees do not count,
# and nothing else here is reclaimable), and then no pressure short of
# direct reclaim reaches the shrinker: memhog --revive first, while the
# pools are empty (it runs every shrinker too).
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 12

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
cuinit --gens 2 --drain > /tmp/c1.out
owned=$(nv pool_pages_owned)
cmp_ok "$owned" -gt 3000 "cuinit filled the pools ($owned chunks)"
echo 2 > /proc/sys/vm/drop_caches
memhog --revive > /tmp/revive.out
diag "$(cat /tmp/revive.out)"
cuinit --gens 1 --drain > /tmp/c2.out
memhog > /tmp/memhog.out
m=$(grep '^memhog end_' /tmp/memhog.out)
diag "$m"
is "$(echo "$m" | field result)" reclaimed "memhog: memory pressure reclaimed pool chunks"
cp $PT/stats /tmp/stats
grep -E '^(anomaly_|gaps|events_)' /tmp/stats | grep -v '=0$' >&2
head -n 60 $PT/anomalies >&2
pt_drain
cmp_ok "$(nv chunks_reclaimed)" -gt "$owned" "nvsim reclaimed more than the first fill"
is "$(ev role_reclaim_shrinker)" "$(nv chunks_reclaimed)" "reclaims seen == nvsim's chunks_reclaimed"
is "$(ev role_free_reclaim)" "$(nv chunks_reclaimed)" "frees on the shrinker's behalf == reclaimed chunks"
is "$(kv nv_shrink_scan_freed /tmp/stats)" "$(nv chunks_reclaimed)" \
	"the shrinker's own return values add up to the same"
is "$(kv nv_reclaim_mismatch /tmp/stats)" 0 "every scan freed what pagetrail saw it take off the lists"
cmp_ok "$(kv nv_shrink_count_calls /tmp/stats)" -gt 0 "count_objects calls were seen"
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 0" "0 anomalies, 0 coverage gaps"
is "$(kv ring_lost /tmp/stats)" 0 "0 records lost"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
