# SPDX-License-Identifier: GPL-2.0
# pagetrail loads, waits for an absent target, refuses bad layouts, unloads.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 11

insmod /pt/modules/pagetrail.ko target=nosuchdriver $PT_LAYOUT_595
ok $? "insmod pagetrail with a complete layout"
for f in control stats coverage events events.bin pages anomalies; do
	test -e $PT/$f || { note "missing $PT/$f"; break; }
done
ok $? "every debugfs file exists"
is "$(kv state $PT/control)" "waiting" "absent target: state is waiting"
is "$(kv target $PT/control)" "nosuchdriver" "control names the target"
n=$(grep -c ^processor /proc/cpuinfo)
is "$(cat /sys/module/pagetrail/parameters/ring_kb)" \
	"$(awk -v n="$n" 'BEGIN { k = int(131072 / n); if (k < 256) k = 256; if (k > 4096) k = 4096; print k }')" \
	"default ring: 128 MiB over $n CPUs, 256..4096 KiB each"
echo bogus > $PT/control 2>/dev/null
isnt $? 0 "unknown control command is refused"
dmesg | grep -q "pagetrail: control: unknown command"
ok $? "the refusal says why in the log"
rmmod pagetrail
ok $? "rmmod while waiting"

insmod /pt/modules/pagetrail.ko target=nvsim $(echo "$PT_LAYOUT_595" | sed 's/nv_pool_dirty_list=16/nv_pool_dirty_list=20/') 2>/dev/null
isnt $? 0 "misaligned pool offset: insmod fails"
dmesg | grep -q "refusing to load: nv_pool_dirty_list=20 is not 8-byte aligned"
ok $? "the log names the wrong parameter"
test ! -d $PT
ok $? "nothing left behind"
done_testing
