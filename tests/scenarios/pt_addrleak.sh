# SPDX-License-Identifier: GPL-2.0
# No kernel address is readable by anyone but root (issue 22 item 6,
# code-review-2 finding 3: nv_pools_addr was a 0444 parameter). With
# pagetrail loaded, attached, after a run that left records, an anomaly and
# its stack, every file pagetrail creates (sysfs, debugfs, tracefs) that
# user 65534 can read is read as that user and searched for a kernel
# address: 16 hex digits in the kernel half (ffff8... and up, with or
# without 0x) or a decimal of 20 digits at or above 0xffff800000000000.
# The same search run as root on nv_pools_addr must find it: the search
# is proved able to see the leak it is there to catch.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 10

KHALF=18446603336221196288	# 0xffff800000000000 in decimal
# kaddrs FILE...: every kernel address in the files, one per line.
kaddrs() {
	cat "$@" 2>/dev/null | tr -c '0-9A-Za-z\n' '\n' |
		awk -v khalf=$KHALF '
		tolower($0) ~ /^(0x)?ffff[89a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]$/ { print; next }
		/^[0-9]+$/ && length($0) == 20 && $0 >= khalf { print }'
}
# as_nobody CMD...: CMD as user nobody (65534), no supplementary groups.
as_nobody() { su -s /bin/sh nobody -c "$*"; }

insmod /pt/modules/nvsim.ko $Z2_RELEASE && pt_load devcg=1
ok $? "nvsim and pagetrail loaded (attached, devcg on)"
pools=$(cat /sys/module/pagetrail/parameters/nv_pools_addr)
is "$(kaddrs /sys/module/pagetrail/parameters/nv_pools_addr)" "$pools" \
	"as root the search finds nv_pools_addr ($pools): it can see a leak"
is "$(stat -c %a /sys/module/pagetrail/parameters/nv_pools_addr)" 400 \
	"nv_pools_addr is 0400, root only"
is "$(as_nobody id -u)" 65534 "commands run as user 65534"
as_nobody cat /sys/module/pagetrail/parameters/nv_pools_addr > /dev/null 2>&1
isnt $? 0 "user 65534 cannot read nv_pools_addr"
as_nobody cat /sys/module/pagetrail/parameters/ring_kb > /dev/null 2>&1
is $? 0 "user 65534 can read a 0444 parameter (ring_kb): the refusal above is the mode's"

# Content in every file: records, a foreign-free anomaly with its stack,
# trace events on, a denied open.
for e in /sys/kernel/tracing/events/pagetrail/*/enable; do echo 1 > "$e"; done 2>/dev/null
echo 1 > /sys/module/nvsim/parameters/fault_stale_context
cuinit --stale=nozero > /tmp/cuinit.out
echo 0 > /sys/module/nvsim/parameters/fault_stale_context
cmp_ok "$(kv anomalies)" -ge 1 "the run left at least one anomaly to show"

roots="/sys/module/pagetrail /sys/kernel/debug/pagetrail /sys/kernel/tracing/events/pagetrail /sys/kernel/debug/tracing/events/pagetrail"
# Root's view first: the files exist and hold records (or the search above
# would pass on an empty tree).
cmp_ok "$(find $roots -type f 2>/dev/null | wc -l)" -ge 30 "pagetrail's files: $(find $roots -type f 2>/dev/null | wc -l) in sysfs, debugfs and tracefs"
as_nobody find $roots -type f 2>/dev/null > /tmp/readable.all
: > /tmp/readable
while read -r f; do
	as_nobody head -c 0 "$f" 2>/dev/null && echo "$f" >> /tmp/readable
done < /tmp/readable.all
diag "readable by user 65534: $(wc -l < /tmp/readable) files ($(tr '\n' ' ' < /tmp/readable | cut -c1-300))"
cmp_ok "$(wc -l < /tmp/readable)" -ge 1 "user 65534 reads some of them (the module's sysfs parameters)"
: > /tmp/leaks
while read -r f; do
	as_nobody cat "$f" 2>/dev/null > /tmp/one
	kaddrs /tmp/one | sed "s|^|$f: |" >> /tmp/leaks
done < /tmp/readable
is "$(head -n 3 /tmp/leaks)" "" "no kernel address in any file user 65534 can read"

for e in /sys/kernel/tracing/events/pagetrail/*/enable; do echo 0 > "$e"; done 2>/dev/null
rmmod pagetrail && nvsim_rmmod
done_testing
