# SPDX-License-Identifier: GPL-2.0
# Z1 (noncomp): a contiguous order-4 allocation made without __GFP_COMP, as
# the coherent/Xen path does. Its tail pages have refcount 0; pagetrail must
# flag the insert of page 1: a tail of the block, refcount 0, not compound.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 13

insmod /pt/modules/nvsim.ko && pt_load
ok $? "nvsim and pagetrail loaded"
echo 1 > /sys/module/nvsim/parameters/fault_noncomp
cuinit --noncomp > /tmp/cuinit.out
ok $? "cuinit --noncomp ran"
head_pfn=$(printf '0x%x' "$(nv fault_noncomp_pfn)")
tail_pfn=$(printf '0x%x' $((head_pfn + 1)))
cat $PT/anomalies > /tmp/anomalies
pt_drain
cat /tmp/anomalies >&2

i=$(anomaly INSERT_ZERO_REF "$tail_pfn")
diag "$i"
isnt "$i" "" "INSERT_ZERO_REF on page 1 of the block ($tail_pfn)"
is "$(echo "$i" | field ref)" 0 "refcount 0"
is "$(( $(echo "$i" | field pflags) & 0x7 ))" 0 "neither head, tail nor compound: a non-compound block"
is "$(echo "$i" | field head)" "$tail_pfn" "compound_head() of the page is the page itself"
is "$(echo "$i" | field idx)" 1 "page index 1 of the allocation"
is "$(echo "$i" | field order)" 4 "inside a tracked order-4 chunk"
is "$(echo "$i" | field ret) $(echo "$i" | field comm)" "-22 cuinit" "vm_insert_page -22, in cuinit's mmap"
is "$(grep -c ' role=insert .*pfn='"$head_pfn"' .*ref=1 .*ret=0 ' /tmp/ev.txt)" 1 \
	"page 0 (the block head, refcount 1) was inserted fine"
m=$(grep ' role=map ' /tmp/ev.txt | grep ' ret=-11 ')
is "$(echo "$m" | field inner_ret) $(echo "$m" | field pfn)" "-22 $tail_pfn" "return chain -22 -> -11 on $tail_pfn"
is "$(kv anomalies $PT/stats)" 1 "exactly one anomaly"
echo 0 > /sys/module/nvsim/parameters/fault_noncomp
rmmod pagetrail && rmmod nvsim
ok $? "unloaded"
done_testing
