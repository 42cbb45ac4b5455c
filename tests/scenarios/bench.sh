# SPDX-License-Identifier: GPL-2.0
# make bench: pagetrail against what a user would run instead, in one boot.
#
#   none      nothing attached (anchor a)
#   ptf, ptk  pagetrail on fprobe, on kprobes (b): record first, the
#             probes only stage and a consumer interprets, woken here when
#             a CPU's staging is half full or by a reader: between the
#             timed runs (its cost: from stats)
#   pts, ptsk the same with record_first=0: interpretation on the probe
#             path, as before record first (issue 23)
#   tracefs   kprobe_events + kretprobe events on the functions pagetrail
#             probes, fetching comparable fields, and the kmem page
#             tracepoints it hooks, into the trace buffer (c)
#   bpftrace  the same probes printing the same fields (d)
#   detached  pagetrail loaded, then "detach" (e): must equal none
#   floor     ptf's probes planted and counted, no handler run
#             (probe_only=1, f): the probe machinery's own cost, the part
#             of ptf that pagetrail's code cannot lower
#   base      ptf as the previous commit built it (g; scripts/bench --base)
#
# Workloads: cuinit (CUDA init, 3 generations), faults (64 MiB of page
# faults), and ptbench (tests/benchmod): out-of-line functions shaped like
# the hot probe points, called a fixed number of times, ns per call.
# Every round runs each configuration once (bpftrace: the first and the
# last), the order rotated from round to round; each slot sets its
# configuration up, discards one warm-up run of each workload, measures,
# and tears it down. Every recorder gets 4 MiB per CPU. Then, once: the flight
# recorder at its default size (how many records until the first loss and
# at what rate, with and without a reader) and kernel memory per tracked
# chunk. Prints "# bench ..." lines that scripts/bench pools into its table;
# asserts only that every run completed.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 8

PB=/sys/kernel/debug/ptbench
TR=/sys/kernel/tracing
OUT=/tmp/bench.out
: > $OUT
arg() { # KEY DEFAULT: pt.KEY=N from the kernel command line
	local v
	v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^pt\.$1=\([0-9][0-9]*\)$/\1/p")
	echo "${v:-$2}"
}
rounds=$(arg bench_rounds 3)
runs=$(arg bench_runs 3)
calls=$(arg bench_calls 5000)
CFGS="none detached ptf ptk pts ptsk tracefs bpftrace floor base"
# record first: staging for one whole cuinit run per CPU, drained between runs
PT_RF=$PT_BENCH_RF
PT_SYNC="record_first=0"

emit() { echo "bench $*" >> $OUT; echo "# bench $*"; }
# stopwatch's line, tagged with the round
sw() { # ROUND STOPWATCH-ARGS...
	local r=$1
	shift
	stopwatch "$@" | while read -r l; do emit "${l#bench } round=$r"; done
}

insmod /pt/modules/nvsim.ko && insmod /pt/modules/ptbench.ko
ok $? "nvsim and ptbench loaded"
PTKO="/pt/modules/pagetrail.ko target=nvsim"
# pt.sh's table layout for the stock kernels and the pool array's address:
# pagetrail checks both against the live pools before it attaches. The
# loader (a dump of vmlinux's BTF, over a minute under TCG) only if refused.
pools=$(nvsim_pools_addr)
good="$PT_LAYOUT_595 nv_pools_addr=$pools"
if insmod $PTKO $good 2> /dev/null && grep -q '^state=attached' $PT/control; then
	rmmod pagetrail
else
	rmmod pagetrail 2> /dev/null
	good=$(pt_layout)
	diag "the table layout was refused; the loader's is used"
fi
# The layout as shell variables (L_nv_alloc_num_pages=32 ...) and ptbench's
# offsets (B_page_refcount=52 ...): the fetch arguments below use them.
for kv in $good; do eval "L_$kv"; done
for kv in $(cat $PB/info); do eval "B_$kv"; done
diag "layout: $good"
diag "ptbench: $(cat $PB/info)"

