# SPDX-License-Identifier: GPL-2.0
# nvsim's fidelity triggers on their own (issue 10): the inlining build has
# no symbol for the three list helpers, the cannot-sleep admission refusal,
# the contiguous request above NV_MAX_PAGE_ORDER, the release race and the
# NUMA-style insert each do what the real driver would, and nvsim's own
# accounting still balances.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh
plan 33

# -- the inlining build
insmod /pt/modules/inline/nvsim.ko
ok $? "insmod inline/nvsim.ko"
is "$(nv inline_helpers)" 1 "it says it was built with NVSIM_INLINE_HELPERS"
grep '\[nvsim\]$' /proc/kallsyms > /tmp/kallsyms
for s in nv_alloc_set_page nv_mem_pool_move_pages nv_mem_pool_free_page_list; do
	grep -q "[[:space:]]$s[[:space:]]" /tmp/kallsyms
	ok $((! $?)) "$s is inlined: no symbol"
done
for s in nv_alloc_system_pages nv_mem_pool_alloc_pages nv_mem_pool_free_pages; do
	grep -Eq "^[0-9a-f]+ [tT] $s[[:space:]]" /tmp/kallsyms
	ok $? "$s is still a text symbol"
done
cuinit --gens 2 --seed 3 > /tmp/c.out
is "$(grep '^summary ' /tmp/c.out | field mmap_failed)" 0 "inline build: cuinit maps everything"
cmp_ok "$(nv set_page_calls)" -gt 3000 "the inlined nv_alloc_set_page still counts ($(nv set_page_calls))"
echo 2 > /proc/sys/vm/drop_caches
nvsim_unload "inline build balanced"

# -- the default build: each trigger
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim.ko"
echo 2 > $P/fault_admit_atomic
cuinit --gens 1 --seed 5 > /tmp/c.out
is "$(cat $P/fault_admit_atomic)" 0 "fault_admit_atomic: both armed frees used"
is "$(nv admit_refused)" 2 "two admissions refused (cannot sleep)"
cmp_ok "$(nv admit_refused_chunks)" -gt 0 "nv_free_system_pages freed their chunks itself ($(nv admit_refused_chunks))"
dmesg | grep -q "nvsim: pool admission where it cannot sleep"
ok $? "the driver path said why"

cuinit --big-contig > /tmp/c.out
diag "$(grep '^alloc ' /tmp/c.out | tr '\n' ';')"
is "$(grep '^alloc .*name=contig8m' /tmp/c.out | field rc)" -1 "8 MiB contiguous (order 11) fails"
like "$(grep '^alloc .*name=contig4m' /tmp/c.out)" "order=10 .*chunks=1 .*rc=0" "4 MiB contiguous: one order-10 chunk"
is "$(grep '^summary ' /tmp/c.out | field mmap_failed)" 0 "and it maps"

# The racer must find only the freed allocation's chunks in the pool.
echo empty > /sys/kernel/debug/nvsim/control
is "$(nv pool_n0_o4_pages_owned)" 0 "pool node 0 order 4 emptied first"
echo 6 > $P/fault_release_race
cuinit --race > /tmp/c.out
r=$(grep '^race ' /tmp/c.out)
diag "$r"
is "$(echo "$r" | field runs)" 1 "one release race"
is "$(echo "$r" | field pool_chunks)" 6 "the racer took 6 chunks from the pool"
is "$(cat $P/fault_release_race)" 0 "one-shot: disarmed"
n=0
for p in $(grep '^chunk name=racer' /tmp/c.out | field pfn); do
	grep -q "^chunk name=racefree .* pfn=$p\$" /tmp/c.out && n=$((n + 1))
done
is "$n" 6 "all 6 were chunks of the allocation being freed"
dmesg | grep -q "nvsim: release_race: nvsim_racer took 6 of 6"
ok $? "dmesg names the racer"

cuinit --numa 8 > /tmp/c.out
is "$(grep 'name=numa' /tmp/c.out | field rc)" 0 "NUMA-style mmap succeeded"
is "$(nv numa_inserts)" 8 "8 inserts with vm_private_data NULL"
is "$(nv numa_pages)" 0 "the device pages went back when the fd closed"
cmp_ok "$(grep -c '^numa page=.* pfn=0x[1-9a-f]' /tmp/c.out)" -eq 8 "cuinit saw their pfns"
is "$(cat /sys/kernel/debug/nvsim/selfcheck | tail -n1 | field result)" ok "self-check ok"
nvsim_unload "all triggers balanced"
done_testing
