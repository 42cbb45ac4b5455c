# SPDX-License-Identifier: GPL-2.0
# 610.x made nv_mem_pool_alloc_pages, nv_mem_pool_free_pages and
# nv_mem_pool_destroy static; the first two have one caller each and every
# compiler inlines them (nvidia-610.md D1-D3). nvsim's 610 builds have the
# same linkage: 610 (GCC -O2: the list helpers out of line) and 610-inline
# (clang -O2, GCC -O3: everything inlined), with destroy inlined as well
# (the real builds keep it, for now). On each, the three have no symbol,
# pagetrail attaches, names the fallbacks that stand in, a CUDA-init run
# with pool takes, admissions and reclaim gives the same counts as nvsim's
# own, with no gap and no anomaly, and the pools' teardown at unload is
# seen as reclaims, not as frees of pooled pages.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 40

for v in 610 610-inline; do
	ko=/pt/modules/$v/nvsim.ko
	insmod $ko
	ok $? "$v: insmod $v/nvsim.ko"
	is "$(nv static_pool)" 1 "$v: it says it was built with NVSIM_STATIC_POOL"
	grep '\[nvsim\]$' /proc/kallsyms > /tmp/kallsyms
	for s in nv_mem_pool_alloc_pages nv_mem_pool_free_pages; do
		grep -q "[[:space:]]$s[[:space:]]" /tmp/kallsyms
		ok $((! $?)) "$v: $s is inlined: no symbol"
	done
	# 610.43.02's builds keep it out of line; nvsim inlines it to run the fallback.
	grep -q "[[:space:]]nv_mem_pool_destroy[[:space:]]" /tmp/kallsyms
	ok $((! $?)) "$v: nv_mem_pool_destroy is inlined: no symbol"
	want="nv_mem_pool_alloc_pages nv_mem_pool_free_pages nv_mem_pool_destroy"
	[ $v = 610-inline ] && want="$want nv_alloc_set_page nv_mem_pool_move_pages nv_mem_pool_free_page_list"

	pagetrail-load --target nvsim --ko /pt/modules/pagetrail.ko \
		--target-ko $ko -- ring_kb=32768 $(pt_backend) $(pt_record_first) 2> /tmp/loader.err
	ok $? "$v: pagetrail-load attaches"
	cat /tmp/loader.err >&2
	is "$(kv state $PT/control)" attached "$v: state is attached"
	fb=$(kv fallbacks $PT/control)
	diag "$v: fallbacks=$fb"
	# nv_alloc_coherent_pages is left to the compiler in the inlining builds.
	is "$(echo "$fb" | tr ',' '\n' | grep -vx nv_alloc_coherent_pages | sort | tr '\n' ' ')" \
		"$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" \
		"$v: control names exactly the fallbacks for what is inlined"
	cp $PT/coverage /tmp/coverage
	grep -i fallback /tmp/coverage >&2
	like "$(grep '^fallback=nv_mem_pool_free_pages ' /tmp/coverage)" "via=admit_at_nv_free_system_pages_entry.* lost=" \
		"$v: coverage says how admissions are seen and what is lost"

	pt_reclaim_run
	ok $? "$v: cuinit ran"
	is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "$v: every mmap succeeded"
	is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats) $(kv nv_decode_errors /tmp/stats)" "0 0 0" \
		"$v: 0 anomalies, 0 gaps, 0 decode errors"
	cmp_ok "$(nv chunks_admitted)" -gt 0 "$v: nvsim admitted chunks ($(nv chunks_admitted))"
	is "$(kv events_admit /tmp/stats)" "$(($(nv chunks_admitted) + $(nv chunks_rejected)))" \
		"$v: events_admit == nvsim's chunks admitted + turned away"
	is "$(kv events_take /tmp/stats)" "$(($(nv chunks_taken_clean) + $(nv chunks_taken_dirty)))" \
		"$v: events_take == nvsim's chunks taken ($(kv events_take /tmp/stats))"
	is "$(kv events_assign /tmp/stats)" "$(nv set_page_calls)" "$v: events_assign == nvsim's nv_alloc_set_page calls"
	cmp_ok "$(nv chunks_reclaimed)" -gt 0 "$v: drop_caches made the shrinker reclaim ($(nv chunks_reclaimed))"
	is "$(kv events_reclaim /tmp/stats)" "$(nv chunks_reclaimed)" "$v: events_reclaim == nvsim's chunks reclaimed"
	is "$(ev role_free)" "$(nv chunks_freed)" "$v: frees to the buddy allocator == nvsim's"
	rmmod pagetrail && nvsim_rmmod
	ok $? "$v: unloaded"
done
done_testing
