# SPDX-License-Identifier: GPL-2.0
# pagetrail's pagepool profile on the kernel's network drivers' own pools,
# loaded before anything in this boot used one: veth's per-queue pools
# under native XDP (fragments cut by skb_pp_cow_data, destroyed at
# detach), the per-CPU system pool of generic XDP (made at boot, never
# destroyed), and virtio-net's receive pools on Debian's 7.x (pt.nics=1;
# destroyed at rmmod). The oracle is the kernel's own page_pool
# tracepoints: the same pages held and let go, pfn by pfn, each destroy's
# counts, 0 anomalies, 0 gaps, nothing lost.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
. /pt/lib/pp.sh
plan 31

insmod /pt/modules/pagetrail.ko profile=pagepool ring_kb=16384 $(pt_backend) $(pt_record_first)
ok $? "insmod pagetrail profile=pagepool, before any pool is used"
is "$(kv state $PT/control) $(kv profile $PT/control)" "attached pagepool" "attached"
pp_trace_start
ok $? "the kernel's page_pool tracepoints on (the oracle)"

# --- veth, native XDP: one pool per rx queue, fragments, destroyed at detach
pp_modload veth
ok $? "veth.ko loads"
pp_veth va vb
ok $? "veth pair va/vb up"
ppdrive xdp vb native --verdict drop >&2
ok $? "native XDP drop on vb (its pool made)"
ppdrive send va 500 60 --cpu 0 >&2
ok $? "500 frames into va (NAPI on CPU 0, node 0)"
ppdrive send va 500 60 --cpu 1 >&2
ok $? "500 frames into va (NAPI on CPU 1, node 1)"
ppdrive xdp vb off >&2
ok $? "XDP detached (its pool destroyed)"

# --- generic XDP: the per-CPU system pool, made at boot
ppdrive xdp vb generic --verdict drop --frags >&2 && ppdrive send va 200 60 --cpu 0 >&2 &&
	ppdrive xdp vb off >&2
ok $? "generic XDP --frags: attached, 200 frames, detached"
ip link del va

# --- virtio-net's receive pools (Debian's 7.x with QEMU's NIC pair)
if grep -qw 'pt.nics=1' /proc/cmdline && pp_kernel_ge 7 0; then
	pp_trace_save /tmp/tr.pre
	pp_modload virtio_net
	ok $? "virtio_net.ko loads"
	NICS=$(pp_virtio_nics | tr '\n' ' ')
	set -- $NICS
	is "$#" 2 "two virtio-net NICs:$NICS"
	ip link set "$1" up && ip link set "$2" up
	ok $? "both up (rx rings filled from their pools)"
	sleep 1
	ppdrive send "$1" 300 60 >&2
	ok $? "300 frames from $1 to $2 through the hub"
	pp_trace_save /tmp/tr.vn
	rmmod virtio_net
	ok $? "virtio_net unloads (its pools destroyed)"
	bad=0
	# the NICs' pools: those the trace names first after virtio_net loaded
	tail -n +$(($(wc -l < /tmp/tr.pre) + 1)) /tmp/tr.vn > /tmp/tr.vn.new
	for p in $(pp_summary /tmp/tr.vn.new | cut -d' ' -f1); do
		grep -q "page_pool=$p " /tmp/tr.pre || pp_wait_released "$p" 5 || bad=1
	done
	ok $bad "each virtio-net pool freed"
else
	skip 6 "no virtio-net pair (pt.nics=1) or a kernel whose virtio_net has no page_pool"
fi
sleep 1
pp_trace_save /tmp/pptrace
pp_trace_stop
cp $PT/stats /tmp/stats
pt_drain ppdrive
diag "$(grep '^pp_' /tmp/stats | tr '\n' ' ')"
is "$(kv anomalies /tmp/stats)" 0 "0 anomalies"
is "$(kv gaps /tmp/stats)" 0 "0 coverage gaps"
is "$(kv ring_lost /tmp/stats) $(kv ring_unaccounted /tmp/stats)" "0 0" \
	"0 records lost, ring accounting balances"

# Pages, pfn by pfn, over every pool of the run.
pp_oracle_pages /tmp/pptrace
diag "the kernel: $(wc -l < /tmp/k_hold) holds, $(wc -l < /tmp/k_rel) releases; $(pp_summary /tmp/pptrace | wc -l) pools"
pp_summary /tmp/pptrace | sed 's/^/# /'
cmp -s /tmp/k_hold /tmp/p_hold
ok $? "fresh admissions == the kernel's page_pool_state_hold, pfn by pfn ($(wc -l < /tmp/p_hold))"
cmp -s /tmp/k_rel /tmp/p_rel
ok $? "releases == the kernel's page_pool_state_release, pfn by pfn ($(wc -l < /tmp/p_rel))"

# Pools: each destroy and retry, as the kernel counts it.
pp_oracle_pools /tmp/pptrace
cmp_ok "$(pp_pools_ended)" -ge 1 "the kernel ended pools $(pp_pools_ended) times"
is "$(cat /tmp/p_pools)" "$(cat /tmp/k_pools)" \
	"each destroy's hold, release and in flight == page_pool_release's"

# Takes: each of a page its pool held, with the pool's one reference.
cmp_ok "$(ev role_take)" -gt 0 "takes ($(ev role_take)), fragments' pages among them"
is "$(ev role_take)" "$(ev role_assign_pool)" "every take assigned to its pool"
is "$(awk '$7 == "role=take" && ($19 != "ref=1" || $11 !~ /^from=pooled/)' /tmp/ev.txt | wc -l)" 0 \
	"every take: refcount 1, from the pool"
# Context: the drivers take in NAPI (softirq); whatever ran outside a task
# has no task to name.
cmp_ok "$(awk '$7 == "role=take" && $NF == "ctx=softirq"' /tmp/ev.txt | wc -l)" -gt 0 \
	"takes in NAPI, ctx=softirq ($(awk '$7 == "role=take" && $NF == "ctx=softirq"' /tmp/ev.txt | wc -l))"
is "$(awk '($NF == "ctx=softirq" || $NF == "ctx=irq") && ($4 != "pid=0" || $6 != "comm=<irq>")' /tmp/ev.txt | wc -l)" 0 \
	"every softirq or irq record: pid 0, comm <irq>"
is "$(awk '$7 == "role=take" && $NF == "ctx=softirq" { n[$3]++ } END { print (n["cpu=0"] > 0) (n["cpu=1"] > 0) }' /tmp/ev.txt)" 11 \
	"NAPI takes on both CPUs, one per NUMA node"
if pp_has_system_pool; then
	cmp_ok "$(kv pp_pools_unknown /tmp/stats)" -ge 1 "the system pool, made at boot, known from its first page"
else
	skip 1 "no system pool before 6.10"
fi
rmmod pagetrail
ok $? "pagetrail unloads"
done_testing
