# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the pagetrail scenarios (busybox sh).

. /pt/lib/nvsim.sh
PT=/sys/kernel/debug/pagetrail

# The 595.45.04 nv_alloc_t / nvidia_pte_t / entry layout and a 6.12
# production pool layout: what the table source of pagetrail-load gives.
PT_LAYOUT_595="nv_alloc_size=112 nv_alloc_usage_count=16 nv_alloc_usage_size=8 nv_alloc_pool_bit=203 nv_alloc_num_pages=32 nv_alloc_order=36 nv_alloc_page_table=48 nv_pte_size=16 nv_pte_phys_addr=0 nv_pte_virt_addr=8 nv_pool_size=168 nv_pool_clean_list=0 nv_pool_dirty_list=16 nv_pool_node_id=136 nv_pool_order=140 nv_pool_lock=152 nv_pool_shrinker=-1 nv_entry_virt_addr=0 nv_entry_list_node=8"

# kv KEY [FILE]: one value from a key=value file (default: pagetrail stats).
kv() { grep "^$1=" "${2:-$PT/stats}" | head -n1 | cut -d= -f2-; }

# "pt.backend=N" on the kernel command line picks the probe back end for
# every load that does not name one (scripts/check runs a boot on kprobes).
pt_backend() {
	tr ' ' '\n' < /proc/cmdline | sed -n 's/^pt\.backend=\([0-2]\)$/backend=\1/p'
}

# "pt.record_first=0" on the kernel command line loads every pagetrail of
# the boot with record_first=0 (interpretation on the probe path, as
# before record first); "=1" names the default.
pt_record_first() {
	tr ' ' '\n' < /proc/cmdline | sed -n 's/^pt\.record_first=\([01]\)$/record_first=\1/p'
}

# nvsim_rmmod: rmmod nvsim, which busybox asks without waiting (O_NONBLOCK):
# while anything holds a reference on the module (an open file of its
# devices, a kprobe being registered on it), the kernel answers EAGAIN at
# once. Seen once, in pt_stress on the sanitizer kernel right after the
# cuinit loops were reaped; what held it is not known. Tries for up to
# 5 s, and says what the module's count was and how many tries it took;
# any other failure, or a module still held after 5 s (pagetrail keeps no
# reference on its target), fails as rmmod does.
nvsim_rmmod() {
	local i=0
	while ! rmmod nvsim 2> /tmp/rmmod.err; do
		if ! grep -q 'temporarily unavailable' /tmp/rmmod.err || [ $i -ge 25 ]; then
			cat /tmp/rmmod.err >&2
			return 1
		fi
		[ $i = 0 ] && diag "rmmod nvsim: in use, refcnt $(cat /sys/module/nvsim/refcnt 2> /dev/null), holders: $(ls /sys/module/nvsim/holders 2> /dev/null | tr '\n' ' '); trying again"
		i=$((i + 1))
		sleep 0.2
	done
	[ $i = 0 ] || diag "rmmod nvsim: unloaded after $i retries"
}

# then_drain CMD...: a shell command line that runs CMD, then reads
# pagetrail's stats, which interprets what record first still holds staged,
# and exits with CMD's status: for "trace-cmd record ... sh -c", which stops
# tracing as soon as its command ends (README, Tracepoints).
then_drain() {
	echo "$*; rc=\$?; cat $PT/stats > /dev/null; exit \$rc"
}

# Load nvsim, then pagetrail through the loader (BTF where the kernel gives
# modules BTF, else the .ko's DWARF). Extra arguments go to pagetrail, and
# $PT_PARAMS to every load of the scenario (foreign_chain's reloads too).
pt_load() {
	local b=
	case " $* " in *" backend="*) ;; *) b=$(pt_backend) ;; esac
	pagetrail-load --target nvsim --ko /pt/modules/pagetrail.ko \
		--target-ko /pt/modules/nvsim.ko -- $b $(pt_record_first) ${PT_PARAMS:-} "$@" 2> /tmp/loader.err
	local rc=$?
	cat /tmp/loader.err >&2
	return $rc
}

