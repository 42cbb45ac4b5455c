# SPDX-License-Identifier: GPL-2.0
# The page_pool drivers on the real kernel, without pagetrail: test_run's
# live frames make and destroy a pool per syscall (all kernels); a holder
# keeps pages in flight across the destroy and the deferred release frees
# the pool once it lets go; veth's native XDP makes one pool per rx queue
# and destroys it on detach (6.6+); generic XDP takes the per-CPU system
# pool only for a frags-aware program (6.10+); ppmis commits each of its
# mistakes and repairs them, the kernel's own reports coming only where
# expected; virtio-net (with pt.nics=1) fills its rings from pools that
# rmmod destroys (7.x). The oracle is the kernel's own page_pool
# tracepoints: each pool's hold/release counters against its state_hold and
# state_release events. The numbers measured are printed as diagnostics.
. /pt/lib/tap.sh
. /pt/lib/pp.sh
plan 94

# sfield KEY LINE: one key=value of a summary line
sfield() { echo "$2" | field "$1"; }

# check_one_pool WHAT SUMMARYFILE: exactly one pool, destroyed once with
# nothing in flight, its counters equal to its events (6 assertions).
check_one_pool() {
	local l
	is "$(wc -l < "$2")" 1 "$1: one pool"
	l=$(head -n1 "$2")
	is "$(sfield inflight "$l")" 0 "$1: destroyed with inflight 0"
	is "$(sfield destroys "$l")" 1 "$1: freed at the first release attempt"
	cmp_ok "$(sfield holds "$l")" -gt 0 "$1: pages entered the pool (state_hold)"
	is "$(sfield hold "$l")" "$(sfield holds "$l")" "$1: the pool's hold counter equals its state_hold events"
	is "$(sfield release "$l")" "$(sfield releases "$l")" "$1: its release counter equals its state_release events"
	diag "$1: $l"
}

# pool_released POOL SUMMARYFILE: POOL was destroyed and ended with
# nothing in flight and balanced books (1 assertion).
pool_released() {
	local l
	l=$(pp_pool "$1" "$2")
	[ "$(sfield inflight "$l")" = 0 ] && [ "$(sfield hold "$l")" = "$(sfield release "$l")" ]
}

[ -d $TR/events/page_pool/page_pool_release ] || bail "no page_pool tracepoints in tracefs"
ip link set lo up
ok $? "loopback up"
pp_trace_start
ok $? "page_pool tracepoints on: $PP_EVENTS"

# --- test_run live frames: one pool per syscall ------------------------
for run in "drop 10000 64" "pass 2000 64" "tx 1000 64"; do
	set -- $run
	pp_trace_clear
	pp_testrun "$1" "$2" "$3"
	ok $? "testrun $1: $2 frames in batches of $3"
	pp_trace_save /tmp/tr.$1
	pp_summary /tmp/tr.$1 > /tmp/s.$1
	check_one_pool "testrun $1 $2/$3" /tmp/s.$1
done

# --- a holder keeps pages in flight across the destroy -----------------
pp_trace_clear
pp_holder_run 200
pp_trace_save /tmp/tr.hold1
P=$(pp_last_destroyed /tmp/tr.hold1 | cut -d' ' -f1)
first=$(grep " page_pool_release: page_pool=$P " /tmp/tr.hold1 | head -n1 | field inflight)
diag "destroy with the holder: $(pp_last_destroyed /tmp/tr.hold1)"
if pp_pass_recycles; then
	cmp_ok "${first:-0}" -ge 200 "test_run's destroy finds the held pages in flight"
	sleep 2.5
	pp_trace_save /tmp/tr.hold2
	pp_summary /tmp/tr.hold2 > /tmp/s.hold2
	L=$(pp_pool "$P" /tmp/s.hold2)
	cmp_ok "$(sfield destroys "$L")" -ge 2 "the deferred release retried (once a second) while they were held"
	cmp_ok "$(sfield inflight "$L")" -gt 0 "and did not free the pool"
