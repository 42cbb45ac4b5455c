# SPDX-License-Identifier: GPL-2.0
# pagetrail follows its target: loaded first it waits, it attaches when the
# target goes live, sees the pools destroyed at the target's unload, waits
# again, and reattaches. Unloading pagetrail while the driver program runs
# (twice, at different moments) is safe and leaves the driver working.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 16

good=$(pt_layout)
insmod /pt/modules/pagetrail.ko target=nvsim ring_kb=32768 $good
ok $? "pagetrail loads before its target"
is "$(kv state $PT/control)" waiting "state: waiting"
insmod /pt/modules/nvsim.ko
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(kv state $PT/control)" = attached ] && break; sleep 0.5; done
is "$(kv state $PT/control)" attached "nvsim went live: attached"
cuinit --gens 2 --drain > /tmp/c1.out
is "$(grep '^summary ' /tmp/c1.out | field mmap_failed)" 0 "cuinit ran clean"
pooled=$(nv pool_pages_owned)
nvsim_rmmod
ok $? "rmmod nvsim while attached"
is "$(kv state $PT/control)" waiting "target gone: waiting again"
cp $PT/stats /tmp/stats
pt_drain
is "$(ev role_reclaim_destroy)" "$pooled" "nv_mem_pool_destroy: every pooled chunk seen reclaimed ($pooled)"
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 0" "0 anomalies, 0 gaps through the unload"
insmod /pt/modules/nvsim.ko
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(kv state $PT/control)" = attached ] && break; sleep 0.5; done
is "$(kv state $PT/control) $(kv attaches $PT/control)" "attached 2" "nvsim back: attached a second time"

# Unload pagetrail in the middle of driver activity, twice. Loaded after
# the target, it is told the pools' address (as pagetrail-load does): a
# 610.x linkage needs it for its inlined take and admission.
good=$(pt_layout)
(for i in 1 2 3 4 5 6; do cuinit --gens 2 --seed $i > /tmp/bg.$i.out || exit 1; done) &
bg=$!
sleep 2
rmmod pagetrail
ok $? "rmmod pagetrail while cuinit runs"
insmod /pt/modules/pagetrail.ko target=nvsim $good
ok $? "reload while cuinit runs"
sleep 1
rmmod pagetrail
ok $? "rmmod again while cuinit runs"
wait $bg
ok $? "cuinit finished every run"
is "$(cat /tmp/bg.*.out | grep '^summary ' | field mmap_failed | sort -u)" 0 "no mmap failed in any run"
like "$(cat /sys/kernel/debug/nvsim/selfcheck | grep '^selfcheck ')" 'errors=0 ' "nvsim self-check passes"
nvsim_rmmod
ok $? "rmmod nvsim"
done_testing
