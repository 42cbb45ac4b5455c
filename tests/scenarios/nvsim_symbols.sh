# SPDX-License-Identifier: GPL-2.0
# nvsim's probe points exist under their plain names, the helpers the
# shipped driver inlines do not, the data symbols a tracer reads exist, and
# NVreg_EnableSystemMemoryPools chooses the pools like the driver's does.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh
# Reading and grepping all of /proc/kallsyms is slow under TCG: keep nvsim's.
ksym() { grep -E "^[0-9a-f]+ $1 $2[[:space:]]+\[nvsim\]\$" /tmp/kallsyms; }

PROBES="nv_alloc_system_pages nv_alloc_set_page nv_mem_pool_alloc_pages
	nv_mem_pool_move_pages nv_mem_pool_free_pages nv_mem_pool_worker
	nv_mem_pool_shrinker_count nv_mem_pool_shrinker_scan nv_mem_pool_free_page_list
	nv_mem_pool_destroy nv_mem_pool_init nv_free_system_pages nv_alloc_contig_pages
	nv_free_contig_pages nvidia_mmap nvidia_mmap_helper nvidia_vma_open
	nvidia_vma_release os_acquire_mutex os_release_mutex nv_kthread_q_schedule_q_item"
INLINED="nvidia_mmap_sysmem nv_mem_pool_clear_page nv_mem_pool_queue_worker nv_mem_pool_get"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)

plan 41
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim (default pools)"
grep '\[nvsim\]$' /proc/kallsyms > /tmp/kallsyms
for s in $PROBES; do
	ksym '[tT]' "$s" > /dev/null
	ok $? "probe point $s is a text symbol of nvsim"
done
for s in $INLINED; do
	grep -q "[[:space:]]$s" /tmp/kallsyms
	ok $((! $?)) "$s is inlined: nvsim has no such symbol"
done
n=$(grep -E '[[:space:]](nv_|nvidia_|os_)[a-z_]*\.(isra|constprop|part)[.0-9]*[[:space:]]+\[nvsim\]' /tmp/kallsyms | wc -l)
is "$n" 0 "no .isra/.constprop/.part clone of a driver function"
ksym '[bB]' sysmem_page_pools > /dev/null
ok $? "sysmem_page_pools is a global BSS symbol"
ksym '[dD]' NVreg_EnableSystemMemoryPools > /dev/null
ok $? "NVreg_EnableSystemMemoryPools is a global data symbol"
test ! -e /sys/module/nvsim/parameters/NVreg_EnableSystemMemoryPools
ok $? "NVreg_EnableSystemMemoryPools has perms 0 (not in sysfs), like the driver's"
is "$(nv enable_system_memory_pools)" 0x211 "default NVreg_EnableSystemMemoryPools=0x211"
is "$(nv nv_max_page_order)" 10 "NV_MAX_PAGE_ORDER is 10 on this kernel"
is "$(grep -c '^pool_n[0-9]*_o[049]_pages_owned=' $S)" "$((nodes * 3))" "default pools: orders 0, 4, 9 on every node"
rmmod nvsim
ok $? "rmmod nvsim"

insmod /pt/modules/nvsim.ko NVreg_EnableSystemMemoryPools=0x1
ok $? "insmod nvsim NVreg_EnableSystemMemoryPools=0x1"
is "$(grep '^pool_n[0-9]*_o[0-9]*_pages_owned=' $S | grep -vc '_o0_')" 0 "0x1: only order-0 pools"
is "$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^nv_mem_pool_scr')" "$nodes" "0x1: one scrubber per node"
rmmod nvsim

insmod /pt/modules/nvsim.ko NVreg_EnableSystemMemoryPools=0
ok $? "insmod nvsim NVreg_EnableSystemMemoryPools=0"
cuinit --gens 1 > /tmp/cuinit.out
is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "pools off: cuinit still maps everything"
is "$(nv chunks_taken_clean)$(nv chunks_taken_dirty)$(nv chunks_admitted)" 000 "pools off: nothing taken or admitted"
is "$(nv chunks_fresh)" "$(nv chunks_freed)" "pools off: every chunk went straight back"
rmmod nvsim
done_testing
