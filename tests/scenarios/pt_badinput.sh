# SPDX-License-Identifier: GPL-2.0
# Bad input is refused, said why, and leaves pagetrail working (issue 12,
# item 4): 10,000 generated writes to control from two processes at once
# (noise, binary, NUL, oversized, near-miss commands), writes to every
# read-only file, module parameters at and beyond their ranges, and offsets
# that wrap an int.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 27

insmod /pt/modules/nvsim.ko && pt_load
ok $? "nvsim and pagetrail loaded"
good=$(pt_layout)	# once: the loader is slow under emulation
echo 1 > /proc/sys/kernel/printk	# 10,000 refusals: to dmesg, not the console
dmesg -c > /dev/null
ptbadin $PT 10000 42 > /tmp/badin.out 2> /tmp/badin.err
ok $? "every generated write got the right answer: $(tr '\n' ' ' < /tmp/badin.out)"
sed 's/^/# /' /tmp/badin.err | head -n 5
cases=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^cases=/) n += substr($i, 7) } END { print n }' /tmp/badin.out)
is "$cases" 10000 "10,000 cases written"
# The log: a small batch, so the kernel's log buffer holds every line.
dmesg -c > /dev/null
ptbadin $PT 300 7 > /tmp/badin2.out 2> /dev/null
refused=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^refused=/) n += substr($i, 9) } END { print n }' /tmp/badin2.out)
is "$(dmesg | grep -c 'pagetrail: control: ')" "$refused" "every refusal says why in the log, one line each ($refused of 300)"
echo 7 > /proc/sys/kernel/printk
echo thaw > $PT/control && echo devcg=0 > $PT/control && echo attach > $PT/control
is "$(kv state $PT/control) $(kv frozen $PT/control)" "attached 0" "pagetrail still answers and attaches"
echo reset > $PT/control
cuinit --gens 1 > /tmp/cuinit.out
is "$(kv anomalies) $(kv ring_unaccounted) $(grep -c '^summary .*mmap_failed=0' /tmp/cuinit.out)" "0 0 1" \
	"and records a clean run afterwards: no anomaly, exact accounting"
rmmod pagetrail
ok $? "rmmod pagetrail"

# Module parameters at and beyond their ranges: refused with the name.
refuse() { # DESCRIPTION LOG-TEXT PARAM...
	local d=$1 t=$2
	shift 2
	dmesg -c > /dev/null
	insmod /pt/modules/pagetrail.ko target=nvsim $good "$@" 2> /dev/null
	local rc=$?
	[ $rc != 0 ] && ! test -d $PT && dmesg | grep -q -- "$t"
	ok $? "$d: refused, log says '$t'"
	[ $rc = 0 ] && rmmod pagetrail
}
refuse "ring_kb below" "ring_kb=63: must be 64..1048576" ring_kb=63
refuse "ring_kb above" "ring_kb=1048577: must be 64..1048576" ring_kb=1048577
refuse "ring_kb in range but past the RAM budget" "ring_kb=1048576: .* is more than a quarter of RAM" ring_kb=1048576
refuse "max_pages below" "max_pages=63: must be" max_pages=63
refuse "max_pages above" "max_pages=4194305: must be" max_pages=4194305
refuse "max_anomalies 0" "max_anomalies=0: must be 1..4096" max_anomalies=0
refuse "maxactive above" "maxactive=4097: must be 1..4096" maxactive=4097
refuse "backend 3" "backend=3: must be 0" backend=3
refuse "target longer than a module name" "longer than a module name" target=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
refuse "an offset that wraps an int" "nv_pte_virt_addr=2147483640" nv_pte_virt_addr=2147483640
refuse "an entry offset that wraps an int" "nv_entry_list_node=2147483632" nv_entry_list_node=2147483632
refuse "clock unknown" "clock=sometimes: unknown; choose auto, local or causal" clock=sometimes

accept() { # DESCRIPTION PARAM...
	local d=$1
	shift
	insmod /pt/modules/pagetrail.ko target=nvsim $good "$@" 2> /dev/null &&
		[ "$(kv state $PT/control)" = attached ]
	ok $? "$d: loads and attaches"
	rmmod pagetrail 2> /dev/null
}
accept "ring_kb=64, the smallest" ring_kb=64
accept "max_pages=64 max_anomalies=1 maxactive=1, the smallest" max_pages=64 max_anomalies=1 maxactive=1
accept "max_anomalies=4096 maxactive=4096, the largest" max_anomalies=4096 maxactive=4096
for c in local causal; do
	insmod /pt/modules/pagetrail.ko target=nvsim $good clock=$c 2> /dev/null &&
		[ "$(kv clock)" = $c ]
	ok $? "clock=$c: loads, stats say clock=$c"
	rmmod pagetrail 2> /dev/null
done

# A wrong pools address is refused before anything is planted.
dmesg -c > /dev/null
insmod /pt/modules/pagetrail.ko target=nvsim $(echo "$good" | sed 's/nv_pools_addr=[^ ]*//') nv_pools_addr=0xffffffff81000000 2> /dev/null
rc=$?
isnt $rc 0 "nv_pools_addr outside nvsim: refused"
dmesg | grep -q "nv_pools_addr names .*not a symbol of nvsim"
ok $? "the log names what the address is"
[ $rc = 0 ] && rmmod pagetrail
nvsim_rmmod
ok $? "rmmod nvsim"
done_testing
