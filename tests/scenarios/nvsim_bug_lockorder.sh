# SPDX-License-Identifier: GPL-2.0
# Harness self-test: nvsim's inject_bug=lockorder takes two mutexes in
# opposite orders on the allocate and free paths. Every assertion here
# passes, and on a lockdep kernel the runner must still fail the boot
# ("possible circular locking dependency").
. /pt/lib/tap.sh

plan 4
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"
echo lockorder > /sys/module/nvsim/parameters/inject_bug
is "$(cat /sys/module/nvsim/parameters/inject_bug)" lockorder "inject_bug=lockorder"
cuinit --gens 1 > /tmp/cuinit.out
is "$(grep '^summary ' /tmp/cuinit.out | field mmap_failed)" 0 "cuinit ran normally"
echo none > /sys/module/nvsim/parameters/inject_bug
rmmod nvsim
ok $? "rmmod nvsim"
done_testing
