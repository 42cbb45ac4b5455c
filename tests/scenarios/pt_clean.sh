# SPDX-License-Identifier: GPL-2.0
# pagetrail on a clean CUDA-init run of nvsim: complete histories for every
# chunk touched, no anomaly, no coverage gap, no miss, no loss, and
# pagetrail's counts equal nvsim's own.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 44

insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
pt_load ring_kb=32768
ok $? "pagetrail-load attaches to nvsim"
if [ ! -e /sys/kernel/btf/nvsim ]; then
	# 6.1, and 7.x built with bookworm's pahole: no module BTF.
	like "$(cat /tmp/loader.err)" "from DWARF" "no module BTF: layout read from DWARF"
	is "$(ls /run/pagetrail 2>/dev/null | grep -c '^btf-nvsim-')" 0 "no module BTF: nothing kept per boot"
else
	like "$(cat /tmp/loader.err)" "from BTF \(/sys/kernel/btf/nvsim\)" "layout read from nvsim's BTF"
	# The same layout again, from what the first load kept for this boot.
	pagetrail-load --target nvsim --dry-run > /tmp/again 2> /tmp/again.err
	like "$(cat /tmp/again.err)" "parsed from /sys/kernel/btf/nvsim earlier this boot" \
		"a reload reuses this boot's layout ($(grep -c '^nv_' /tmp/again) parameters)"
fi
is "$(kv state $PT/control)" attached "state is attached"
dmesg | grep -q "nvidia profile: [1-9][0-9]* live pools match the layout"
ok $? "the live pools were checked against the layout"

t0=$(cut -d. -f1 /proc/uptime)
cuinit --seed 7 > /tmp/cuinit.out
ok $? "cuinit ran"
diag "cuinit under pagetrail: $(($(cut -d. -f1 /proc/uptime) - t0)) s"
echo drain > /sys/kernel/debug/nvsim/control
sum=$(grep '^summary ' /tmp/cuinit.out)
is "$(echo "$sum" | field mmap_failed)" 0 "cuinit: every mmap succeeded"

# Nothing lost, nothing missed, nothing unexplained.
cp $PT/stats /tmp/stats
cp $PT/coverage /tmp/coverage
pt_drain
cat /tmp/stats >&2
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(kv ring_lost /tmp/stats)" 0 "0 records lost by the ring"
is "$(kv ring_unaccounted /tmp/stats)" 0 "ring accounting balances: produced = read + buffered + lost"
is "$(kv nv_decode_errors /tmp/stats)" 0 "0 decode errors"
is "$(kv nv_take_mismatch /tmp/stats) $(kv nv_reclaim_mismatch /tmp/stats)" "0 0" \
	"chunks seen taken/reclaimed == the pool's own return values"
is "$(kv frames_overflow /tmp/stats) $(kv frames_unbalanced /tmp/stats)" "0 0" \
	"nesting frames never overflowed or unbalanced"
is "$(awk '/^probe=/ { for (i = 1; i <= NF; i++) if ($i ~ /^missed=/ && $i != "missed=0") n++ } END { print n + 0 }' /tmp/coverage)" 0 \
	"0 probe misses (kprobe recursion, maxactive)"
# Every probe planted, except the helpers a fallback stands in for (the
# inlining build of nvsim: pt.nvsim=inline), and exactly those.
unplanted=$(sed -n 's/^probe=[^:]*:\([^ ]*\) .* planted=0 .*/\1/p' /tmp/coverage | sort | tr '\n' ' ')
fallbacks=$(sed -n 's/^fallback=\([^ ]*\) .*/\1/p' /tmp/coverage | sort | tr '\n' ' ')
is "$unplanted" "$fallbacks" "every probe planted but those a fallback covers (${fallbacks:-none})"
nprobes=$(grep -c '^probe=.* planted=1 ' /tmp/coverage)
nf=$(grep -c '^probe=.* backend=fprobe ' /tmp/coverage)
nk=$(grep -cE '^probe=.* backend=k(ret)?probe ' /tmp/coverage)
if [ "$(pt_backend)" = backend=1 ]; then
	is "$nf $nk" "0 $nprobes" "pt.backend=1: every probe on kprobes/kretprobes, none on fprobe"
