# SPDX-License-Identifier: GPL-2.0
# Fault Z2 (stale_context): mmap through a context whose allocation RM
# already freed. Pages back in the buddy allocator (the pool declined them,
# or the shrinker reclaimed them) have refcount 0: -22, NVRM line, EAGAIN.
# Pages still in the pool map silently. With the mode off nvsim refuses the
# dangling context instead of reading freed memory.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh
nvrm() { dmesg | grep -c 'NVRM: Userspace mapping creation failed \[-22\]!'; }

plan 24
insmod /pt/modules/nvsim.ko $Z2_RELEASE
ok $? "insmod nvsim"
is "$(cat $P/fault_stale_context)" N "fault_stale_context is off by default"

cuinit --stale=nozero > /tmp/off.out
cat /tmp/off.out >&2
like "$(grep '^mmap ' /tmp/off.out)" 'stale=1 how=nozero rc=-1 errno=22$' "mode off: the dangling context is refused (EINVAL)"
is "$(nv mmaps_refused)" 1 "mode off: counted as refused"
is "$(nv vm_insert_page_calls)" 0 "mode off: nothing was inserted"

echo 1 > $P/fault_stale_context
cuinit --stale=nozero > /tmp/nozero.out
cat /tmp/nozero.out >&2
like "$(grep '^alloc ' /tmp/nozero.out)" 'pooled=0' "not zeroed: the pool declines the allocation"
like "$(grep '^mmap ' /tmp/nozero.out)" 'how=nozero rc=-1 errno=11$' "pool declined, then freed: mmap fails with EAGAIN"
is "$(nvrm)" 1 "one NVRM [-22] line"
is "$(nv last_insert_fail_rc)" -22 "vm_insert_page said -EINVAL"
is "$(printf '0x%x' "$(nv last_insert_fail_pfn)")" "$(grep '^free ' /tmp/nozero.out | field first_pfn)" \
	"on the first page of the freed allocation"
is "$(nv fault_stale_mmaps)" 1 "nvsim saw one mmap through a freed allocation"
is "$(printf '0x%x' "$(nv fault_stale_pfn)") $(nv fault_stale_pid)" \
	"$(grep '^free ' /tmp/nozero.out | field first_pfn) $(grep '^cuinit ' /tmp/nozero.out | field pid)" \
	"nvsim recorded its first pfn and cuinit as the thread"

r0=$(nv chunks_reclaimed)
cuinit --stale=reclaim > /tmp/reclaim.out
cat /tmp/reclaim.out >&2
like "$(grep '^alloc ' /tmp/reclaim.out)" 'pooled=1' "zeroed: the pool takes the allocation back"
cmp_ok "$(nv chunks_reclaimed)" -gt "$r0" "drop_caches: the shrinker reclaimed pool chunks"
like "$(grep '^mmap ' /tmp/reclaim.out)" 'how=reclaim rc=-1 errno=11$' "pooled, reclaimed, then mapped: EAGAIN"
is "$(nvrm)" 2 "a second NVRM [-22] line"
is "$(nv fault_stale_mmaps)" 2 "nvsim saw two stale mmaps"

cuinit --stale=pooled > /tmp/pooled.out
cat /tmp/pooled.out >&2
like "$(grep '^mmap ' /tmp/pooled.out)" 'how=pooled rc=0 errno=0$' "still pooled: the stale mmap succeeds silently (aliasing)"
is "$(nvrm)" 2 "no NVRM line for it"
cmp_ok "$(nv fault_stale_releases)" -ge 1 "its VMA close did not free the pages again"
cmp_ok "$(nv fault_stale_graveyard)" -ge 3 "freed allocations were kept in the graveyard"
echo 0 > $P/fault_stale_context

like "$(cat /sys/kernel/debug/nvsim/selfcheck | grep '^selfcheck ')" 'errors=0 ' "self-check passes"
nvsim_unload "every page back"
done_testing
