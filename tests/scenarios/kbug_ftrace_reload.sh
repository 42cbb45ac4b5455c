# SPDX-License-Identifier: GPL-2.0
# A kernel bug, not a pagetrail test (in no list of make check): on Debian's
# 7.3.4 built from base + linux7 fragments (build-testkernel --source 7
# --plain), ftrace on a function of a module that was unloaded and loaded
# again crashes the kernel in round 3 (a call to a small address, or a stack
# guard hit), with no pagetrail loaded. pt.k7=fprobe: a tracefs fprobe event;
# pt.k7=function: the function tracer. Round 2 (reloaded, nothing attached)
# passes. The 7.3 sanitizer kernel does not show it.
#   scripts/runvm -k $CACHE/kb-7.x/arch/x86/boot/bzImage -m KO -p build/progs \
#       -s kbug_ftrace_reload -a pt.k7=fprobe -o build/kbug
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 4
TR=/sys/kernel/tracing
mode=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^pt\.k7=//p')
round() { # PROBE(0|1)
	insmod /pt/modules/nvsim.ko
	if [ "$1" = 1 ]; then
		case $mode in
		fprobe) echo 'f:ptr/a nv_alloc_contig_pages' >> $TR/dynamic_events
			echo 1 > $TR/events/ptr/enable ;;
		function) echo nv_alloc_contig_pages > $TR/set_ftrace_filter
			echo function > $TR/current_tracer ;;
		esac
	fi
	cuinit > /dev/null
	r=$?
	if [ "$1" = 1 ]; then
		case $mode in
		fprobe) echo 0 > $TR/events/ptr/enable; echo '-:ptr/a' >> $TR/dynamic_events ;;
		function) echo nop > $TR/current_tracer; echo > $TR/set_ftrace_filter ;;
		esac
	fi
	rmmod nvsim
	return $r
}
round 1; ok $? "round 1 ($mode)"
round 0; ok $? "round 2: reloaded, no probe"
round 1; ok $? "round 3: reloaded, $mode again"
ok 0 "alive"
done_testing