# --- the probe set, once for tracefs and bpftrace ------------------------
# What pagetrail's NVIDIA profile probes (module/nvidia/profile.c): name,
# function, return probe (- none, void, or the return type), then fields:
# NAME=N (argument N), NAME=N:TYPE, NAME=N+OFF:TYPE (a field at OFF of what
# argument N points to), NAME=N+OFF+OFF2:TYPE (through one more pointer).
# Plus ptbench's two functions, for the per-call cost.
R=$B_page_refcount M=$B_page_mapcount
NP=$L_nv_alloc_num_pages OR=$L_nv_alloc_order TB=$L_nv_alloc_page_table
PN=$L_nv_pool_node_id PO=$L_nv_pool_order
AT1="at=1 pages=1+$NP:u32 order=1+$OR:u32 pte0=1+$TB+0:x64"
AT2="at=2 pages=2+$NP:u32 order=2+$OR:u32 pte0=2+$TB+0:x64"
cat > /tmp/probes <<EOF
insert vm_insert_page s32 vma=1 addr=2 page=3 flags=3+0:x64 ref=3+$R:s32 map=3+$M:s32
up up - sem=1
set_page nvsim:nv_alloc_set_page void at=1 pages=1+$NP:u32 order=1+$OR:u32 idx=2:u32 virt=3
move nvsim:nv_mem_pool_move_pages u64 dst=1 src=2 max=3:u64
free_list nvsim:nv_mem_pool_free_page_list void list=1 order=2:u32
coherent nvsim:nv_alloc_coherent_pages u32 $AT2
take nvsim:nv_mem_pool_alloc_pages u32 pool=1 node=1+$PN:u32 porder=1+$PO:u32 $AT2
admit nvsim:nv_mem_pool_free_pages u32 pool=1 node=1+$PN:u32 porder=1+$PO:u32 $AT2
worker nvsim:nv_mem_pool_worker void arg=1
count nvsim:nv_mem_pool_shrinker_count u64 shrinker=1 nid=2+4:s32 nr=2+8:u64
scan nvsim:nv_mem_pool_shrinker_scan u64 shrinker=1 nid=2+4:s32 nr=2+8:u64
destroy nvsim:nv_mem_pool_destroy void pool=1 node=1+$PN:u32 porder=1+$PO:u32
mmap_helper nvsim:nvidia_mmap_helper s32 nvlfp=2 vma=4 start=4+0:x64 end=4+8:x64
vma_open nvsim:nvidia_vma_open - vma=1 start=1+0:x64 end=1+8:x64
vma_release nvsim:nvidia_vma_release - vma=1 start=1+0:x64 end=1+8:x64
alloc nvsim:nv_alloc_system_pages u32 $AT2
release nvsim:nv_free_system_pages void $AT1
mmap nvsim:nvidia_mmap s32 file=1 vma=2 start=2+0:x64 end=2+8:x64
contig nvsim:nv_alloc_contig_pages u32 $AT2
free_contig nvsim:nv_free_contig_pages void $AT1
bm_insert ptbench:ptbench_insert s32 vma=1 addr=2 page=3 flags=3+0:x64 ref=3+$R:s32 map=3+$M:s32
bm_take ptbench:ptbench_take u32 pool=1 node=1+$B_pool_node_id:u32 porder=1+$B_pool_order:u32 at=2 pages=2+$B_alloc_num_pages:u32 order=2+$B_alloc_order:u32
EOF

# tracefs: "p:ptb/NAME FUNC field=+OFF($argN):TYPE ..." and "r:ptb/NAME_ret
# FUNC ret=$retval:TYPE", then the kmem events.
awk '{
	f = "p:ptb/" $1 " " $2
	for (i = 4; i <= NF; i++) {
		split($i, kv, "="); split(kv[2], ty, ":"); n = split(ty[1], p, "+")
		e = "$arg" p[1]
		for (j = 2; j <= n; j++) e = "+" p[j] "(" e ")"
		f = f " " kv[1] "=" e ":" (ty[2] ? ty[2] : "x64")
	}
	print f
	if ($3 == "void") print "r:ptb/" $1 "_ret " $2
	else if ($3 != "-") print "r:ptb/" $1 "_ret " $2 " ret=$retval:" $3
}' /tmp/probes > /tmp/tfs.defs
# Every recorder gets the flight recorder's default size, 4 MiB per CPU:
# the trace buffer (Debian's default is 1.4 MiB) and bpftrace's perf
# buffers (BPFTRACE_PERF_RB_PAGES, default 64 pages).
diag "tracefs buffer_size_kb default $(cat $TR/buffer_size_kb), set to 4096"
echo 4096 > $TR/buffer_size_kb
export BPFTRACE_PERF_RB_PAGES=1024
cat > /tmp/tfs_on.sh <<EOF
exec 2> /tmp/tfs.err
cd $TR || exit 1
while read -r l; do echo "\$l" >> kprobe_events || { echo "tracefs refused: \$l" >&2; exit 1; }; done < /tmp/tfs.defs
echo > trace
echo 1 > events/ptb/enable && echo 1 > events/kmem/mm_page_alloc/enable &&
	echo 1 > events/kmem/mm_page_free/enable
