# SPDX-License-Identifier: GPL-2.0
# Z2 (stale_context): mmap through a context whose allocation was freed.
# nozero: the pool declined it, its pages went straight back to the buddy;
# reused: the same, then the kernel gave the first page to someone else
# (nvsim's NVSIM_IOC_REUSE, outside every driver path): pagetrail forgets a
# page reused outside the driver and must still know the driver freed it;
# the kernel accepts that insert (the page has an owner), the next one
# fails; reclaim: pooled, then the shrinker freed them. Each insert hits a
# page pagetrail saw freed: INSERT_AFTER_FREE, -22 -> -EAGAIN.
# pooled: the pages still sit in the pool and the insert succeeds: silent
# aliasing, INSERT_WHILE_POOLED.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 25

insmod /pt/modules/nvsim.ko $Z2_RELEASE && pt_load
ok $? "nvsim and pagetrail loaded"
echo 1 > /sys/module/nvsim/parameters/fault_stale_context

for how in nozero reused reclaim; do
	echo reset > $PT/control
	cuinit --stale=$how > /tmp/cuinit.out
	pfn=$(grep '^free .*name=stale' /tmp/cuinit.out | field first_pfn)
	if [ $how = reused ]; then
		grep '^reused ' /tmp/cuinit.out >&2
		like "$(grep '^reused ' /tmp/cuinit.out)" "^reused pfn=$pfn by=nvsim rc=0 " \
			"reused: the kernel gave $pfn to an allocation outside the driver"
	fi
	cat $PT/anomalies > /tmp/anomalies
	pt_drain
	cat /tmp/anomalies >&2
	i=$(anomaly INSERT_AFTER_FREE "$pfn")
	diag "$how: $i"
	isnt "$i" "" "$how: INSERT_AFTER_FREE on the freed allocation's first page $pfn"
	is "$(echo "$i" | field state)" "freed->freed" "$how: pagetrail had seen it freed"
	ref=$(echo "$i" | field ref)
	pflags=$(echo "$i" | field pflags)
	pflags=$((${pflags:-0} & 0x70))
	diag "$how: ref=$ref anon/slab/typed=$pflags"
	if [ $how = reused ]; then
		is "$(echo "$i" | field ret)" 0 "$how: vm_insert_page accepted it (0)"
		ok $([ "${ref:-0}" -ge 1 ] && [ "$pflags" = 0 ]; echo $?) \
			"$how: the record shows why: an ordinary page with an owner (refcount $ref)"
	else
		is "$(echo "$i" | field ret)" -22 "$how: vm_insert_page -22"
		# The kernel refuses a page whose refcount is 0, or one that is
		# anon, slab or typed: a freed page the allocator has already
		# handed to someone else (it happens after a shrinker free).
		# Either way the record must show the reason.
		ok $([ "$ref" = 0 ] || [ "$pflags" != 0 ]; echo $?) \
			"$how: the record shows why: refcount 0, or reused as anon/slab/typed memory"
	fi
	m=$(grep ' role=map ' /tmp/ev.txt)
	is "$(echo "$m" | field ret) $(echo "$m" | field inner_ret)" "-11 -22" "$how: nvidia_mmap -11 after -22"
	case $how in
	nozero) grep -q " role=free cause=direct pfn=$pfn " /tmp/ev.txt ;;
	reused) grep -q " role=free cause=direct pfn=$pfn " /tmp/ev.txt &&
		grep -q " role=alloc cause=foreign pfn=$pfn " /tmp/ev.txt ;;
	reclaim) grep -q " role=reclaim cause=shrinker pfn=$pfn " /tmp/ev.txt &&
		 grep -q " role=free cause=reclaim pfn=$pfn " /tmp/ev.txt ;;
	esac
	ok $? "$how: the free before the insert is in the trail ($how path)"
done

echo reset > $PT/control
cuinit --stale=pooled > /tmp/cuinit.out
pfn=$(grep '^free .*name=stale' /tmp/cuinit.out | field first_pfn)
cat $PT/anomalies > /tmp/anomalies
cat /tmp/anomalies >&2
i=$(anomaly INSERT_WHILE_POOLED "$pfn")
diag "pooled: $i"
isnt "$i" "" "pooled: INSERT_WHILE_POOLED on $pfn"
is "$(echo "$i" | field ret)" 0 "pooled: the insert succeeded (silent aliasing)"
like "$(echo "$i" | field state)" "^pooled_(clean|dirty)->" "pooled: the chunk was in the pool"
like "$(grep '^mmap .*name=stale' /tmp/cuinit.out)" "rc=0 " "pooled: the mmap itself succeeded"
echo 0 > /sys/module/nvsim/parameters/fault_stale_context
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
