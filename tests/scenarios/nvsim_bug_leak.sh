# SPDX-License-Identifier: GPL-2.0
# Harness self-test: nvsim's inject_bug=leak leaks one kmalloc per
# allocation. Every assertion here passes, and on a kmemleak kernel the
# runner must still fail the boot ("unreferenced object" at the final scan).
. /pt/lib/tap.sh
. /pt/lib/nvsim.sh

plan 5
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
echo leak > /sys/module/nvsim/parameters/inject_bug
is "$(cat /sys/module/nvsim/parameters/inject_bug)" leak "inject_bug=leak"
cuinit --gens 1 > /tmp/cuinit.out
is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "cuinit ran normally"
is "$(nv inject_leaks)" 9 "one leaked object per allocation (9)"
echo none > /sys/module/nvsim/parameters/inject_bug
rmmod nvsim
ok $? "rmmod nvsim (the leaked objects stay behind)"
done_testing
