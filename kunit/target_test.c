// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: following the target (module/target.c) with a profile whose
 * attach fails after one of its handlers reported a wrong layout, as a
 * decode error during a failed attach at load does.
 */

/* target.c's own pr_fmt, before any header brings printk.h's. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/workqueue.h>

/*
 * KUnit runs a module's suites from the module notifier chain, with its
 * lock held: registering a notifier there never returns. Count instead.
 */
static int target_test_notifiers;

static int target_test_register(struct notifier_block *nb)
{
	target_test_notifiers++;
	return 0;
}

static int target_test_unregister(struct notifier_block *nb)
{
	target_test_notifiers--;
	return 0;
}

#define register_module_notifier(nb) target_test_register(nb)
#define unregister_module_notifier(nb) target_test_unregister(nb)

#include "../module/target.c"
#include "suites.h"

/* The rest of pagetrail, as target.c sees it: the target is always live. */
int pt_resolve_function(const char *name, unsigned long *addr)
{
	return 0;
}

void pt_tracker_set_partial(bool partial)
{
}

static int target_test_check(char *why, size_t len)
{
	return 0;
}

/* A handler saw a contradiction, then a later step failed. */
static int target_test_attach_fails(const char *target)
{
	pt_target_fail("kunit: layout contradicted");
	return -EIO;
}

static void target_test_detach(void)
{
}

static const struct pt_profile target_test_profile = {
	.name = "kunit",
	.anchor_symbol = "kunit_anchor",
	.check_params = target_test_check,
	.attach = target_test_attach_fails,
	.detach = target_test_detach,
};

static int target_test_init(struct kunit *test)
{
	target_test_notifiers = 0;
	pt_exiting = false;
	atomic_set(&pt_failing, 0);
	return pt_frames_init();
}

static void target_test_exit(struct kunit *test)
{
	pt_frames_exit();
}

/*
 * A failed load leaves nothing queued: the failure work is cancelled, and
 * the latch it would reset stays set, so nothing queues it again before
 * the module text goes away.
 */
static void target_failed_load_leaves_no_work(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test,
			pt_target_init(&target_test_profile, "kunit_target",
				       true),
			-EIO);
	KUNIT_EXPECT_FALSE(test, work_busy(&pt_fail_work));
	KUNIT_EXPECT_FALSE(test, work_busy(&pt_attach_work));
	/* Had it been left queued, it would run now and re-arm the latch. */
	flush_work(&pt_fail_work);
	KUNIT_EXPECT_TRUE(test, pt_target_failing());
	KUNIT_EXPECT_FALSE(test, pt_target_attached());
	/* And the module notifier is gone, as before. */
	KUNIT_EXPECT_EQ(test, target_test_notifiers, 0);
}

static struct kunit_case pt_target_cases[] = {
	KUNIT_CASE(target_failed_load_leaves_no_work),
	{}
};

struct kunit_suite pt_target_suite = {
	.name = "pagetrail_target",
	.init = target_test_init,
	.exit = target_test_exit,
	.test_cases = pt_target_cases,
};