# pt_layout: nvsim's layout parameters as the loader finds them, on one line
# (BTF when nvsim is loaded and the kernel gives modules BTF, else DWARF).
pt_layout() {
	pagetrail-load --target nvsim --target-ko /pt/modules/nvsim.ko --dry-run 2>/dev/null |
		grep '^nv_' | tr '\n' ' '
}

# pt_drain [USER-COMM]: consume the events text into /tmp/ev.txt and
# summarise it into /tmp/evsum (see evsum.awk); ev KEY reads the summary.
pt_drain() {
	cat $PT/events > /tmp/ev.txt
	awk -v cuser="${1:-cuinit}" -f /pt/lib/evsum.awk /tmp/ev.txt > /tmp/evsum
}
ev() { local x; x=$(kv "$1" /tmp/evsum); echo "${x:-0}"; }

# anomaly KIND [PFN]: the first line of the first anomaly of that kind (and
# pfn) in the anomalies file; anomaly_block KIND PFN: that anomaly with its
# history and stack.
anomaly() {
	grep "^anomaly=" /tmp/anomalies | grep -E "kind=([A-Z_]+,)*$1(,|[[:space:]])" |
		grep "${2:+ pfn=$2 }" | head -n1
}
anomaly_block() {
	awk -v kind="$1" -v pfn="$2" '
	/^anomaly=/ { if (on) exit; on = ($0 ~ ("kind=([A-Z_]+,)*" kind "[, ]") && index($0, " pfn=" pfn " ")) }
	on' /tmp/anomalies
}

# foreign_chain RUN: the foreign_put workload (RUN TRY writes cuinit's output
# to /tmp/cuinit.out) up to three times, nvsim and pagetrail reloaded
# between, until a later generation's mmap failed. The foreign thread frees
# the page on its CPU, where the next order-0 allocation there (a kworker,
# kmemleak's scan, a recorder thread) may take it before the pool hands it
# out: then the insert succeeds on a page with a new owner and no chain
# follows (or the mmap fails on a page the other owner holds), the kernel's
# timing and not pagetrail's. Sets try; 0 when the chain happened.
foreign_chain() {
	for try in 1 2 3; do
		echo 1 > /sys/module/nvsim/parameters/fault_foreign_put
		"$1" "$try"
		echo 0 > /sys/module/nvsim/parameters/fault_foreign_put
		# nvsim's own word: the failed mmap's page still had no reference.
		grep -q "^mmap .*rc=-1" /tmp/cuinit.out &&
			grep -q "^owner .*refcount=0$" /tmp/cuinit.out && return 0
		[ $try = 3 ] && return 1
		diag "run $try: the foreign thread's freed page was taken by someone else first; again"
		rmmod pagetrail && rmmod nvsim && insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768 ||
			bail "cannot reload nvsim and pagetrail"
	done
}

# pt_reclaim_run: a CUDA-init run, then reclaim (drop_caches) with the
# scrubbers drained; pagetrail's stats and anomalies are kept in /tmp and
# its events drained (pt_drain) for the scenario to check. Returns
# cuinit's status.
pt_reclaim_run() {
	local rc
	cuinit --seed 7 --drain > /tmp/cuinit.out
	rc=$?
	echo 2 > /proc/sys/vm/drop_caches
	echo drain > /sys/kernel/debug/nvsim/control
	cp $PT/stats /tmp/stats
	cat $PT/anomalies > /tmp/anomalies
	pt_drain
	grep -E '^(anomal|gaps|events_|nv_)' /tmp/stats | grep -v '=0$' >&2
	head -n 40 /tmp/anomalies >&2
	return $rc
}

# make bench's pagetrail on the driver's path (bench.sh, bench_ab.sh):
# record first, staging for one whole cuinit run per CPU.
PT_BENCH_RF="record_first=1 stage_kb=20480 stage_wake_pct=50"
# nvsim's sysmem_page_pools for nv_pools_addr=, where the loader is not used.
nvsim_pools_addr() {
	awk '$3 == "sysmem_page_pools" && $4 == "[nvsim]" { print "0x" $1; exit }' /proc/kallsyms
}
