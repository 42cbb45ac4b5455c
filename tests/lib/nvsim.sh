# SPDX-License-Identifier: GPL-2.0
# Helpers for scenarios that drive nvsim (busybox sh; source tap.sh first).

S=/sys/kernel/debug/nvsim/stats
P=/sys/module/nvsim/parameters
# The stale-context fault (Z2) exists only where the mmap context holds no
# reference: scenarios that drive it load nvsim as such a release, the
# default of 595.x builds, so that they run the same on the 610 builds
# (whose default, 610.43.02, holds one: pt_stale_ref tests that).
Z2_RELEASE=release=595.45.04

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