EOF
cat > /tmp/tfs_off.sh <<EOF
cd $TR || exit 1
echo 0 > events/ptb/enable; echo 0 > events/kmem/mm_page_alloc/enable
echo 0 > events/kmem/mm_page_free/enable
sed 's/^[pr]:\([^ ]*\) .*/-:\1/' /tmp/tfs.defs | while read -r l; do echo "\$l" >> kprobe_events; done
echo > trace
EOF

# bpftrace: the same probes and fields, printed with time and thread (what
# the trace buffer stamps on every event). Debian 12's bpftrace 0.17 has no
# module-qualified kprobes; the names are unique, so plain names do.
awk '{
	fn = $2; sub(/^[a-z]*:/, "", fn)
	fmt = "%llu %d " $1; args = "nsecs, tid"
	for (i = 4; i <= NF; i++) {
		split($i, kv, "="); split(kv[2], ty, ":"); n = split(ty[1], p, "+")
		t = ty[2] ? ty[2] : "x64"
		e = "arg" (p[1] - 1)
		for (j = 2; j <= n; j++) e = "*(" (j < n ? "uint64" : (t == "u32" ? "uint32" : t == "s32" ? "int32" : "uint64")) " *)(" e " + " p[j] ")"
		fmt = fmt " " kv[1] "=" (t == "u32" ? "%u" : t == "s32" ? "%d" : t == "u64" ? "%llu" : "%llx")
		args = args ", " e
	}
	printf "kprobe:%s { printf(\"%s\\n\", %s); }\n", fn, fmt, args
	if ($3 == "void") printf "kretprobe:%s { printf(\"%%llu %%d %s_ret\\n\", nsecs, tid); }\n", fn, $1
	else if ($3 != "-") printf "kretprobe:%s { printf(\"%%llu %%d %s_ret ret=%s\\n\", nsecs, tid, %s); }\n", fn, $1, ($3 == "s32" ? "%d" : "%llu"), ($3 == "s32" ? "(int32)retval" : "retval")
}' /tmp/probes > /tmp/pt.bt
cat >> /tmp/pt.bt <<'EOF'
tracepoint:kmem:mm_page_alloc { printf("%llu %d mm_page_alloc pfn=%llu order=%u gfp=%llx\n", nsecs, tid, args->pfn, args->order, args->gfp_flags); }
tracepoint:kmem:mm_page_free { printf("%llu %d mm_page_free pfn=%llu order=%u\n", nsecs, tid, args->pfn, args->order); }
EOF

# --- configurations: up, down, and how many probe hits so far ------------
skip_reason() { cat /tmp/skip.$1 2>/dev/null; }
skip() { echo "$2" > /tmp/skip.$1; }

