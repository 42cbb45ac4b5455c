# SPDX-License-Identifier: GPL-2.0
# Issue 10 case 5: nv_mem_pool_free_pages refuses admission where it cannot
# sleep (nv-vm.c:786) and returns before touching anything; the caller
# nv_free_system_pages then frees every chunk itself. Those frees are the
# pool declining the chunks (cause=reject), never FREE_WHILE_POOLED.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 15

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
echo 3 > $P/fault_admit_atomic
cuinit --gens 2 --seed 11 > /tmp/cuinit.out
ok $? "cuinit ran with 3 frees armed to run where the driver cannot sleep"
echo drain > /sys/kernel/debug/nvsim/control
refused=$(nv admit_refused)
rchunks=$(nv admit_refused_chunks)
rpfn=$(nv admit_refused_pfn | xargs printf '0x%x')
diag "nvsim: admit_refused=$refused admit_refused_chunks=$rchunks last pfn=$rpfn"
is "$refused" 3 "nvsim refused 3 admissions"
cp $PT/stats /tmp/stats
cat $PT/anomalies > /tmp/anomalies
pt_drain
grep -E '^(anomal|gaps|nv_admit|nv_decode|events_)' /tmp/stats >&2
head -n 40 /tmp/anomalies >&2

is "$(kv state $PT/control)" attached "pagetrail stays attached"
is "$(kv anomaly_FREE_WHILE_POOLED /tmp/stats)" 0 "no FREE_WHILE_POOLED"
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(kv nv_admit_refused /tmp/stats)" "$refused" "nv_admit_refused == nvsim's refusals"
is "$(ev role_free_reject)" "$((rchunks + $(nv chunks_rejected)))" \
	"frees with cause=reject == chunks freed after a refusal + chunks rejected at admission"
is "$(ev role_free)" "$(nv chunks_freed)" "frees to the buddy allocator == nvsim's"
is "$(($(ev gapped) + $(ev anomalous)))" 0 "no record carries a gap or an anomaly"

# The last refused allocation's first chunk: its free is a reject, no anomaly.
f=$(grep " role=free cause=reject pfn=$rpfn " /tmp/ev.txt | tail -n1)
diag "$f"
isnt "$f" "" "the refused chunk $rpfn was freed with cause=reject"
is "$(echo "$f" | field anomaly) $(echo "$f" | field to)" "none freed" "freed, no anomaly"
is "$(echo "$f" | field comm)" cuinit "by the thread that freed the allocation"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
