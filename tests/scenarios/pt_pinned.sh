# SPDX-License-Identifier: GPL-2.0
# GUP-pin aliasing (pinned_admit): a page with an extra reference enters the
# pool and is handed to another allocation. Nothing fails; pagetrail must
# flag the admission with refcount 2 and the take that makes the page owned
# by two allocations, naming both.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 12

insmod /pt/modules/nvsim.ko && pt_load
ok $? "nvsim and pagetrail loaded"
echo 1 > /sys/module/nvsim/parameters/fault_pinned_admit
cuinit --pin > /tmp/cuinit.out
ok $? "cuinit --pin ran"
pfn=$(grep '^pin ' /tmp/cuinit.out | field pfn)
cat $PT/anomalies > /tmp/anomalies
pt_drain
cat /tmp/anomalies >&2
owners=$(grep " role=assign .*pfn=$pfn " /tmp/ev.txt | field alloc)
first=$(echo "$owners" | head -n1)
second=$(echo "$owners" | tail -n1)
isnt "$first" "$second" "the pinned pfn $pfn was assigned to two allocation instances in turn"

a=$(anomaly ADMIT_EXTRA_REF "$pfn")
diag "$a"
isnt "$a" "" "ADMIT_EXTRA_REF on the pinned pfn"
is "$(echo "$a" | field ref)" 2 "admitted with refcount 2 (chunk + pin)"
is "$(echo "$a" | field alloc)" "$first" "admitted by the first allocation"
t=$(anomaly TAKE_ALIASED "$pfn")
diag "$t"
isnt "$t" "" "TAKE_ALIASED on the same pfn"
is "$(echo "$t" | field ref)" 2 "taken while the pin still holds it"
is "$(echo "$t" | field alloc) $(echo "$t" | field prev_alloc)" "$second $first" \
	"owned by two allocations: the taker and the pinned one"
is "$(grep -c ' role=insert .* ret=-' /tmp/ev.txt)" 0 "no insert failed: silent aliasing"
is "$(grep -c ' role=map .* ret=-' /tmp/ev.txt)" 0 "no mmap failed"
echo 0 > /sys/module/nvsim/parameters/fault_pinned_admit
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