# pagetrail's probe hits: entries and returns of every probe, tracepoint hits.
pt_events() {
	[ -r $PT/coverage ] || { echo 0; return; }
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
		if (kv[1] == "hits" || ($1 ~ /^probe=/ && kv[1] == "returns")) s += kv[2] } }
		END { print s + 0 }' $PT/coverage
}
pt_up() { # CFG ROUND BACKEND [PARAMS] [KO]
	sw "$2" 1 "$1/load" -- \
		insmod ${5:-/pt/modules/pagetrail.ko} target=nvsim backend=$3 $4 $good
	if ! grep -q '^state=attached' $PT/control 2>/dev/null; then
		skip "$1" "pagetrail-backend=$3-did-not-attach($(dmesg | grep pagetrail | tail -n1 | tr ' =' '__'))"
		rmmod pagetrail 2>/dev/null
		return 1
	fi
}
pt_down() { # CFG ROUND
	awk -v c="$1" -v r="$2" -F= '
		/^ring_produced=/ { p = $2 } /^ring_lost=/ { l = $2 } /^tracked=/ { t = $2 }
		/^capacity=/ { cap = $2 } /^anomalies=/ { a = $2 } /^gaps=/ { g = $2 }
		/^stage_consumed=/ { sc = $2 } /^stage_consumer_ns=/ { sn = $2 } /^stage_lost=/ { sl = $2 }
		/^stage_consumer_runs=/ { sr = $2 } /^stage_lag_max_ns=/ { lag = $2 }
		/^stage_shared_writes=/ { sw = $2 } /^stage_observed=/ { so = $2 }
		/^stage_slots=/ { ss = $2 } /^stage_slot_bytes=/ { sb = $2 }
		END { printf "name=%s/stats round=%s produced=%s lost=%s tracked=%s capacity=%s anomalies=%s gaps=%s", c, r, p, l, t, cap, a, g
			if (sc != "") printf " stage_consumed=%s stage_consumer_ns=%s stage_lost=%s stage_runs=%s stage_lag_max_ns=%s stage_shared_writes=%s", sc, sn, sl, sr, lag, sw
			if (ss != "") printf " stage_observed=%s stage_slots=%s stage_slot_bytes=%s", so, ss, sb }' \
		$PT/stats > /tmp/st
	echo " hits=$(pt_events)" >> /tmp/st
	emit "$(tr -d '\n' < /tmp/st) missed=$(sed -n 's/.* missed=\([0-9]*\).*/\1/p' $PT/coverage | awk '{ s += $1 } END { print s + 0 }')"
	sw "$2" 1 "$1/unload" -- rmmod pagetrail
}
up_none() { :; }
down_none() { :; }
events_none() { echo 0; }
# A detach and an attach, timed: the cost of coming and going.
pt_cycle() { # CFG ROUND
	sw "$2" 1 "$1/detach_attach" -- sh -c \
		"echo detach > $PT/control && echo attach > $PT/control && grep -q '^state=attached' $PT/control"
}
up_ptf() { pt_up ptf "$1" 2 "$PT_RF" && pt_cycle ptf "$1"; }
up_ptk() { pt_up ptk "$1" 1 "$PT_RF" && pt_cycle ptk "$1"; }
up_pts() { pt_up pts "$1" 2 "$PT_SYNC" && pt_cycle pts "$1"; }
up_ptsk() { pt_up ptsk "$1" 1 "$PT_SYNC" && pt_cycle ptsk "$1"; }
# (f): ptf's probes planted and counted, no handler run: the machinery alone.
up_floor() { pt_up floor "$1" 2 "$PT_RF probe_only=1"; }
# (g): ptf as the previous commit built it (scripts/bench --base).
BASEKO=/pt/modules/base/pagetrail.ko
[ -f $BASEKO ] || skip base "no-base-build(scripts/bench_--base_none)"
BASEREV=/pt/modules/base/rev # "<commit> <subject>"
[ -f $BASEKO ] && emit "name=base/rev rev=$(cut -d' ' -f1 $BASEREV)" \
	"subject=$(cut -d' ' -f2- $BASEREV | tr ' =' '__')"
up_base() { pt_up base "$1" 2 "$PT_RF" $BASEKO; }
for c in ptf ptk pts ptsk floor base; do
	eval "down_$c() { pt_down $c \"\$1\"; }; events_$c() { pt_events; }"