else
	is "$((nf + nk))" "$nprobes" "every probe on a named back end (fprobe $nf, kprobe $nk)"
fi
is "$(awk '/^probe=/ { for (i = 1; i <= NF; i++) if ($i ~ /^pending=/ && $i != "pending=0") n++ } END { print n + 0 }' /tmp/coverage)" 0 \
	"every tracked entry had its return"

# pagetrail's counts equal nvsim's.
is "$(ev role_insert)" "$(nv vm_insert_page_calls)" "inserts == nvsim vm_insert_page calls"
is "$(kv nv_mmaps /tmp/stats)" "$(nv mmaps)" "mmaps == nvsim mmaps (27)"
is "$(ev role_assign)" "$(nv set_page_calls)" "assignments == nv_alloc_set_page calls"
is "$(ev role_admit)" "$(nv chunks_admitted)" "admissions == nvsim chunks admitted"
is "$(ev role_take_clean)" "$(nv chunks_taken_clean)" \
	"takes from the clean list == nvsim's"
is "$(ev role_take_dirty)" "$(nv chunks_taken_dirty)" \
	"takes from the dirty list == nvsim's"
is "$(ev role_scrub)" "$(nv chunks_scrubbed)" "scrubs == nvsim's scrubber count"
is "$(ev role_free)" "$(nv chunks_freed)" "frees to the buddy allocator == nvsim's"
is "$(grep -c 'state=pooled_clean' $PT/pages)" "$(nv pool_clean)" \
	"chunks pagetrail holds clean == chunks on nvsim's clean lists"

# The records themselves: owners, generations and threads.
is "$(($(ev gapped) + $(ev anomalous)))" 0 "no record carries a gap or an anomaly"
is "$(ev insert_token_mismatch)" 0 \
	"every inserted page belongs to the chunk its allocation was assigned (token match)"
is "$(ev insert_bad)" 0 "every insert saw refcount >= 1 and returned 0"
is "$(ev take_gen_mismatch)" 0 "every take is of the generation its admission started"
is "$(ev scrub_off_scrubber)" 0 "every scrub ran on a scrubber kthread"
is "$(ev user_role_off_thread)" 0 "assignments, takes and inserts ran on cuinit's thread"
cmp_ok "$(ev scrub_dirty_to_clean)" -gt 1000 "scrubs move dirty -> clean"
cmp_ok "$(ev max_admit_gen)" -ge 2 "chunks went through at least two pool generations"
diag "events: $(ev events); $(grep -E '^(events_|ring_produced|tracked)' /tmp/stats | tr '\n' ' ')"

rmmod pagetrail
ok $? "rmmod pagetrail"

# probe_only=1 (make bench's floor): the probes count every hit, no handler
# runs, nothing is recorded.
ins0=$(nv vm_insert_page_calls)
pt_load probe_only=1
ok $? "pagetrail-load with probe_only=1"
cuinit --gens 1 --seed 8 > /dev/null
echo drain > /sys/kernel/debug/nvsim/control
ins=$(($(nv vm_insert_page_calls) - ins0))
cp $PT/stats /tmp/po.stats
is "$(kv probe_only /tmp/po.stats)" 1 "stats: probe_only=1"
calls=$(sed -n 's/^probe=vm_insert_page .* entries=\([0-9]*\) returns=\([0-9]*\) .*/\1 \2/p' \
	$PT/coverage)
is "$calls" "$ins $ins" \
	"probe_only: nvsim's $ins vm_insert_page calls all entered and returned through the probe"
staged=$(kv stage_observed /tmp/po.stats) # absent with record_first=0
is "$(kv ring_produced /tmp/po.stats) $(kv tracked /tmp/po.stats) ${staged:-0}" "0 0 0" \
	"probe_only: no handler ran: nothing staged, recorded or tracked"
like "$(dmesg)" "probe_only=1: probes count their hits, no handler runs, nothing is recorded" \
	"the load says that nothing is recorded"
rmmod pagetrail
ok $? "rmmod pagetrail (probe_only)"
nvsim_rmmod
ok $? "rmmod nvsim"
done_testing
