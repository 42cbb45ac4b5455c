# SPDX-License-Identifier: GPL-2.0
# scripts/bench --ab N: pagetrail as built now ("new") against the base
# commit's build ("old", scripts/bench --base), in N pairs of slots that
# alternate which goes first, each slot three cuinit runs after a warm-up,
# and a run with nothing attached after each pair. On a host whose speed
# drifts by tens of percent within minutes, two slots side by side are
# the comparison that drift touches least: scripts/bench prints, per pair,
# each side's fastest run and the ratio of the time each adds to a run.
# Asserts only that every slot loaded and ran.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 2

pairs=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^pt\.ab_pairs=\([0-9][0-9]*\)$/\1/p')
pairs=${pairs:-8}
NEWKO=/pt/modules/pagetrail.ko
OLDKO=/pt/modules/base/pagetrail.ko
insmod /pt/modules/nvsim.ko && test -f $OLDKO
ok $? "nvsim loaded, the base build is there"
pools=$(nvsim_pools_addr)
good="$PT_LAYOUT_595 nv_pools_addr=$pools"
# make bench's ptf: on fprobe
PARAMS="$PT_BENCH_RF backend=2"
failed=0
cuinit --gens 3 --drain > /dev/null
slot() { # PAIR NAME KO
	local i
	insmod "$3" target=nvsim $PARAMS $good &&
		grep -q '^state=attached' $PT/control || { failed=$((failed + 1)); rmmod pagetrail 2> /dev/null; return; }
	cuinit --gens 3 --drain > /dev/null
	cat $PT/stats > /dev/null
	for i in 1 2 3; do
		stopwatch 1 "ab/$2" -- cuinit --gens 3 --drain | sed "s/\$/ pair=$1/; s/^/# /"
		cat $PT/stats > /dev/null
	done
	rmmod pagetrail
}
p=1
while [ $p -le "$pairs" ]; do
	if [ $((p % 2)) = 1 ]; then
		slot $p new $NEWKO; slot $p old $OLDKO
	else
		slot $p old $OLDKO; slot $p new $NEWKO
	fi
	stopwatch 3 ab/none -- cuinit --gens 3 --drain | sed "s/\$/ pair=$p/; s/^/# /"
	p=$((p + 1))
done
is "$failed" 0 "every slot attached and ran"
nvsim_rmmod
done_testing