done
up_detached() {
	pt_up detached "$1" 0 || return 1
	sw "$1" 1 detached/detach -- sh -c "echo detach > $PT/control"
	grep -q '^state=detached' $PT/control || { skip detached "detach-failed"; rmmod pagetrail; return 1; }
}
down_detached() { pt_down detached "$1"; }
events_detached() { pt_events; }
up_tracefs() {
	sw "$1" 1 tracefs/load -- sh /tmp/tfs_on.sh
	[ "$(cat $TR/events/ptb/enable 2>/dev/null)" = 1 ] || {
		skip tracefs "kprobe_events-refused($(tail -n1 /tmp/tfs.err 2>/dev/null | tr ' ' '_'))"
		sh /tmp/tfs_off.sh 2>/dev/null; return 1; }
}
down_tracefs() {
	emit "name=tracefs/stats round=$1 $(cat $TR/per_cpu/cpu*/stats | awk '
		/^entries:/ { e += $2 } /^overrun:/ { o += $2 } /^dropped events:/ { d += $3 }
		END { printf "buffered=%d overrun=%d dropped=%d", e, o, d }') buffer_kb=$(cat $TR/buffer_size_kb)"
	sw "$1" 1 tracefs/unload -- sh /tmp/tfs_off.sh
}
# entries-written in the trace header counts every event, overwritten or not.
events_tracefs() {
	head -n 4 $TR/trace | sed -n 's|.*entries-written: *[0-9]*/\([0-9]*\).*|\1|p'
}
bt_kprobes=$(grep -c '^kprobe:\|^kretprobe:' /tmp/pt.bt)
up_bpftrace() {
	local kp_base
	kp_base=$(wc -l < /sys/kernel/debug/kprobes/list)
	command -v bpftrace > /dev/null || {
		skip bpftrace "not-in-guest(no-/usr/bin/bpftrace-on-the-host:apt-get_install_bpftrace)"
		return 1; }
	: > /tmp/bt.out
	echo 0 > /tmp/bt.tot && echo 0 > /tmp/bt.lost
	# bpftrace says "Attaching N probes..." before it attaches them: ready
	# is when every kprobe of the script is in the kernel's list. Appending,
	# so the output can be emptied between workloads.
	sw "$1" 1 bpftrace/load -- sh -c "bpftrace /tmp/pt.bt >> /tmp/bt.out 2> /tmp/bt.err &
		echo \$! > /tmp/bt.pid
		t=0
		while [ \$(wc -l < /sys/kernel/debug/kprobes/list) -lt $((bt_kprobes + kp_base)) ]; do
			kill -0 \$(cat /tmp/bt.pid) 2>/dev/null || exit 1
			t=\$((t + 1)); [ \$t -lt 3000 ] || exit 1
			sleep 0.1
		done"
	[ "$(wc -l < /sys/kernel/debug/kprobes/list)" -ge $((bt_kprobes + kp_base)) ] || {
		skip bpftrace "did-not-attach($(grep -v '^$' /tmp/bt.err | tail -n1 | tr ' =' '__' | cut -c1-160))"
		kill "$(cat /tmp/bt.pid)" 2>/dev/null
		diag "bpftrace stderr: $(head -c 2000 /tmp/bt.err)"
		return 1; }
	diag "bpftrace: $(grep '^Attaching' /tmp/bt.out)"
}
down_bpftrace() {
	local pid t=0
	pid=$(cat /tmp/bt.pid)
	sw "$1" 1 bpftrace/unload -- sh -c "kill -INT $pid; while kill -0 $pid 2>/dev/null; do sleep 0.1; done"
	events_bpftrace > /dev/null
	emit "name=bpftrace/stats round=$1 printed=$(cat /tmp/bt.tot) lost=$(cat /tmp/bt.lost)"
}
# Lines printed so far (a second to drain bpftrace's buffers); the output
# is emptied each time, the totals kept.
events_bpftrace() {
	sleep 1
	echo $(($(cat /tmp/bt.tot) + $(grep -vc '^Lost ' /tmp/bt.out))) > /tmp/bt.tot
	echo $(($(cat /tmp/bt.lost) + $(sed -n 's/^Lost \([0-9]*\) events.*/\1/p' /tmp/bt.out |
		awk '{ s += $1 } END { print s + 0 }'))) > /tmp/bt.lost
	: > /tmp/bt.out
	cat /tmp/bt.tot
}

