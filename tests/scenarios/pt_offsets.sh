# SPDX-License-Identifier: GPL-2.0
# Wrong layouts are refused with a message naming the wrong value, and
# nothing is attached: node_id/order swapped and a dirty list that is no
# list head fail the live check of every pool at attach; nvidia_pte_t
# offsets swapped pass it but are caught at the first nv_alloc_set_page,
# and pagetrail detaches rather than record lies.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 14

insmod /pt/modules/nvsim.ko
good=$(pt_layout)
like "$good" "nv_pool_node_id=[0-9]+ " "the loader found a layout"
with() { echo "$good" | sed "$1"; }
probes_on_nvsim() { grep -c '\[nvsim\]' /sys/kernel/debug/kprobes/list 2>/dev/null; }

node_off=$(echo "$good" | tr ' ' '\n' | sed -n 's/^nv_pool_node_id=//p')
order_off=$(echo "$good" | tr ' ' '\n' | sed -n 's/^nv_pool_order=//p')
insmod /pt/modules/pagetrail.ko target=nvsim \
	$(with "s/nv_pool_node_id=[0-9]*/nv_pool_node_id=$order_off/; s/nv_pool_order=[0-9]*/nv_pool_order=$node_off/")
isnt $? 0 "node_id/order swapped: pagetrail refuses to load"
dmesg | grep -q "pool \[0\]\[4\] reads node_id=4 order=0: nv_pool_node_id=$order_off/nv_pool_order=$node_off"
ok $? "the log names the first pool that disagrees (order 4) and both offsets"
dmesg | grep -q "pagetrail: attached"
ok $((! $?)) "and never said it attached"
is "$(probes_on_nvsim)" 0 "no probe left on nvsim"

dmesg -c > /dev/null
# 24 is inside the 16-byte dirty list that starts at 16: aligned, no
# overlap with the other fields we read, but not a list head.
insmod /pt/modules/pagetrail.ko target=nvsim $(with 's/nv_pool_dirty_list=[0-9]*/nv_pool_dirty_list=24/')
isnt $? 0 "dirty_list at 24: pagetrail refuses to load"
dmesg | grep -q "lists are not list heads: nv_pool_clean_list=0/nv_pool_dirty_list=24 are wrong"
ok $? "the log says the lists are wrong"
is "$(probes_on_nvsim)" 0 "no probe left on nvsim"

dmesg -c > /dev/null
insmod /pt/modules/pagetrail.ko target=nvsim \
	$(with 's/nv_pte_phys_addr=0/nv_pte_phys_addr=X/; s/nv_pte_virt_addr=8/nv_pte_virt_addr=0/; s/nv_pte_phys_addr=X/nv_pte_phys_addr=8/')
ok $? "pte offsets swapped: plausible, pagetrail attaches"
cuinit --gens 1 > /tmp/cuinit.out
is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "the driver is not disturbed"
sleep 1
# With nv_alloc_set_page inlined (pt.nvsim=inline) the walk of the page
# table at nv_alloc_system_pages' return reads the same entries first.
why="nvidia_pte_t after nv_alloc_set_page"
awk '$3 == "nv_alloc_set_page" && $4 == "[nvsim]" { f = 1 } END { exit f }' /proc/kallsyms &&
	why="chunk virtual address in nvidia_pte_t \\(nv_pte_virt_addr\\)"
is "$(kv state $PT/control)" refused "the first chunk read contradicts the layout: detached"
like "$(kv reason $PT/control)" "$why" "control says why, naming the offset to check"
is "$(probes_on_nvsim)" 0 "no probe left on nvsim"
rmmod pagetrail

insmod /pt/modules/pagetrail.ko target=nvsim $good
ok $? "the right layout attaches"
rmmod pagetrail; nvsim_rmmod
done_testing
