// SPDX-License-Identifier: GPL-2.0
/* pagetrail KUnit: one module, every suite, so one insmod prints one KTAP run. */

#include <linux/module.h>
#include <kunit/test.h>

#include "suites.h"

kunit_test_suites(&pt_rules_suite, &pt_record_suite, &pt_control_suite,
		  &pt_ring_account_suite, &pt_layout_suite, &pt_memsafe_suite,
		  &pt_frames_suite, &pt_table_suite, &pt_ring_suite,
		  &pt_nvidia_suite, &pt_target_suite, &pt_clock_suite,
		  &pt_pending_suite, &pt_staged_suite);

MODULE_DESCRIPTION("pagetrail KUnit suites: rules, records, control, ring accounting, layout, memsafe, frames, table, ring, nvidia, target, clock, pending, staged");
MODULE_LICENSE("GPL");