# --- one slot: a configuration's workloads -------------------------------
bm() { # CFG ROUND KIND: ptbench calls on CPU 0, one warm-up batch
	local i=0
	taskset -c 0 sh -c "echo $3 $calls > $PB/run"
	while [ $i -lt "$runs" ]; do
		taskset -c 0 sh -c "echo $3 $calls > $PB/run" &&
			emit "name=$1/bm_$3 round=$2 $(cut -d' ' -f2- $PB/run)"
		i=$((i + 1))
	done
}
slot() { # CFG ROUND
	local c=$1 r=$2 e0 e1 k t0 i n=$runs
	# (e) = (a) is decided on a 70-100 ms run with a wide spread under TCG:
	# those two, with nothing planted, are cheap, so they get 4x the runs.
	case $c in none | detached) n=$((runs * 4)) ;; esac
	# bpftrace compiles its script for 45 s under TCG and its slot takes
	# twice any other's: it runs in the first and the last round only.
	[ "$c" = bpftrace ] && [ "$r" -ne 1 ] && [ "$r" -ne "$rounds" ] && return
	t0=$(cut -d' ' -f1 /proc/uptime)
	if [ -s /tmp/skip.$c ] || ! "up_$c" "$r"; then
		emit "name=$c/cuinit round=$r skipped=$(skip_reason "$c")"
		return
	fi
	cuinit --gens 3 --drain > /dev/null
	"events_$c" > /dev/null
	e0=$("events_$c")
	case $c in
	ptf | ptk | floor | base)
		# One run at a time, the consumer draining between them
		# (reading stats), untimed: its cost is in the stats line.
		i=0
		while [ $i -lt "$n" ]; do
			sw "$r" 1 "$c/cuinit" -- cuinit --gens 3 --drain
			cat $PT/stats > /dev/null
			i=$((i + 1))
		done ;;
	*) sw "$r" "$n" "$c/cuinit" -- cuinit --gens 3 --drain ;;
	esac
	e1=$("events_$c")
	emit "name=$c/events round=$r runs=$n events=$((e1 - e0))"
	stopwatch 1 "$c/faults" faults > /dev/null
	sw "$r" "$runs" "$c/faults" faults
	for k in insert take up page; do bm "$c" "$r" $k; done
	"events_$c" > /dev/null
	"down_$c" "$r"
	emit "name=$c/slot round=$r secs=$(awk "BEGIN { print $(cut -d' ' -f1 /proc/uptime) - $t0 }")"
}

# The boot's first runs fault in programs and page caches, and the first
# seconds run slower (a round 1 baseline of one warm-up run: 120-134 ms a
# run for all of its 12 runs, 82-86 ms in later rounds): not a slot's.
stopwatch 24 warmup -- cuinit --gens 3 --drain > /dev/null &&
	stopwatch 1 warmup faults > /dev/null
for k in insert take up page; do echo "$k $calls" > $PB/run; done
r=1
while [ "$r" -le "$rounds" ]; do
	# Rotate: round r starts at configuration r, so each one runs early
	# and late, after each of the others.
	set -- $CFGS
	i=1
	while [ $i -lt "$r" ]; do set -- "$@" "$1"; shift; i=$((i + 1)); done
	note "bench round $r/$rounds: $*"
	for c in "$@"; do slot "$c" "$r"; done
	r=$((r + 1))
done
is "$(grep -c 'error=' $OUT)" 0 "no run failed"
cmp_ok "$(grep -c '^bench name=none/cuinit ' $OUT)" -eq "$rounds" "every round ran the baseline"
for c in ptf ptk pts ptsk tracefs bpftrace detached floor base; do
	[ -s /tmp/skip.$c ] && diag "$c skipped: $(skip_reason $c)"
done

# --- the flight recorder at its default size -----------------------------
# No reader: records until the first loss, and the rate they came at. A
# monitor samples the counters every 0.2 s while cuinit runs.
monitor() {
	while [ ! -e /tmp/mon.stop ]; do
		awk -v t="$(cut -d' ' -f1 /proc/uptime)" -F= '/^ring_produced=/ { p = $2 }
			/^ring_lost=/ { l = $2 } END { print t, p, l }' $PT/stats
		sleep 0.2
	done > /tmp/mon
}
ring_phase() { # NAME READER(0|1)
	local t0 t1 rd=
	echo reset > $PT/control
	if [ "$2" = 1 ]; then
		rm -f /tmp/rd.stop
		taskset -c 1 sh -c "while [ ! -e /tmp/rd.stop ]; do cat $PT/events.bin > /dev/null; sleep 0.05; done" &
		rd=$!
	fi
	rm -f /tmp/mon.stop
	monitor & mon=$!
	t0=$(cut -d' ' -f1 /proc/uptime)
	for i in 1 2 3; do cuinit --gens 3 --drain > /dev/null; done
	t1=$(cut -d' ' -f1 /proc/uptime)
	touch /tmp/mon.stop /tmp/rd.stop
	wait $mon
	[ -n "$rd" ] && wait $rd
	emit "name=ring/$1 $(awk -v t0="$t0" -v t1="$t1" -F= '
		/^ring_produced=/ { p = $2 } /^ring_lost=/ { l = $2 } /^ring_read=/ { rd = $2 }
		/^stage_observed=/ { so = $2 } /^stage_lost=/ { sl = $2 } /^stage_slots=/ { ss = $2 }
		/^stage_slot_bytes=/ { sb = $2 } /^stage_wide=/ { sw = $2 }
		END { printf "secs=%.2f produced=%d read=%d lost=%d", t1 - t0, p, rd, l
			if (ss != "") printf " stage_observed=%d stage_lost=%d stage_slots=%d stage_slot_bytes=%d stage_wide=%d", so, sl, ss, sb, sw }' $PT/stats) $(awk -v t0="$t0" '
		$3 > 0 && !seen { seen = 1; printf "first_loss_after=%d first_loss_secs=%.2f", pp, pt - t0 }
		{ pp = $2; pt = $1 } END { if (!seen) printf "first_loss_after=none" }' /tmp/mon)"
}
insmod $PTKO $good
ok $? "pagetrail with its default ring ($(cat /sys/module/pagetrail/parameters/ring_kb) KiB per CPU, overwrite=$(cat /sys/module/pagetrail/parameters/overwrite))"
emit "name=ring/config ring_kb=$(cat /sys/module/pagetrail/parameters/ring_kb) record_bytes=128 cpus=$(grep -c ^processor /proc/cpuinfo)"
ring_phase noreader 0
ring_phase reader 1
rmmod pagetrail

