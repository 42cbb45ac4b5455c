# SPDX-License-Identifier: GPL-2.0
# Issue 10 case 3: contiguous allocations use get_order() of the whole size,
# unbounded by NV_MAX_PAGE_ORDER. An 8 MiB request (order 11) fails in the
# buddy allocator and reaches nv_free_system_pages on its failure path with
# at->order 11; a 4 MiB one succeeds as one order-10 chunk. Neither is a
# layout error: pagetrail stays attached and records the 4 MiB chunk.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 14

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
cuinit --big-contig > /tmp/cuinit.out
ok $? "cuinit --big-contig ran"
grep '^alloc ' /tmp/cuinit.out >&2
is "$(grep '^alloc .*name=contig8m' /tmp/cuinit.out | field rc)" -1 "8 MiB contiguous failed (order 11 > NV_MAX_PAGE_ORDER)"
big=$(grep '^alloc .*name=contig4m' /tmp/cuinit.out)
is "$(echo "$big" | field order) $(echo "$big" | field rc)" "10 0" "4 MiB contiguous: order 10, allocated"
pfn=$(echo "$big" | field first_pfn)
sleep 1
cp $PT/stats /tmp/stats
is "$(kv state $PT/control)" attached "pagetrail stays attached"
is "$(kv nv_decode_errors /tmp/stats)" 0 "0 decode errors"
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 0" "0 anomalies, 0 gaps"
pt_drain
a=$(grep " role=assign cause=fresh pfn=$pfn " /tmp/ev.txt)
is "$(echo "$a" | field order)" 10 "the 4 MiB chunk $pfn was assigned, order 10"
is "$(grep -c " role=insert .* head=$pfn " /tmp/ev.txt)" 1024 "its 1024 pages were inserted"
f=$(grep " role=free .*pfn=$pfn " /tmp/ev.txt | tail -n1)
is "$(echo "$f" | field cause) $(echo "$f" | field order) $(echo "$f" | field anomaly)" \
	"direct 10 none" "and freed directly (no order-10 pool), no anomaly"

# Still recording afterwards.
s0=$(nv set_page_calls)
cuinit --gens 1 > /tmp/c2.out
echo drain > /sys/kernel/debug/nvsim/control
cp $PT/stats /tmp/stats
pt_drain
is "$(kv state $PT/control)" attached "still attached after a CUDA-init generation"
is "$(ev role_assign)" "$(($(nv set_page_calls) - s0))" "every nv_alloc_set_page since was seen"
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 0" "0 anomalies, 0 gaps"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
