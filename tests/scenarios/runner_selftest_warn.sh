# SPDX-License-Identifier: GPL-2.0
# Runner self-test: every assertion passes, but the module warns at load,
# so the runner must still fail the boot.
. /pt/lib/tap.sh
plan 1
insmod /pt/modules/pt_broken_warn.ko
ok $? "insmod pt_broken_warn (warns on purpose)"
rmmod pt_broken_warn
done_testing
