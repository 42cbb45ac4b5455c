# SPDX-License-Identifier: GPL-2.0
# Helpers for scenarios that drive nvsim (busybox sh; source tap.sh first).

S=/sys/kernel/debug/nvsim/stats
P=/sys/module/nvsim/parameters

# nv KEY [FILE]: one nvsim counter (default: its debugfs stats).
nv() { grep "^$1=" "${2:-$S}" | head -n1 | cut -d= -f2-; }

# nvsim_unload DESCRIPTION: rmmod nvsim, then its own unload accounting
# must balance (two assertions); the accounting line is left in $bal.
nvsim_unload() {
	rmmod nvsim
	ok $? "rmmod nvsim"
	bal=$(dmesg | grep 'nvsim: unload:' | tail -n1)
	diag "$bal"
	is "$(echo "$bal" | field balanced)" 1 "unload: $1"
}