else
	is "${first:-x}" 0 "6.1: the skbs took their pages out of the pool, destroy finds none in flight"
	L=$(pp_last_destroyed /tmp/tr.hold1)
	is "$(sfield release "$L")" "$(sfield hold "$L")" "6.1: every page was released at skb build"
	skip 1 "6.1 keeps no skb page in the pool: no deferred release"
fi
kill $HP
wait $HP
ok $? "holder exits 0 on SIGTERM ($(tail -n1 /tmp/hold.out))"
pp_wait_released "$P" 5
ok $? "once the holder let go, a retry found inflight 0 and freed the pool"
pp_trace_save /tmp/tr.hold3
pp_summary /tmp/tr.hold3 > /tmp/s.hold3
L=$(pp_pool "$P" /tmp/s.hold3)
is "$(sfield hold "$L")" "$(sfield holds "$L")" "held pool: hold counter equals its state_hold events"
is "$(sfield release "$L")" "$(sfield releases "$L")" "held pool: release counter equals its state_release events"
diag "held pool at the end: $L"

# --- veth, native XDP: one pool per rx queue ---------------------------
pp_modload veth
ok $? "veth.ko loads"
pp_veth va vb
ok $? "veth pair va/vb, one queue each, up"
pp_trace_clear
ppdrive xdp vb native --verdict drop >&2
ok $? "native XDP drop attached to vb"
ppdrive send va 500 60 --cpu 0 >&2
ok $? "500 frames of 60 bytes sent into va (CPU 0)"
pp_trace_save /tmp/tr.veth1
pp_summary /tmp/tr.veth1 > /tmp/s.veth1
if pp_veth_has_pool; then
	is "$(wc -l < /tmp/s.veth1)" 1 "veth: the frames went through one pool (vb's one rx queue)"
	VP=$(cut -d' ' -f1 /tmp/s.veth1 | head -n1)
	cmp_ok "$(sfield holds "$(cat /tmp/s.veth1)")" -gt 0 "veth: pages entered it (skb_pp_cow_data)"
	is "$(sfield destroys "$(cat /tmp/s.veth1)")" 0 "veth: not destroyed while XDP is attached"
else
	is "$(wc -l < /tmp/s.veth1)" 0 "veth before 6.6: native XDP copies into plain pages, no pool"
	skip 2 "veth has no page_pool before 6.6"
fi
ppdrive xdp vb off >&2
ok $? "XDP detached from vb"
pp_trace_save /tmp/tr.veth2
pp_summary /tmp/tr.veth2 > /tmp/s.veth2
if pp_veth_has_pool; then
	pool_released "$VP" /tmp/s.veth2
	ok $? "veth: detach destroyed the pool with nothing in flight"
	L=$(pp_pool "$VP" /tmp/s.veth2)
	is "$(sfield hold "$L")" "$(sfield holds "$L")" "veth pool: hold counter equals its state_hold events"
	is "$(sfield release "$L")" "$(sfield releases "$L")" "veth pool: release counter equals its state_release events"
	diag "veth native XDP, 500 frames: $L"
else
	skip 3 "veth has no page_pool before 6.6"
fi
pp_veth vc vd --queues 2
ok $? "veth pair vc/vd with two queues each"
pp_trace_clear
ppdrive xdp vd native --verdict drop >&2 && ppdrive xdp vd off >&2
ok $? "native XDP attached to vd and detached"
pp_trace_save /tmp/tr.veth3
if pp_veth_has_pool; then
	is "$(grep -c ' page_pool_release: ' /tmp/tr.veth3)" 2 "veth: two rx queues, two pools destroyed at detach"
else
	is "$(grep -c ' page_pool_release: ' /tmp/tr.veth3)" 0 "veth before 6.6: no pool to destroy"
fi

# --- generic XDP: the per-CPU system pool, only for frags-aware programs
pp_trace_clear
ppdrive xdp vb generic --verdict drop >&2 && ppdrive send va 200 60 --cpu 0 >&2 &&
	ppdrive xdp vb off >&2
