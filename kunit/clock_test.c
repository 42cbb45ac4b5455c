// SPDX-License-Identifier: GPL-2.0
/* KUnit: the stamps' clock (module/clock.c). */

/* First: it defines pr_fmt, which kunit/test.h's printk.h would. */
#include "../module/clock.c"

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>

#include "suites.h"

#define PT_CLOCK_ROUNDS 20000
#define PT_CLOCK_HANDOVERS 4000

static void pt_clock_modes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pt_clock_init("sometimes"), -EINVAL);
	KUNIT_EXPECT_EQ(test, pt_clock_init("local"), 0);
	KUNIT_EXPECT_FALSE(test, pt_clock_is_causal());
	KUNIT_EXPECT_STREQ(test, pt_clock_name(), "local");
	KUNIT_EXPECT_EQ(test, pt_clock_init("causal"), 0);
	KUNIT_EXPECT_TRUE(test, pt_clock_is_causal());
	KUNIT_EXPECT_STREQ(test, pt_clock_name(), "causal");
	KUNIT_EXPECT_EQ(test, pt_clock_init("auto"), 0);
	KUNIT_EXPECT_NE(test, strlen(pt_clock_reason()), 0);
	kunit_info(test, "auto: %s (%s)\n", pt_clock_name(), pt_clock_reason());
}

/* One CPU: strictly increasing, never behind local_clock() read before. */
static void pt_clock_causal_one_cpu(struct kunit *test)
{
	u64 prev = 0, before, t;
	int i, bad_order = 0, behind = 0;

	KUNIT_ASSERT_EQ(test, pt_clock_init("causal"), 0);
	for (i = 0; i < PT_CLOCK_ROUNDS; i++) {
		before = local_clock();
		t = pt_clock_now();
		bad_order += t <= prev;
		behind += t < before;
		prev = t;
	}
	KUNIT_EXPECT_EQ(test, bad_order, 0);
	KUNIT_EXPECT_EQ(test, behind, 0);
}

/*
 * Two CPUs hand a token back and forth, each stamping when it holds it:
 * every stamp follows, in time, the stamp of the hand-over before it,
 * however far apart the two CPUs' own clocks are.
 */
struct pt_clock_relay {
	atomic_t turn; /* whose turn: the round number's parity */
	u64 last; /* the previous holder's stamp, published with turn */
	int backwards; /* a stamp not after the one handed over */
	int local_backwards; /* the same with local_clock(): not asserted */
	int rounds;
	struct completion done[2];
};

struct pt_clock_runner {
	struct pt_clock_relay *relay;
	int me;
};

static int pt_clock_relay_fn(void *arg)
{
	struct pt_clock_runner *run = arg;
	struct pt_clock_relay *r = run->relay;
	int me = run->me, round;

	for (round = me; round < r->rounds; round += 2) {
		unsigned long spins = 0;
		u64 t, l;

		while (atomic_read_acquire(&r->turn) != round) {
			cpu_relax();
			if (++spins % 4096 == 0)
				cond_resched();
		}
		l = local_clock();
		t = pt_clock_now();
		if (round) {
			r->backwards += t <= r->last;
			r->local_backwards += l <= r->last;
		}
		r->last = t;
		atomic_set_release(&r->turn, round + 1);
	}
	complete(&r->done[me]);
	return 0;
}

static void pt_clock_causal_across_cpus(struct kunit *test)
{
	struct pt_clock_runner run[2];
	struct pt_clock_relay *r;
	struct task_struct *t[2];
	int cpu[2], i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	KUNIT_ASSERT_EQ(test, pt_clock_init("causal"), 0);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rounds = PT_CLOCK_HANDOVERS;
	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	for (i = 0; i < 2; i++) {
		init_completion(&r->done[i]);
		run[i].relay = r;
		run[i].me = i;
		t[i] = kthread_create(pt_clock_relay_fn, &run[i], "pt_clock/%d",
				      i);
		if (IS_ERR(t[i])) {
			if (i)
				kthread_stop(t[0]); /* never woken: never ran */
			KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(t[i]));
			return;
		}
		kthread_bind(t[i], cpu[i]);
	}
	for (i = 0; i < 2; i++)
		wake_up_process(t[i]);
	for (i = 0; i < 2; i++)
		wait_for_completion(&r->done[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->turn), r->rounds);
	KUNIT_EXPECT_EQ(test, r->backwards, 0);
	kunit_info(test, "%d hand-overs: local_clock() went back at %d\n",
		   r->rounds - 1, r->local_backwards);
}

static void pt_clock_exit(struct kunit *test)
{
	pt_clock_init("auto");
}

static struct kunit_case pt_clock_cases[] = {
	KUNIT_CASE(pt_clock_modes),
	KUNIT_CASE(pt_clock_causal_one_cpu),
	KUNIT_CASE_SLOW(pt_clock_causal_across_cpus),
	{}
};

struct kunit_suite pt_clock_suite = {
	.name = "pagetrail_clock",
	.exit = pt_clock_exit,
	.test_cases = pt_clock_cases,
};
