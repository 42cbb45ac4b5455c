/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail KUnit: the suites, one per tested file, registered by suites.c. */
#ifndef PAGETRAIL_KUNIT_SUITES_H
#define PAGETRAIL_KUNIT_SUITES_H

#include <kunit/test.h>

extern struct kunit_suite pt_rules_suite;
extern struct kunit_suite pt_record_suite;
extern struct kunit_suite pt_control_suite;
extern struct kunit_suite pt_ring_account_suite;
extern struct kunit_suite pt_layout_suite;
extern struct kunit_suite pt_memsafe_suite;
extern struct kunit_suite pt_frames_suite;
extern struct kunit_suite pt_table_suite;
extern struct kunit_suite pt_ring_suite;
extern struct kunit_suite pt_target_suite;
extern struct kunit_suite pt_nvidia_suite;
extern struct kunit_suite pt_clock_suite;
extern struct kunit_suite pt_pending_suite;
extern struct kunit_suite pt_staged_suite;

#endif /* PAGETRAIL_KUNIT_SUITES_H */
