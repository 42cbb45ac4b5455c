// SPDX-License-Identifier: GPL-2.0
/* KUnit: the stamps' clock (module/clock.c). */

/* First: it defines pr_fmt, which kunit/test.h's printk.h would. */
#include "../module/clock.c"

#include <kunit/test.h>
#include "suites.h"
#include "two_cpus.h"

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
 * however far apart the two CPUs' own clocks are. Round n is the holder
 * n % 2's: each thread counts its own rounds.
 */
struct pt_clock_relay {
	atomic_t turn; /* the round now, published with last */
	atomic_t next_me; /* hands each thread its parity */
	u64 last; /* the previous holder's stamp */
	int backwards; /* a stamp not after the one handed over */
	int local_backwards; /* the same with local_clock(): not asserted */
	int rounds;
};

static int pt_clock_relay_fn(void *arg)
{
	struct pt_clock_relay *r = arg;
	int round = atomic_inc_return(&r->next_me) - 1;

	for (; round < r->rounds; round += 2) {
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
	return 0;
}

static void pt_clock_causal_across_cpus(struct kunit *test)
{
	static int (*const fn[2])(void *) = { pt_clock_relay_fn,
					      pt_clock_relay_fn };
	struct pt_clock_relay *r;

	KUNIT_ASSERT_EQ(test, pt_clock_init("causal"), 0);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rounds = PT_CLOCK_HANDOVERS;
	pt_kunit_two_cpus(test, "pt_clock", fn, r);
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
