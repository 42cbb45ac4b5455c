# SPDX-License-Identifier: GPL-2.0
# Fault Z1 (noncomp): a contiguous allocation made without __GFP_COMP, as
# the Xen dom0 / vGPU-host coherent path makes it. Its tail pages have
# refcount 0, so the mmap fails on page 1: vm_insert_page -22, the NVRM
# line, -EAGAIN to userspace. With the mode off the same allocation maps.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh

plan 18
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
is "$(cat $P/fault_noncomp)" N "fault_noncomp is off by default"

cuinit --noncomp > /tmp/off.out
cat /tmp/off.out >&2
like "$(grep '^mmap ' /tmp/off.out)" 'contig=1 rc=0 errno=0' "mode off: the 16-page contiguous allocation maps"

echo 1 > $P/fault_noncomp
cuinit --noncomp > /tmp/on.out
cat /tmp/on.out >&2
m=$(grep '^mmap ' /tmp/on.out)
like "$m" 'name=contig .*rc=-1 errno=11$' "mode on: that mmap fails with EAGAIN"
is "$(dmesg | grep -c 'NVRM: Userspace mapping creation failed \[-22\]!')" 1 "one NVRM [-22] line"
is "$(nv fault_noncomp_allocs)" 1 "one non-compound allocation made"
is "$(nv fault_noncomp_pid)" "$(grep '^cuinit ' /tmp/on.out | field pid)" "by cuinit"
is "$(nv vm_insert_page_failed)" 1 "one vm_insert_page failed"
is "$(nv last_insert_fail_rc)" -22 "it failed with -EINVAL"
is "$(nv last_insert_fail_pfn)" "$(($(nv fault_noncomp_pfn) + 1))" "on page 1, the first tail page of the block"
is "$(nv vm_insert_page_calls)" 18 "16 inserts with the mode off, 2 with it on"
is "$(nv last_insert_fail_comm)" cuinit "in cuinit's mmap"
is "$(nv mmaps_failed)" 1 "nvsim counted one failed mmap"
is "$(nv allocs_live)" 0 "the failed mapping left no allocation behind"
echo 0 > $P/fault_noncomp

like "$(cat /sys/kernel/debug/nvsim/selfcheck | grep '^selfcheck ')" 'errors=0 ' "self-check passes"
nvsim_unload "every page back"
is "$(dmesg | grep -c 'NVRM:')" 1 "no other NVRM line"
done_testing
