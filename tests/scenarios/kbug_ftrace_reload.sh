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
# pt.k7mod=brd: the kernel's own ramdisk module instead of nvsim (a Debian
# built kernel, whose modules ours are not built for): brd_submit_bio.
mod=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^pt\.k7mod=//p')
fn=nv_alloc_contig_pages
[ "$mod" = brd ] && fn=brd_submit_bio
work() {
	if [ "$mod" = brd ]; then
		dd if=/dev/zero of=/dev/ram0 bs=4096 count=64 2> /dev/null && sync
	else
		cuinit > /dev/null
	fi
}
round() { # PROBE(0|1)
	if [ "$mod" = brd ]; then
		insmod /pt/modules/brd.ko rd_nr=1 rd_size=4096
	else
		insmod /pt/modules/nvsim.ko
	fi
	if [ "$1" = 1 ]; then
		case $mode in
		fprobe) echo "f:ptr/a $fn" >> $TR/dynamic_events
			echo 1 > $TR/events/ptr/enable ;;
		function) echo $fn > $TR/set_ftrace_filter
			echo function > $TR/current_tracer ;;
		esac
	fi
	work
	r=$?
	if [ "$1" = 1 ]; then
		case $mode in
		fprobe) echo 0 > $TR/events/ptr/enable; echo '-:ptr/a' >> $TR/dynamic_events ;;
		function) echo nop > $TR/current_tracer; echo > $TR/set_ftrace_filter ;;
		esac
	fi
	rmmod ${mod:-nvsim}
	return $r
}
round 1; ok $? "round 1 ($mode)"
round 0; ok $? "round 2: reloaded, no probe"
round 1; ok $? "round 3: reloaded, $mode again"
ok 0 "alive"
done_testing
