# SPDX-License-Identifier: GPL-2.0
# pagetrail's pagepool profile on the kernel's own page_pool, driven by
# real kernel code (BPF_PROG_TEST_RUN in live-frames mode: one pool made,
# used and destroyed per run), checked against the kernel's own page_pool
# tracepoints read through tracefs: the same pages admitted fresh and let
# go, the same hold/release/in-flight counts at each destroy, every take
# by the thread that ran the program, 0 anomalies, 0 gaps, nothing lost.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
. /pt/lib/pp.sh
plan 29

insmod /pt/modules/pagetrail.ko profile=pagepool ring_kb=16384 $(pt_backend) $(pt_record_first)
ok $? "insmod pagetrail profile=pagepool"
is "$(kv state $PT/control)" attached "attached to the kernel's page_pool"
is "$(kv target $PT/control) $(kv profile $PT/control)" "vmlinux pagepool" \
	"target vmlinux, profile pagepool"
like "$(grep '^pagepool_take=' $PT/control)" "page_pool_alloc_(pages|netmems?)" \
	"control names this kernel's take function"

pp_trace_start
ok $? "the kernel's page_pool tracepoints on (the oracle)"
pp_testrun drop 10000 64
ok $? "test_run XDP_DROP: 10000 frames in batches of 64"
pp_testrun pass 2000 64
ok $? "test_run XDP_PASS: 2000 frames, skbs freed through the recycle path"
pp_testrun tx 1000 32 --repeat 2
ok $? "test_run XDP_TX: 2 runs of 1000 frames"
sleep 1
pp_trace_save /tmp/pptrace
pp_trace_stop

cp $PT/stats /tmp/stats
pt_drain ppdrive
grep -c . /tmp/ev.txt >&2
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(kv ring_lost /tmp/stats) $(kv ring_unaccounted /tmp/stats)" "0 0" \
	"0 records lost, ring accounting balances"

# Pages: the fresh admissions are exactly the kernel's holds, pfn by pfn;
# what pagetrail saw the pool let go is exactly the kernel's releases.
pp_oracle_pages /tmp/pptrace
cmp_ok "$(wc -l < /tmp/k_hold)" -gt 0 "the kernel held $(wc -l < /tmp/k_hold) fresh pages"
cmp -s /tmp/k_hold /tmp/p_hold
ok $? "fresh admissions == the kernel's page_pool_state_hold, pfn by pfn ($(wc -l < /tmp/p_hold))"
cmp -s /tmp/k_rel /tmp/p_rel
ok $? "releases == the kernel's page_pool_state_release, pfn by pfn ($(wc -l < /tmp/p_rel))"

# Pools: each destroy's hold, release and in flight, as the kernel counts.
pp_oracle_pools /tmp/pptrace
is "$(pp_pools_ended)" 4 "the kernel destroyed 4 pools (one per test_run)"
is "$(cat /tmp/p_pools)" "$(cat /tmp/k_pools)" \
	"each destroy's hold, release and in flight == page_pool_release's"
is "$(awk '$7 == "role=pool" && $8 == "cause=create"' /tmp/ev.txt | wc -l)" 4 "4 pools created"
is "$(awk '$7 == "role=pool" && $8 == "cause=gone"' /tmp/ev.txt | wc -l)" 4 "4 pools gone (in flight 0)"
is "$(kv pp_pools_live)" 0 "no pool left in the registry"

# Takes: by the thread that ran the program, each of a page the pool held.
is "$(ev role_take)" "$(ev role_assign_pool)" "every take assigned to its pool"
cmp_ok "$(ev role_take)" -ge 13000 "takes >= frames run ($(ev role_take))"
is "$(awk '$7 == "role=take" && $6 != "comm=ppdrive"' /tmp/ev.txt | wc -l)" 0 \
	"every take on the ppdrive thread"
is "$(awk '$7 == "role=take" && ($19 != "ref=1" || $11 !~ /^from=pooled/)' /tmp/ev.txt | wc -l)" 0 \
	"every take: refcount 1, from the pool"
# Recycles: test_run forbids direct recycling (no NAPI), so its pages go
# back through the ring and the refill moves them into the cache.
cmp_ok "$(ev role_admit_ring)" -gt 0 "recycles into the ring ($(ev role_admit_ring))"
cmp_ok "$(ev role_scrub_cache)" -gt 0 "refills ring -> cache ($(ev role_scrub_cache))"
# Every page handed out came back once: recycled, or let go by its holder.
rel_held=$(awk '$7 == "role=release" && $11 == "from=assigned"' /tmp/ev.txt | wc -l)
is "$(ev role_take)" "$(($(ev role_admit_ring) + $(ev role_admit_cache) + rel_held))" \
	"takes == recycles + releases from a holder ($rel_held)"
is "$(awk '$7 == "role=admit" && $8 != "cause=fresh" && $19 != "ref=1"' /tmp/ev.txt | wc -l)" 0 \
	"every recycle with refcount 1"
is "$(awk '$7 == "role=admit" && $23 !~ /pflags=0x[0-9a-f]*[2367abef][0-9a-f][0-9a-f]$/' /tmp/ev.txt | wc -l)" 0 \
	"every admitted page carries page_pool's signature"
rmmod pagetrail
ok $? "pagetrail unloads"
done_testing