ok $? "generic XDP drop (no frags): attached, 200 frames, detached"
pp_trace_save /tmp/tr.gen1
is "$(grep -c ' page_pool_state_hold: ' /tmp/tr.gen1)" 0 "a program without BPF_F_XDP_HAS_FRAGS takes no pool page"
pp_trace_clear
ppdrive xdp vb generic --verdict drop --frags >&2 && ppdrive send va 200 60 --cpu 0 >&2 &&
	ppdrive xdp vb off >&2
ok $? "generic XDP drop --frags: attached, 200 frames, detached"
pp_trace_save /tmp/tr.gen2
pp_summary /tmp/tr.gen2 > /tmp/s.gen2
if pp_has_system_pool; then
	# the system pool may have taken its pages before tracing began
	is "$(grep -c ' page_pool_release: ' /tmp/tr.gen2)" 0 "the system pool is never destroyed"
	diag "generic XDP --frags, 200 frames: $(cat /tmp/s.gen2)"
else
	is "$(wc -l < /tmp/s.gen2)" 0 "before 6.10 generic XDP has no system pool"
fi

# --- ppmis: each mistake, then its repair ------------------------------
PM=/sys/kernel/debug/ppmis
insmod /pt/modules/ppmis.ko
ok $? "ppmis loads"
# mode MODE: run it from this shell (the culprit: pid $$), keep its report
mode() {
	pp_trace_clear
	echo "run $1" > $PM/control
	ok $? "ppmis $1 ran"
	cat $PM/report > /tmp/pm.$1
	sed 's/^/# ppmis: /' /tmp/pm.$1
}
# repair MODE: repair, then every pool of the report is freed with
# balanced books (2 assertions)
repair() {
	local p bad=0
	echo repair > $PM/control
	ok $? "ppmis $1 repaired"
	for p in $(sed -n 's/^pool id=[0-9]* ptr=\([^ ]*\).*/\1/p' /tmp/pm.$1); do
		pp_wait_released "$p" 5 || bad=1
	done
	pp_trace_save /tmp/tr.pm.$1
	pp_summary /tmp/tr.pm.$1 > /tmp/s.pm.$1
	for p in $(sed -n 's/^pool id=[0-9]* ptr=\([^ ]*\).*/\1/p' /tmp/pm.$1); do
		pool_released "$p" /tmp/s.pm.$1 || bad=1
		diag "$1: $(pp_pool "$p" /tmp/s.pm.$1)"
	done
	ok $bad "ppmis $1: its pools were freed, inflight 0, hold = release"
}
pfn_of() { sed -n 's/^misused pfn=\(0x[0-9a-f]*\).*/\1/p' /tmp/pm.$1 | head -n1; }
# held_by POOL PFN TRACEFILE: the kernel's state_hold named that pfn in POOL
held_by() { grep " page_pool_state_hold: page_pool=$1 .*pfn=$2 " "$3" > /dev/null; }
pool_ptr() { sed -n "s/^pool id=$2 ptr=\\([^ ]*\\).*/\\1/p" /tmp/pm.$1; }

mode clean
is "$(grep -c '^pool ' /tmp/pm.clean)" 3 "clean: three pools"
like "$(head -n1 /tmp/pm.clean)" "pid=$$ comm=sh result=0" "clean: the report names this shell (pid $$)"
pp_trace_save /tmp/tr.pm.clean
pp_summary /tmp/tr.pm.clean > /tmp/s.pm.clean
bad=0
for i in 0 1 2; do pool_released "$(pool_ptr clean $i)" /tmp/s.pm.clean || bad=1; done
ok $bad "clean: all three pools freed at destroy with balanced books"
sed 's/^/# clean: /' /tmp/s.pm.clean

mode double_recycle
PFN=$(pfn_of double_recycle)
pp_trace_save /tmp/tr.pm.dr
held_by "$(pool_ptr double_recycle 0)" "$PFN" /tmp/tr.pm.dr
ok $? "double_recycle: the misused pfn $PFN came into pool 0 (state_hold)"
repair double_recycle

expect_report 'BUG: Bad page state|page dumped because: page_pool leak'
mode put_page_inflight
expect_end
PFN=$(pfn_of put_page_inflight)
if grep -q 'kernel_report=bad_page' /tmp/pm.put_page_inflight; then
	dmesg | grep -q "Bad page state .*pfn:0*${PFN#0x}\$"
	ok $? "put_page_inflight: the kernel reports the bad page at pfn $PFN"
	dmesg | grep -q 'page dumped because: page_pool leak'
	ok $? "put_page_inflight: reason 'page_pool leak'"
