# SPDX-License-Identifier: GPL-2.0
# Runner self-test: a kernel report the scenario declares (expect_report)
# is excused in its window only; the same warning again, undeclared and
# outside the window, must still fail the boot.
. /pt/lib/tap.sh
plan 2
expect_report 'WARNING: .*pt_broken_warn_init'
insmod /pt/modules/pt_broken_warn.ko
ok $? "insmod pt_broken_warn inside expect_report (excused)"
expect_end
rmmod pt_broken_warn
# past the runner's 1 s margin around the window
sleep 2.5
insmod /pt/modules/pt_broken_warn.ko
ok $? "insmod pt_broken_warn again, undeclared (fails the boot)"
rmmod pt_broken_warn
done_testing
