// SPDX-License-Identifier: GPL-2.0
/* KUnit: the per-task frame table (module/frames.c, code-review F18). */

/* First: it defines pr_fmt before any header does. */
#include "../module/frames.c"

#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include "suites.h"

/* What calls hold (hold.c) is record first's: these suites hold nothing. */
int pt_hold_init(void)
{
	return 0;
}

void pt_hold_exit(void)
{
}

void pt_hold_flush(struct pt_frame *f)
{
}

void pt_hold_drop(struct pt_frame *f)
{
}

static int frames_test_init(struct kunit *test)
{
	return pt_frames_init();
}

static void frames_test_exit(struct kunit *test)
{
	pt_frames_exit();
}

static void frames_table_follows_the_cpus(struct kunit *test)
{
	KUNIT_EXPECT_GE(test, pt_frames_slots(), 256u);
	KUNIT_EXPECT_GE(test, pt_frames_slots(), 16u * num_possible_cpus());
	KUNIT_EXPECT_TRUE(test, is_power_of_2(pt_frames_slots()));
}

static void frames_push_find_pop(struct kunit *test)
{
	struct pt_frame *outer = pt_frame_push(1), *inner;

	KUNIT_ASSERT_NOT_NULL(test, outer);
	inner = pt_frame_push(2);
	KUNIT_ASSERT_NOT_NULL(test, inner);
	KUNIT_EXPECT_PTR_EQ(test, pt_frame_find(1), outer);
	KUNIT_EXPECT_PTR_EQ(test, pt_frame_innermost(BIT(1) | BIT(2)), inner);
	pt_frame_pop(inner);
	pt_frame_pop(outer);
	KUNIT_EXPECT_FALSE(test, pt_frames_active());
}

/* A task that died inside a driver frame: its successor at the same address. */
static void frames_reused_task_struct_starts_empty(struct kunit *test)
{
	struct pt_frames_stats st;
	struct pt_task_frames *slot;

	pt_frames_reset_stats();
	KUNIT_ASSERT_NOT_NULL(test, pt_frame_push(1));
	slot = pt_slot_of(current, false);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	slot->start_time = current->start_time + 1; /* the previous owner's */
	KUNIT_EXPECT_NULL(test, pt_frame_find(1));
	pt_frames_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.unbalanced, 1ull);
	/* The slot is the new task's now, and works as usual. */
	KUNIT_EXPECT_NOT_NULL(test, pt_frame_push(3));
	KUNIT_EXPECT_NOT_NULL(test, pt_frame_find(3));
	pt_frames_reset();
}

/*
 * A detach in progress: a frame whose return probe went first is still
 * there, and its call data with it is about to be freed; no lookup finds
 * it until the frames are reset.
 */
static void frames_stopped_at_detach_are_not_found(struct kunit *test)
{
	struct pt_frame *f = pt_frame_push(1), *a, *b;

	KUNIT_ASSERT_NOT_NULL(test, f);
	pt_frames_stop();
	KUNIT_EXPECT_NULL(test, pt_frame_find(1));
	KUNIT_EXPECT_NULL(test, pt_frame_innermost(BIT(1)));
	pt_frame_find2(1, &a, 2, &b);
	KUNIT_EXPECT_NULL(test, a);
	pt_frames_reset();
	KUNIT_EXPECT_FALSE(test, pt_frames_active());
	f = pt_frame_push(1);
	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_EXPECT_PTR_EQ(test, pt_frame_find(1), f);
	pt_frame_pop(f);
}

static struct kunit_case frames_cases[] = {
	KUNIT_CASE(frames_table_follows_the_cpus),
	KUNIT_CASE(frames_push_find_pop),
	KUNIT_CASE(frames_reused_task_struct_starts_empty),
	KUNIT_CASE(frames_stopped_at_detach_are_not_found),
	{}
};

struct kunit_suite pt_frames_suite = {
	.name = "pagetrail_frames",
	.init = frames_test_init,
	.exit = frames_test_exit,
	.test_cases = frames_cases,
};
