# SPDX-License-Identifier: GPL-2.0
# make bench: the same workloads side by side in one boot, without
# pagetrail, with pagetrail on kprobes, and with fprobe where the kernel has
# it. Prints "bench ..." lines; asserts only that every run completed.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 4

insmod /pt/modules/nvsim.ko
good=$(pt_layout)
run_all() { # LABEL
	stopwatch 5 "$1/cuinit" -- cuinit --gens 3 --drain && stopwatch 9 "$1/faults" faults
}
# Detach and attach again (the whole probe set): what rmmod nvidia and a
# reload cost while pagetrail is loaded. No baseline: absolute times.
cycle() { # LABEL
	stopwatch 5 "$1/detach_attach" -- sh -c \
		"echo detach > $PT/control && echo attach > $PT/control && grep -q '^state=attached' $PT/control"
}
{
	run_all none
	insmod /pt/modules/pagetrail.ko target=nvsim backend=1 ring_kb=32768 $good
	run_all kprobe
	cycle kprobe
	rmmod pagetrail
	if insmod /pt/modules/pagetrail.ko target=nvsim backend=2 ring_kb=32768 $good 2>/dev/null; then
		run_all fprobe
		cycle fprobe
		rmmod pagetrail
	fi
} > /tmp/bench.out
cat /tmp/bench.out | sed 's/^/# /'
ok $? "workloads ran"
is "$(grep -c 'error=' /tmp/bench.out)" 0 "no run failed"
cmp_ok "$(grep -c '^bench ' /tmp/bench.out)" -ge 4 "baseline and kprobe results present"
rmmod nvsim
ok $? "unloaded"
done_testing
