# SPDX-License-Identifier: GPL-2.0
# Helpers for the page_pool scenarios (busybox sh): the kernel's own
# modules, a veth pair, XDP, test_run (all through ppdrive), and the
# kernel's page_pool tracepoints read from tracefs as the oracle.

TR=/sys/kernel/tracing
PPK=/pt/modules/kernel
PP_EVENTS="page_pool_state_hold page_pool_state_release page_pool_release"

# pp_kernel_ge MAJOR MINOR: the running kernel is MAJOR.MINOR or newer.
pp_kernel_ge() {
	local v maj min
	v=$(uname -r)
	maj=${v%%.*}
	min=${v#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

# veth got its page_pool in 6.6 (6.1 copies into plain pages), and the
# system page pool for generic XDP in 6.10.
pp_veth_has_pool() { pp_kernel_ge 6 6; }
pp_has_system_pool() { pp_kernel_ge 6 10; }
# test_run's XDP_PASS skbs keep their pages in the pool (recycled when the
# skb is freed) since 6.4; 6.1 releases each page from the pool as it
# builds the skb (measured: 2000 frames, hold=release=2048).
pp_pass_recycles() { pp_kernel_ge 6 4; }

# pp_modload NAME: insmod the kernel's NAME.ko and what it needs, in the
# order build-modules wrote (NAME.deps); 3 when the initramfs has no NAME.
pp_modload() {
	local m
	[ -f "$PPK/$1.deps" ] || { note "no $1.ko in the initramfs"; return 3; }
	for m in $(cat "$PPK/$1.deps"); do
		[ -d "/sys/module/$m" ] && continue
		insmod "$PPK/$m.ko" || return 1
	done
}

# pp_veth NAME PEER [--queues Q]: a veth pair (one queue per side unless
# told), both ends up.
pp_veth() {
	ppdrive veth "$@" >&2 && ip link set "$1" up && ip link set "$2" up
}

# pp_trace_start: the three page_pool tracepoints on, buffer emptied,
# pool pointers raw (hash-ptr off): hashed ones are all "(____ptrval____)"
# until the guest's crng is ready, which under TCG takes minutes.
pp_trace_start() {
	local e
	echo 0 > $TR/tracing_on
	echo 0 > $TR/options/hash-ptr
	echo 4096 > $TR/buffer_size_kb
	for e in $PP_EVENTS; do
		echo 1 > $TR/events/page_pool/$e/enable || return 1
	done
	echo > $TR/trace
	echo 1 > $TR/tracing_on
}

# pp_trace_clear: empty the buffer, tracing stays on.
pp_trace_clear() { echo > $TR/trace; }

pp_trace_stop() {
	local e
	echo 0 > $TR/tracing_on
	for e in $PP_EVENTS; do echo 0 > $TR/events/page_pool/$e/enable; done
}

# pp_trace_save FILE: what the buffer holds now (tracing goes on).
pp_trace_save() { grep 'page_pool' $TR/trace > "$1"; }

# pp_summary TRACEFILE: one line per pool, in the order the trace first
# names it: "POOL holds=N releases=N destroys=N inflight=I hold=H
# release=R": the count of state_hold and state_release events, of
# page_pool_release events (destroy and each deferred retry), and the
# values of its last page_pool_release ("-" when it has none: a pool that
# was not destroyed).
pp_summary() {
	awk '
	function val(k,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1) { v = substr($i, length(k) + 2); sub(/,$/, "", v); return v }
		return ""
	}
	function seen(p) { if (!(p in known)) { known[p] = 1; order[++n] = p } }
	/ page_pool_state_hold: / { p = val("page_pool"); seen(p); h[p]++; next }
	/ page_pool_state_release: / { p = val("page_pool"); seen(p); r[p]++; next }
	/ page_pool_release: / {
		p = val("page_pool"); seen(p); d[p]++
		inf[p] = val("inflight"); hl[p] = val("hold"); rl[p] = val("release")
	}
	END {
		for (i = 1; i <= n; i++) {
			p = order[i]
			printf "%s holds=%d releases=%d destroys=%d inflight=%s hold=%s release=%s\n",
				p, h[p], r[p], d[p], (p in inf) ? inf[p] : "-",
				(p in hl) ? hl[p] : "-", (p in rl) ? rl[p] : "-"
		}
	}' "$1"
}

# pp_last_destroyed TRACEFILE: "POOL inflight=I hold=H release=R" of the
# last page_pool_release event (the last destroyed pool's last attempt).
pp_last_destroyed() {
	grep ' page_pool_release: ' "$1" | tail -n1 |
		sed 's/.*page_pool=\([^ ]*\) inflight=\([-0-9]*\) hold=\([0-9]*\) release=\([0-9]*\).*/\1 inflight=\2 hold=\3 release=\4/'
}

# pp_pool POOL SUMMARYFILE: that pool's summary line.
pp_pool() { grep "^$1 " "$2"; }

# pp_testrun VERDICT FRAMES BATCH [ppdrive testrun options]: one test_run
# in live-frames mode (one pool made and destroyed).
pp_testrun() {
	local v=$1 f=$2 b=$3
	shift 3
	ppdrive testrun --verdict "$v" --frames "$f" --batch "$b" "$@" >&2
}

# pp_wait_released POOL SECONDS: wait until POOL's page_pool_release says
# inflight=0 (the deferred retry runs once a second); 1 if it does not.
pp_wait_released() {
	local i=0
	while [ $i -lt $(($2 * 5)) ]; do
		grep " page_pool_release: page_pool=$1 inflight=0 " $TR/trace > /dev/null && return 0
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# pp_wait_for FILE REGEX SECONDS: wait until FILE has a line matching REGEX.
pp_wait_for() {
	local i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -Eq "$2" "$1" 2> /dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# pp_holder_run N (3 assertions; sets HP, the holder's pid): an AF_PACKET
# receiver on lo keeps the skbs of one test_run of N XDP_PASS frames.
# Up to three tries. On 6.12, in pp_faults, the socket now and then got
# only some of the frames (2 boots in about 30: 21 of 200, 0 of 200; the
# pool's destroy then found that many in flight, and pagetrail's report
# agreed), cause not found: a try that holds fewer says where the frames
# went (the holder's counts, the socket's queue, lo's and the backlog's
# drops), lets go, waits for its pool to be freed, clears the trace and
# pagetrail's records, and tries again.
pp_holder_run() {
	local try listening=1 ran=1
	# test_run delivers XDP_PASS frames on lo: it must be up
	ip link set lo up
	for try in 1 2 3; do
		ppdrive hold lo "$1" > /tmp/hold.out 2>&1 &
		HP=$!
		pp_wait_for /tmp/hold.out '^listening' 10
		listening=$?
		[ $listening = 0 ] || break
		pp_testrun pass "$1" "$1"
		ran=$?
		[ $ran = 0 ] || break
		pp_wait_for /tmp/hold.out '^holding' 10 && break
		sed 's/^/# packet: /' /proc/net/packet
		ip -s link show lo | sed 's/^/# lo: /'
		sed 's/^/# softnet_stat: /' /proc/net/softnet_stat
		[ $try = 3 ] && break
		kill $HP
		wait $HP
		diag "holder try $try of 3 held fewer than $1: $(tr '\n' ' ' < /tmp/hold.out)"
		pp_wait_released "$(pp_last_destroyed $TR/trace | cut -d' ' -f1)" 5
		pp_trace_clear
		[ -d "${PT:-/nonexistent}" ] && echo reset > $PT/control
	done
	ok $listening "holder listens on lo (try $try of 3)"
	ok $ran "testrun pass: $1 frames in one batch of $1"
	like "$(grep '^holding' /tmp/hold.out)" "^holding $1\$" "the holder keeps all $1 skbs queued"
}

# pp_virtio_nics: the names of the network devices virtio_net drives.
pp_virtio_nics() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = virtio_net ] &&
			echo "$(basename "$d")"
	done
}

# pp_oracle_pages TRACEFILE: the kernel's held and released pfns
# (/tmp/k_hold, /tmp/k_rel) and pagetrail's fresh admissions and releases
# in /tmp/ev.txt (/tmp/p_hold, /tmp/p_rel), sorted, one pfn a line.
pp_oracle_pages() {
	sed -n 's/.* page_pool_state_hold: .*pfn=\(0x[0-9a-f]*\).*/\1/p' "$1" | sort > /tmp/k_hold
	sed -n 's/.* page_pool_state_release: .*pfn=\(0x[0-9a-f]*\).*/\1/p' "$1" | sort > /tmp/k_rel
	awk '$7 == "role=admit" && $8 == "cause=fresh" { print substr($9, 5) }' /tmp/ev.txt | sort > /tmp/p_hold
	awk '$7 == "role=release" { print substr($9, 5) }' /tmp/ev.txt | sort > /tmp/p_rel
}

# pp_oracle_pools TRACEFILE: each attempt to end a pool, "hold release
# inflight;" in order, as page_pool_release says (/tmp/k_pools) and as
# pagetrail's POOL records say (/tmp/p_pools), one line each.
pp_oracle_pools() {
	sed -n 's/.* page_pool_release: .*inflight=\([-0-9]*\) hold=\([0-9]*\) release=\([0-9]*\).*/\2 \3 \1/p' \
		"$1" | awk '{ printf "%s %s 0x%x;", $1, $2, $3 }' > /tmp/k_pools
	awk '$7 == "role=pool" && ($8 == "cause=destroy" || $8 == "cause=retry") {
		printf "%s %s %s;", substr($18, 5), substr($25, 11), substr($26, 5) }' /tmp/ev.txt > /tmp/p_pools
}
pp_pools_ended() { tr ';' '\n' < /tmp/k_pools | grep -c .; }
