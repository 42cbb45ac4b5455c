# SPDX-License-Identifier: GPL-2.0
# nvsim, no faults: cuinit maps every page of three CUDA-init generations,
# the pool hands chunks from one generation to the next, nvsim's counters
# agree with what cuinit did and with each other, and unload returns every
# page nvsim took.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh
# Free memory in kB, counting the per-CPU free lists that MemFree leaves out.
memfree() {
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
	awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo
}
freekb() { memfree | awk '{ s += $1 } END { print s }'; }

plan 30
echo 3 > /proc/sys/vm/drop_caches
free0=$(freekb)
diag "MemFree and per-CPU lists before load: $(memfree | tr '\n' ' ')"
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
grep -q '^ *[0-9]* nvsimctl$' /proc/devices
ok $? "nvsimctl has a dynamic major in /proc/devices"
# task->comm is "nv_mem_pool_scr"; 6.12 shows a kthread's full name in /proc.
scr=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^nv_mem_pool_scr')
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
is "$scr" "$((nodes * 3))" "one nv_mem_pool_scr kthread per pool (orders 0,4,9 x $nodes nodes)"

cuinit --seed 7 > /tmp/cuinit.out
ok $? "cuinit ran"
cat /tmp/cuinit.out >&2
sum=$(grep '^summary ' /tmp/cuinit.out)
is "$(echo "$sum" | field mmaps)" 27 "cuinit: 27 mmaps, each through its own fd"
is "$(echo "$sum" | field mmap_failed)" 0 "cuinit: no mmap failed"
is "$(echo "$sum" | field inserts_expected)" 14214 "cuinit: 14214 pages mapped"
is "$(echo "$sum" | field nonzero_pages)" 0 "cuinit: every zeroed page read zero, pool chunks included"
is "$(grep '^alloc .*name=big0 ' /tmp/cuinit.out | field chunks | sort -u)" 1516 \
	"big allocation: 1516 chunk registrations in each generation"
cmp_ok "$(grep '^alloc gen=[12] ' /tmp/cuinit.out | field pool_chunks | awk '{ s += $1 } END { print s }')" -gt 3000 \
	"generations 1 and 2 took their chunks from the pool"

is "$(nv mmaps)" 27 "nvsim: 27 nvidia_mmap calls"
is "$(nv mmaps_failed)" 0 "nvsim: no mmap failed"
is "$(nv vm_insert_page_calls)" 14214 "nvsim: one vm_insert_page per page cuinit mapped"
is "$(nv vm_insert_page_failed)" 0 "nvsim: no vm_insert_page failed"
is "$(nv allocs_live)" 0 "nvsim: no allocation left"
is "$(nv chunks_live)" 0 "nvsim: no chunk left in an allocation"
cmp_ok "$(nv allocs_deferred_free)" -gt 0 "some allocations were freed by their last VMA close"
cmp_ok "$(($(nv chunks_taken_clean) + $(nv chunks_taken_dirty)))" -gt 3000 "nvsim: pool takes happened"
is "$(nv chunks_admitted)" "$(($(nv chunks_scrubbed) + $(nv chunks_taken_dirty) + $(nv chunks_reclaimed) + $(nv pool_dirty) + $(nv pool_inflight)))" \
	"every admitted chunk was scrubbed, taken dirty, reclaimed, or is still dirty"

echo drain > /sys/kernel/debug/nvsim/control
is "$(nv pool_dirty)" 0 "after drain: no dirty chunk"
is "$(nv pool_inflight)" 0 "after drain: no chunk in flight"
is "$(nv pool_pages_owned)" "$(($(nv pool_clean) + $(nv pool_dirty) + $(nv pool_inflight)))" \
	"pages_owned == clean + dirty + in-flight, summed over pools"
is "$(nv chunks_fresh)" "$(($(nv chunks_live) + $(nv pool_pages_owned) + $(nv chunks_freed) + $(nv chunks_contained)))" \
	"every chunk allocated is in an allocation, in a pool, or freed"
cat /sys/kernel/debug/nvsim/selfcheck > /tmp/sc.out
cat /tmp/sc.out >&2
like "$(grep '^selfcheck ' /tmp/sc.out)" 'errors=0 .*result=ok' "self-check passes"
is "$(grep -c '^pool .* ok$' /tmp/sc.out)" "$((nodes * 3))" "self-check: every pool consistent"

dmesg | grep -q 'NVRM:'
ok $((! $?)) "no NVRM error in the kernel log"

nvsim_unload "nvsim's counters balance"
is "$(echo "$bal" | field chunks_fresh)" "$(echo "$bal" | field chunks_freed)" "unload: chunks freed == chunks allocated"
echo 3 > /proc/sys/vm/drop_caches
free1=$(freekb)
diag "MemFree and per-CPU lists after unload: $(memfree | tr '\n' ' ')"
diag "free memory before load ${free0} kB, after unload ${free1} kB"
cmp_ok $((free0 - free1)) -lt 8192 "free memory after unload within 8 MiB of before load"
done_testing
