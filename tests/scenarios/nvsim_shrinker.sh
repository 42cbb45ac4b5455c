# SPDX-License-Identifier: GPL-2.0
# Memory pressure empties nvsim's pools through its shrinkers: slab
# shrinking (drop_caches=2) frees every pooled chunk, and memhog's
# anonymous memory makes reclaim free pool chunks too.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh

plan 17
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
cuinit --gens 2 --drain > /tmp/c1.out
is "$(grep '^summary ' /tmp/c1.out | field mmap_failed)" 0 "cuinit filled the pools"
owned=$(nv pool_pages_owned)
cmp_ok "$owned" -gt 3000 "pools hold $owned chunks"
is "$(nv pool_dirty)$(nv pool_inflight)" 00 "all of them scrubbed"
r0=$(nv chunks_reclaimed)

echo 2 > /proc/sys/vm/drop_caches
is "$(nv pool_pages_owned)" 0 "drop_caches=2: the pools are empty"
is "$(($(nv chunks_reclaimed) - r0))" "$owned" "drop_caches=2: the shrinkers freed every pooled chunk"
cmp_ok "$(nv shrinker_scans)" -gt 0 "nv_mem_pool_shrinker_scan ran"
is "$(nv chunks_fresh)" "$(($(nv chunks_live) + $(nv pool_pages_owned) + $(nv chunks_freed) + $(nv chunks_contained)))" \
	"every chunk allocated is in an allocation, in a pool, or freed"

cuinit --gens 1 --drain > /tmp/c2.out
owned=$(nv pool_pages_owned)
cmp_ok "$owned" -gt 1000 "cuinit refilled the pools ($owned chunks)"
r1=$(nv chunks_reclaimed)
memhog > /tmp/memhog.out
ok $? "memhog ran"
cat /tmp/memhog.out >&2
m=$(grep '^memhog end_' /tmp/memhog.out)
diag "$m"
is "$(echo "$m" | field result)" reclaimed "memhog: reclaim freed pool chunks before the limit"
cmp_ok "$(nv chunks_reclaimed)" -gt "$r1" "nvsim: chunks_reclaimed grew under memory pressure"
cmp_ok "$(nv pool_pages_owned)" -lt "$owned" "nvsim: the pools shrank"

like "$(cat /sys/kernel/debug/nvsim/selfcheck | grep '^selfcheck ')" 'errors=0 ' "self-check passes"
nvsim_unload "every page back"
is "$(echo "$bal" | field chunks_fresh)" "$(echo "$bal" | field chunks_freed)" "unload: chunks freed == chunks allocated"
done_testing
