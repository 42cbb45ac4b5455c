/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail KUnit: run two functions at once, each in a kthread on its own CPU. */
#ifndef PAGETRAIL_KUNIT_TWO_CPUS_H
#define PAGETRAIL_KUNIT_TWO_CPUS_H

#include <kunit/test.h>

/*
 * fn[0](arg) on the first online CPU, fn[1](arg) on the next, started
 * together; returns when both have returned. Skips the test with one CPU
 * online; fails it if a thread cannot be made.
 */
void pt_kunit_two_cpus(struct kunit *test, const char *name,
		       int (*const fn[2])(void *), void *arg);

#endif /* PAGETRAIL_KUNIT_TWO_CPUS_H */
