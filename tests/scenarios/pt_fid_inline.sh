# SPDX-License-Identifier: GPL-2.0
# Issue 10 case 1: a driver built with its static list helpers inlined
# (clang -O2, GCC -O3) has no nv_alloc_set_page, nv_mem_pool_move_pages or
# nv_mem_pool_free_page_list. pagetrail attaches anyway, says which
# fallbacks stand in (control, coverage), and a clean CUDA-init run with
# reclaim gives the same counts as nvsim's own, no gap, no anomaly.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
HELPERS="nv_alloc_set_page nv_mem_pool_move_pages nv_mem_pool_free_page_list"
plan 24

insmod /pt/modules/inline/nvsim.ko
ok $? "insmod the inlining build of nvsim"
grep '\[nvsim\]$' /proc/kallsyms > /tmp/kallsyms
for s in $HELPERS; do
	grep -q "[[:space:]]$s[[:space:]]" /tmp/kallsyms
	ok $((! $?)) "$s has no symbol"
done
for s in nv_alloc_system_pages nv_mem_pool_alloc_pages nv_mem_pool_free_pages; do
	grep -Eq "^[0-9a-f]+ [tT] $s[[:space:]]" /tmp/kallsyms
	ok $? "$s is a text symbol"
done

pagetrail-load --target nvsim --ko /pt/modules/pagetrail.ko \
	--target-ko /pt/modules/inline/nvsim.ko -- ring_kb=32768 2> /tmp/loader.err
ok $? "pagetrail-load attaches to the inlining build"
cat /tmp/loader.err >&2
cat $PT/control >&2
is "$(kv state $PT/control)" attached "state is attached"
fb=$(kv fallbacks $PT/control)
diag "fallbacks=$fb"
for s in $HELPERS; do
	like "$fb" "(^|,| )$s(,| |\$)" "control: fallbacks= names $s"
done
cp $PT/coverage /tmp/coverage
grep -i fallback /tmp/coverage >&2
nfb=$(echo "$fb" | tr ', ' '\n\n' | grep -c .)
is "$(grep -ic 'fallback' /tmp/coverage)" "$nfb" "coverage: one line per fallback ($nfb)"

pt_reclaim_run
ok $? "cuinit ran"
is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "every mmap succeeded"
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(kv nv_decode_errors /tmp/stats)" 0 "0 decode errors"
is "$(kv events_assign /tmp/stats)" "$(nv set_page_calls)" "events_assign == nvsim's nv_alloc_set_page calls"
is "$(kv events_take /tmp/stats)" "$(($(nv chunks_taken_clean) + $(nv chunks_taken_dirty)))" \
	"events_take == nvsim's chunks taken"
cmp_ok "$(nv chunks_reclaimed)" -gt 0 "drop_caches made the shrinker reclaim ($(nv chunks_reclaimed))"
is "$(kv events_reclaim /tmp/stats)" "$(nv chunks_reclaimed)" "events_reclaim == nvsim's chunks reclaimed"
is "$(ev role_free)" "$(nv chunks_freed)" "frees to the buddy allocator == nvsim's"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
