# SPDX-License-Identifier: GPL-2.0
# Fault Z8 (foreign_put): another kernel thread drops one reference on a
# page in the pool's clean list. The page goes to the buddy allocator while
# the pool still lists it; the next generation's big allocation takes it
# and its mmap fails: vm_insert_page -22 on exactly that pfn, NVRM line,
# EAGAIN. nvsim then drops the chunk instead of freeing it twice.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh

plan 22
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
is "$(cat $P/fault_foreign_put)" N "fault_foreign_put is off by default"
echo 1 > $P/fault_foreign_put

cuinit --foreign --seed 3 > /tmp/foreign.out
ok $? "cuinit --foreign ran"
cat /tmp/foreign.out >&2
f=$(grep '^foreign ' /tmp/foreign.out)
pfn=$(echo "$f" | field pfn)
diag "$f"
is "$(echo "$f" | field comm)" nvsim_foreign "the put ran in the nvsim_foreign kthread"
is "$(echo "$f" | field cpu)" 1 "on CPU 1, not cuinit's CPU 0"
is "$(echo "$f" | field refcount)" 0 "the pooled page's refcount fell to 0"

is "$(grep '^mmap ' /tmp/foreign.out | grep -c 'rc=-1')" 1 "exactly one mmap failed"
like "$(grep '^mmap .*rc=-1' /tmp/foreign.out)" 'gen=1 name=big0 .*errno=11$' \
	"the next generation's first pooled allocation, with EAGAIN"
like "$(grep '^alloc gen=1 name=big0 ' /tmp/foreign.out)" 'pool_chunks=1516 ' "that allocation came from the pool"
o=$(grep '^owner ' /tmp/foreign.out)
is "$(echo "$o" | field name)" big0 "the freed page was handed to that allocation"
is "$(echo "$o" | field refcount)" 0 "with refcount 0"
is "$(dmesg | grep -c 'NVRM: Userspace mapping creation failed \[-22\]!')" 1 "one NVRM [-22] line"

is "$(nv fault_foreign_puts)" 1 "nvsim: one foreign put"
is "$(printf '0x%x' "$(nv fault_foreign_pfn)")" "$pfn" "nvsim recorded the pfn"
is "$(nv fault_foreign_comm)" nvsim_foreign "and the thread"
is "$(printf '0x%x' "$(nv last_insert_fail_pfn)")" "$pfn" "vm_insert_page failed on that pfn"
is "$(nv last_insert_fail_rc)" -22 "with -EINVAL"
is "$(nv last_insert_fail_comm)" cuinit "in cuinit's mmap"
is "$(nv chunks_contained)" 1 "the chunk was dropped when its allocation was freed"
echo 0 > $P/fault_foreign_put

like "$(cat /sys/kernel/debug/nvsim/selfcheck | grep '^selfcheck ')" 'errors=0 ' "self-check passes"
nvsim_unload "freed + contained == allocated"
done_testing
