# SPDX-License-Identifier: GPL-2.0
# Issue 10 case 6: on coherent-NUMA systems (GH200) nvidia_mmap_numa inserts
# GPU-memory pages from inside nvidia_mmap_helper with vm_private_data
# NULL. Those are not pool pages: pagetrail counts them apart
# (nv_inserts_unowned), does not track them, and raises no gap; the sysmem
# mapping beside them is recorded as usual.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 12

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
cuinit --numa 8 > /tmp/cuinit.out
ok $? "cuinit --numa 8 ran"
is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "both mmaps succeeded"
echo drain > /sys/kernel/debug/nvsim/control
cp $PT/stats /tmp/stats
cat $PT/pages > /tmp/pages
pt_drain
numa=$(nv numa_inserts)
is "$numa" 8 "nvsim: 8 NUMA inserts"
is "$(kv nv_inserts_unowned /tmp/stats)" "$numa" "nv_inserts_unowned == the NUMA inserts"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
n=0 m=0
for p in $(grep '^numa page=' /tmp/cuinit.out | field pfn); do
	grep -q "^pfn=$p " /tmp/pages && n=$((n + 1))
	grep -q " pfn=$p " /tmp/ev.txt && m=$((m + 1))
done
is "$n" 0 "no NUMA page is in the pages table"
is "$m" 0 "no record names a NUMA page"
is "$(ev role_insert)" "$(($(nv vm_insert_page_calls) - numa))" "the sysmem inserts (32) were all recorded"
is "$(ev insert_token_mismatch) $(ev insert_bad)" "0 0" "each one on a page of its allocation, refcount >= 1"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
