# SPDX-License-Identifier: GPL-2.0
# Load pagetrail, see its debugfs tree, unload it cleanly.
. /pt/lib/tap.sh
plan 3
insmod /pt/modules/pagetrail.ko
ok $? "insmod pagetrail"
test -d /sys/kernel/debug/pagetrail
ok $? "debugfs directory exists"
rmmod pagetrail
ok $? "rmmod pagetrail"
done_testing