# --- memory per tracked chunk ---------------------------------------------
# pagetrail's stats give no byte counts, so the kernel's do: vmalloc and
# slab before and after a load with max_pages=A and one with max_pages=B
# (detached: nothing tracked, the table is allocated at load).
mem_kb() { awk '/^(VmallocUsed|Slab):/ { s += $2 } END { print s }' /proc/meminfo; }
mem_at() { # MAX_PAGES
	local m0 m1
	m0=$(mem_kb)
	insmod $PTKO attach=0 max_pages=$1 $good || return 1
	m1=$(mem_kb)
	echo "capacity=$(kv capacity) kb=$((m1 - m0))"
	rmmod pagetrail
}
a=$(mem_at 131072) && b=$(mem_at 1048576)
ok $? "loaded twice for the memory slope"
emit "name=memory chunks_a=131072 $(echo "$a" | sed 's/capacity=[0-9]* //; s/kb=/kb_a=/') chunks_b=1048576 $(echo "$b" | sed 's/capacity=[0-9]* //; s/kb=/kb_b=/')"

# --- where pagetrail's time goes ------------------------------------------
# perf samples every CPU on the clock (TCG has no PMU) while cuinit runs
# with pagetrail on fprobe, record first; a sample is 1/hz s of CPU, so a
# symbol's samples x period / probe hits is its cost per event. Reported
# per symbol of pagetrail's module and of the probe machinery (fprobe,
# ftrace, fgraph, rethook, kprobes) that runs only because something is
# attached; the consumer's samples (its thread) are summed apart: that
# time is off the driver's path.
if command -v perf > /dev/null && insmod $PTKO backend=2 $PT_RF $good; then
	hz=2000
	cuinit --gens 3 --drain > /dev/null
	cat $PT/stats > /dev/null
	e0=$(pt_events)
	perf record -q -a -e cpu-clock -F $hz -o /tmp/perf.data -- \
		sh -c "for i in 1 2 3; do cuinit --gens 3 --drain; cat $PT/stats > /dev/null; done" > /dev/null 2> /tmp/perf.err
	e1=$(pt_events)
	# pagetrail's own functions by name: perf names a module's symbols
	# from kallsyms but files them under the kernel when it has no .ko path.
	awk '$4 == "[pagetrail]" { print $3 }' /proc/kallsyms > /tmp/ptsyms
	perf report -i /tmp/perf.data --stdio --no-children -F overhead,sample,comm,dso,sym \
		--percent-limit 0 -g none 2> /dev/null | awk -v events=$((e1 - e0)) -v hz=$hz '
		FILENAME == "/tmp/ptsyms" { own_sym[$1] = 1; next }
		/^#/ || NF < 6 || $5 != "[k]" { next }
		{ n = $2; comm = $3; sym = $6; total += n
		  # the reader draining between runs (cat) and the thread: the consumer
		  if (comm == "pagetrail_stage" || comm == "cat") { if (sym in own_sym) cons += n; next }
		  if (sym in own_sym) { own += n; print "bench name=profile/sym kind=own sym=" sym " samples=" n }
		  # an unresolved kernel address is a trampoline ftrace allocated
		  else if (sym ~ /fprobe|ftrace|fgraph|rethook|kprobe|kretprobe|return_to_handler|trampoline|function_graph|^0xffff/) {
			mach += n; print "bench name=profile/sym kind=machinery sym=" sym " samples=" n }
		}
		END { printf "bench name=profile/summary hz=%d events=%d samples=%d own=%d machinery=%d consumer=%d\n", hz, events, total, own, mach, cons }' /tmp/ptsyms - > /tmp/prof
	# Sampling cannot look inside pt_tracker_observe: it runs with IRQs
	# off, so the clock's samples land when it re-enables them. The
	# function_graph tracer times its out-of-line callees instead (each
	# traced call adds the tracer's own entry and exit to its parent).
	echo 0 > $TR/tracing_on
	echo 16384 > $TR/buffer_size_kb
	echo pt_tracker_observe > $TR/set_graph_function
	echo 3 > $TR/max_graph_depth
	echo function_graph > $TR/current_tracer
	: > $TR/trace
	echo 1 > $TR/tracing_on
	cuinit --gens 1 --drain > /dev/null
	echo 0 > $TR/tracing_on
	awk '/\|/ {
		split($0, h, "|"); body = h[2]; dur = ""
		if (match(h[1], /[0-9.]+ us/)) dur = substr(h[1], RSTART, RLENGTH - 3) + 0
		ind = match(body, /[^ ]/); name = substr(body, ind); sub(/[(;{ ].*/, "", name)
		if (body ~ /\{ *$/) { stack[ind] = name; next }
		if (body ~ /^ *\}/) { name = stack[ind] } else if (name == "") next
		if (dur == "") next
		sum[name] += dur; cnt[name]++; depth[name] = ind
	} END {
		for (f in sum) printf "bench name=profile/graph fn=%s depth=%d calls=%d us=%.1f\n", f, depth[f], cnt[f], sum[f]
	}' $TR/trace > /tmp/graph
	echo nop > $TR/current_tracer
	echo > $TR/set_graph_function
	echo 1408 > $TR/buffer_size_kb
	while read -r l; do emit "${l#bench }"; done < /tmp/graph
	rmmod pagetrail
	grep 'profile/sym' /tmp/prof | awk '{ split($NF, a, "="); print a[2], $0 }' | sort -rn | head -n 40 |
		cut -d' ' -f2- | while read -r l; do emit "${l#bench }"; done
	emit "$(sed -n 's/^bench //p' /tmp/prof | grep profile/summary)"
	[ -s /tmp/perf.err ] && diag "perf: $(head -c 300 /tmp/perf.err)"
	ok $(grep -q 'own=[1-9]' /tmp/prof; echo $?) "perf profile of pagetrail on fprobe"
else
	ok 1 "perf profile: no perf in the initramfs, or pagetrail did not load"
fi

# --- inside the IRQs-off section --------------------------------------------
# The samples above cannot land inside pt_tracker_observe's IRQs-off section
# and the tracer's own cost swamps its callees, so a second build of
# pagetrail (PAGETRAIL_HOTPROF=1) reads the clock between the section's
# parts: their sums over three cuinit runs, and one clock read's cost.
HPKO=/pt/modules/hotprof/pagetrail.ko
if [ -f $HPKO ] && insmod $HPKO target=nvsim backend=2 $PT_SYNC $good; then
	cuinit --gens 3 --drain > /dev/null
	rmmod pagetrail && insmod $HPKO target=nvsim backend=2 $PT_SYNC $good
	for i in 1 2 3; do cuinit --gens 3 --drain; done > /dev/null
	emit "name=hotprof $(grep '^hotprof_' $PT/stats | sed 's/^hotprof_//' | tr '\n' ' ')"
	rmmod pagetrail
	# record first: the probe path's staging section, and the tracker's
	# section now run by the consumer
	insmod $HPKO target=nvsim backend=2 $PT_RF $good
	for i in 1 2 3; do cuinit --gens 3 --drain; cat $PT/stats > /dev/null; done > /dev/null
	emit "name=hotprof_rf $(grep '^hotprof_' $PT/stats | sed 's/^hotprof_//' | tr '\n' ' ')"
	rmmod pagetrail
	ok $(grep -q 'name=hotprof sections=[1-9]' $OUT; echo $?) "the IRQs-off section timed, part by part"
else
	ok 1 "hotprof: no timed build in the initramfs, or it did not load"
fi

rmmod ptbench && nvsim_rmmod
ok $? "unloaded"
done_testing
