# SPDX-License-Identifier: GPL-2.0
# Fault pinned_admit (GUP-pin aliasing): a page with an extra reference is
# admitted with its allocation (admission never checks page_count) and
# handed to the next one. Nothing fails anywhere; nvsim's self-check names
# the pfn that now has two owners, and it is the pinned one.
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh

plan 17
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
is "$(cat $P/fault_pinned_admit)" N "fault_pinned_admit is off by default"
echo 1 > $P/fault_pinned_admit

cuinit --pin > /tmp/pin.out
ok $? "cuinit --pin ran"
cat /tmp/pin.out >&2
pfn=$(grep '^pin ' /tmp/pin.out | field pfn)
diag "pinned pfn $pfn"
like "$(grep '^mmap ' /tmp/pin.out)" 'name=reuse .*rc=0 errno=0$' "the reusing allocation maps without error"
is "$(grep '^summary ' /tmp/pin.out | field nonzero_pages)" 0 "and reads zeroes"
is "$(grep '^owner ' /tmp/pin.out | field name)" reuse "the pinned page went to the next allocation"
sc=$(grep '^selfcheck when=aliased ' /tmp/pin.out)
cmp_ok "$(echo "$sc" | field double_owned)" -ge 1 "self-check reports a pfn owned twice"
echo "$sc" | field double_pfn | grep -qx "$pfn"
ok $? "the doubly owned pfn is the pinned one"
l=$(dmesg | grep "nvsim: selfcheck: pfn $pfn owned twice")
diag "$l"
like "$l" "owned twice: alloc:[0-9]+:chunk:[0-9]+ and pin:1:alloc:[0-9]+:page:7" "the log line names the pfn and both owners"
is "$(dmesg | grep -c 'NVRM:')" 0 "no NVRM error anywhere"
is "$(nv vm_insert_page_failed)" 0 "no vm_insert_page failed"
like "$(grep '^selfcheck when=unpinned ' /tmp/pin.out)" 'errors=0 ' "after unpin the self-check passes"
is "$(nv fault_pins_live)" 0 "no pin left"
is "$(printf '0x%x' "$(nv fault_pin_pfn)") $(nv fault_pin_pid)" "$pfn $(grep '^cuinit ' /tmp/pin.out | field pid)" \
	"nvsim recorded the pinned pfn and the pinning thread"
echo 0 > $P/fault_pinned_admit

nvsim_unload "every page back"
cmp_ok "$(dmesg | grep -c 'nvsim: selfcheck: pfn')" -ge 1 "the double-owner line is in the log"
done_testing
