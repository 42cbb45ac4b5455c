# SPDX-License-Identifier: GPL-2.0
# Z1 (noncomp): a contiguous order-4 allocation made without __GFP_COMP, as
# the coherent/Xen path does. Its tail pages have refcount 0; pagetrail must
# flag the insert of page 1: a tail of the block, refcount 0, not compound.
# Read through events.bin and pagetrail decode this time, with the recorder
# set to freeze at the first anomaly so the history before it survives.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 19

insmod /pt/modules/nvsim.ko && pt_load freeze_on_anomaly=1
ok $? "nvsim and pagetrail (freeze_on_anomaly=1) loaded"
echo 1 > /sys/module/nvsim/parameters/fault_noncomp
cuinit --noncomp > /tmp/cuinit.out
ok $? "cuinit --noncomp ran"
head_pfn=$(printf '0x%x' "$(nv fault_noncomp_pfn)")
tail_pfn=$(printf '0x%x' $((head_pfn + 1)))
cat $PT/anomalies > /tmp/anomalies
cp $PT/stats /tmp/stats
cat /tmp/anomalies >&2
cat $PT/events.bin > /tmp/ev.bin
pagetrail decode --check /tmp/ev.bin > /tmp/ev.txt 2> /tmp/ptdecode.err
ok $? "pagetrail decode accepts events.bin (magic, ABI version, whole records)"
cat /tmp/ptdecode.err >&2
is "$(field seq_gaps < /tmp/ptdecode.err)" 0 "no gap in the record sequence"
is "$(field records < /tmp/ptdecode.err)" \
	"$(($(kv ring_produced /tmp/stats) - $(kv ring_dropped_frozen /tmp/stats)))" \
	"every record written before the freeze is in events.bin"

i=$(anomaly INSERT_ZERO_REF "$tail_pfn")
diag "$i"
isnt "$i" "" "INSERT_ZERO_REF on page 1 of the block ($tail_pfn)"
is "$(echo "$i" | field ref)" 0 "refcount 0"
is "$(( $(echo "$i" | field pflags) & 0x7 ))" 0 "neither head, tail nor compound: a non-compound block"
is "$(echo "$i" | field head)" "$tail_pfn" "compound_head() of the page is the page itself"
is "$(echo "$i" | field idx)" 1 "page index 1 of the allocation"
is "$(echo "$i" | field order)" 4 "inside a tracked order-4 chunk"
is "$(echo "$i" | field ret) $(echo "$i" | field comm)" "-22 cuinit" "vm_insert_page -22, in cuinit's mmap"
is "$(grep -c " role=insert .*pfn=$head_pfn .* ref=1 .* ret=0 " /tmp/ev.txt)" 1 \
	"page 0 (the block head, refcount 1) was inserted fine"
is "$(tail -n1 /tmp/ev.txt | field anomaly)" INSERT_ZERO_REF "the last record kept is the anomaly itself"
is "$(grep -c ' role=map ' /tmp/ev.txt)" 0 "records after it were not kept"
is "$(kv frozen $PT/control)" 1 "the recorder is frozen"
cmp_ok "$(kv ring_dropped_frozen /tmp/stats)" -gt 0 "and counts what it dropped since"
is "$(kv anomalies /tmp/stats)" 1 "exactly one anomaly"
echo 0 > /sys/module/nvsim/parameters/fault_noncomp
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