else
	dmesg | grep -q 'Bad page state'
	ok $((!$?)) "put_page_inflight: this kernel frees a page_pool page without a word"
	skip 1 "no page_pool leak check in this kernel's buddy allocator"
fi
repair put_page_inflight

mode get_then_take
like "$(grep '^misused' /tmp/pm.get_then_take)" "pfn=0x" "get_then_take: the report names the pfn"
repair get_then_take

mode wrong_pool
like "$(grep '^misused' /tmp/pm.wrong_pool)" "pool=0 into=1" "wrong_pool: pool 0's page recycled into pool 1"
repair wrong_pool
L=$(pp_pool "$(pool_ptr wrong_pool 1)" /tmp/s.pm.wrong_pool)
is "$(sfield hold "$L") $(sfield release "$L")" "0 0" "wrong_pool: pool 1 never held a page of its own"

expect_report 'WARNING: .*page_pool'
mode frag_over_release
expect_end
dmesg | grep -q 'WARNING: .*page_pool'
ok $? "frag_over_release: the kernel warns when the pool drains the over-released fragment page"
repair frag_over_release

mode direct_after_destroy
pp_trace_save /tmp/tr.pm.dad
P=$(pool_ptr direct_after_destroy 0)
first=$(grep " page_pool_release: page_pool=$P " /tmp/tr.pm.dad | head -n1 | field inflight)
is "$first" 1 "direct_after_destroy: destroy found the page in flight"
repair direct_after_destroy
rmmod ppmis
ok $? "ppmis unloads"
pp_trace_clear
pp_testrun drop 1000 64
ok $? "the guest still runs test_run after every mode"
dmesg | grep -E 'WARNING|BUG:|Bad page' | grep -v -e 'page_pool' -e 'Bad page state' | grep -q .
ok $((!$?)) "no kernel report but the expected ones"

# --- virtio-net on QEMU's NIC pair (pt.nics=1) -------------------------
if grep -qw 'pt.nics=1' /proc/cmdline && pp_kernel_ge 7 0; then
	pp_modload virtio_net
	ok $? "virtio_net.ko loads (with failover, net_failover)"
	NICS=$(pp_virtio_nics | tr '\n' ' ')
	set -- $NICS
	is "$#" 2 "two virtio-net NICs:$NICS"
	pp_trace_clear
	ip link set "$1" up && ip link set "$2" up
	ok $? "both up (rx rings filled from the pools)"
	sleep 1
	ppdrive send "$1" 300 60 >&2
	ok $? "300 frames sent on $1, received on $2 through the hub"
	ppdrive pools > /tmp/pools.out
	ok $? "genetlink page-pool dump"
	sed 's/^/# /' /tmp/pools.out
	cmp_ok "$(grep -c '^pool .*ifindex=' /tmp/pools.out)" -ge 2 "the dump lists the NICs' pools with their ifindex"
	pp_trace_save /tmp/tr.vn1
	pp_summary /tmp/tr.vn1 > /tmp/s.vn1
	cmp_ok "$(awk '{ split($2, h, "="); if (h[2] > 0) n++ } END { print n + 0 }' /tmp/s.vn1)" -ge 2 \
		"pages entered at least one pool per NIC"
	rmmod virtio_net
	ok $? "virtio_net unloads"
	bad=0
	for p in $(cut -d' ' -f1 /tmp/s.vn1); do pp_wait_released "$p" 5 || bad=1; done
	ok $bad "rmmod destroyed every virtio-net pool, and each was freed"
	pp_trace_save /tmp/tr.vn2
	pp_summary /tmp/tr.vn2 > /tmp/s.vn2
	sed 's/^/# virtio-net: /' /tmp/s.vn2
else
	skip 9 "no virtio-net pair (pt.nics=1) or a kernel whose virtio_net has no page_pool"
fi
pp_trace_stop
done_testing
