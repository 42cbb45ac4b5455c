# SPDX-License-Identifier: GPL-2.0
# scripts/insnprof's guest side: CUDA init under pagetrail on fprobe with
# record first (make bench's ptf), pt.insnprof_runs times, while the host's
# QEMU plugin (tests/qemu/tbcount.c) counts every kernel block that runs;
# with pt.insnprof_detached=1 the same with pagetrail loaded and detached,
# the baseline the host subtracts. Prints the probe hits and the symbols
# (pagetrail's and the kernel's text) the host needs to name the blocks.
# Asserts only that the runs ran.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 2

arg() { # KEY DEFAULT: pt.KEY=N from the kernel command line
	local v
	v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^pt\.$1=\([0-9][0-9]*\)$/\1/p")
	echo "${v:-$2}"
}
runs=$(arg insnprof_runs 10)
insmod /pt/modules/nvsim.ko
good="$PT_LAYOUT_595 nv_pools_addr=$(nvsim_pools_addr)"
cuinit --gens 3 --drain > /dev/null
insmod /pt/modules/pagetrail.ko target=nvsim backend=2 $PT_BENCH_RF $good &&
	grep -q '^state=attached' $PT/control
ok $? "pagetrail attached on fprobe"
[ "$(arg insnprof_detached 0)" = 1 ] && echo detach > $PT/control
failed=0
i=0
while [ $i -lt "$runs" ]; do
	cuinit --gens 3 --drain > /dev/null || failed=$((failed + 1))
	cat $PT/stats > /dev/null
	i=$((i + 1))
done
ok $failed "$runs cuinit runs"
# Every entry and return a probe saw, as make bench counts them.
diag "insnprof hits=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
	if (kv[1] == "hits" || ($1 ~ /^probe=/ && kv[1] == "returns")) s += kv[2] } }
	END { print s + 0 }' $PT/coverage)"
awk '$2 ~ /^[tT]$/ { m = $4; gsub(/[][]/, "", m); print "# insnprof sym " $1 " " $3 " " (m == "" ? "kernel" : m) }' /proc/kallsyms
rmmod pagetrail
