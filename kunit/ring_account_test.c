// SPDX-License-Identifier: GPL-2.0
/* KUnit: flight recorder loss accounting arithmetic (module/ring_account.c). */

#include <kunit/test.h>
#include <linux/limits.h>

#include "../module/ring_account.c"
#include "suites.h"

struct account_case {
	const char *desc;
	struct pt_ring_stats st;
	s64 unaccounted;	/* produced minus every destination */
	u64 lost;		/* overwritten + dropped_full + dropped_frozen */
};

#define ST(p, r, b, o, f, z) { .produced = (p), .read = (r), .buffered = (b), \
			       .overwritten = (o), .dropped_full = (f), .dropped_frozen = (z) }

static const struct account_case account_cases[] = {
	{ "nothing produced", ST(0, 0, 0, 0, 0, 0), 0, 0 },
	{ "all read", ST(10, 10, 0, 0, 0, 0), 0, 0 },
	{ "all still buffered", ST(10, 0, 10, 0, 0, 0), 0, 0 },
	{ "all overwritten", ST(10, 0, 0, 10, 0, 0), 0, 10 },
	{ "all dropped, ring full", ST(10, 0, 0, 0, 10, 0), 0, 10 },
	{ "all dropped, frozen", ST(10, 0, 0, 0, 0, 10), 0, 10 },
	{ "every destination", ST(21, 1, 2, 3, 5, 10), 0, 18 },
	{ "one record missing", ST(10, 4, 5, 0, 0, 0), 1, 0 },
	{ "three missing with losses", ST(100, 50, 7, 20, 10, 10), 3, 40 },
	{ "read counted twice", ST(10, 11, 0, 0, 0, 0), -1, 0 },
	{ "buffered counted twice", ST(10, 5, 6, 0, 0, 0), -1, 0 },
	{ "overwritten counted twice", ST(10, 5, 0, 6, 0, 0), -1, 6 },
	{ "dropped_full counted twice", ST(10, 5, 0, 0, 6, 0), -1, 6 },
	{ "dropped_frozen counted twice", ST(10, 5, 0, 0, 0, 6), -1, 6 },
	{ "nothing produced, one read", ST(0, 1, 0, 0, 0, 0), -1, 0 },
	{ "produced never counted", ST(0, 0, 3, 4, 0, 0), -7, 4 },
	/* Counters are free-running u64s: balance is modulo 2^64. */
	{ "balanced near the top", ST(U64_MAX, U64_MAX - 3, 1, 1, 1, 0), 0, 2 },
	{ "produced wrapped, balanced", ST(5, U64_MAX - 10, 16, 0, 0, 0), 0, 0 },
	{ "produced wrapped, 4 missing", ST(3, U64_MAX, 0, 0, 0, 0), 4, 0 },
	{ "gap past 2^63 reads negative", ST(U64_MAX, 1, 0, 0, 0, 0), -2, 0 },
	{ "loss sum wraps, balanced", ST(7, 7, 0, U64_MAX, 1, 0), 0, 0 },
};

static void account_case_desc(const struct account_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(account, account_cases, account_case_desc);

static void ring_account_unaccounted_is_signed_difference(struct kunit *test)
{
	const struct account_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, pt_ring_unaccounted(&c->st), c->unaccounted);
}

static void ring_account_lost_sums_the_loss_counters(struct kunit *test)
{
	const struct account_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, pt_ring_lost(&c->st), c->lost);
}

/* Read and buffered records are not losses, whatever their number. */
static void ring_account_read_and_buffered_are_not_lost(struct kunit *test)
{
	struct pt_ring_stats st = ST(U64_MAX, U64_MAX / 2, U64_MAX / 2, 0, 0, 1);

	KUNIT_EXPECT_EQ(test, pt_ring_lost(&st), 1ull);
	KUNIT_EXPECT_EQ(test, pt_ring_unaccounted(&st), 0ll);
}

/* Each record moving between counters keeps the books balanced. */
static void ring_account_moves_between_counters_keep_balance(struct kunit *test)
{
	struct pt_ring_stats st = {};
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		st.produced++;
		st.buffered++;
		if (i % 3 == 0) {
			st.buffered--;
			st.read++;
		} else if (i % 7 == 0) {
			st.buffered--;
			st.overwritten++;
		}
		if (i % 11 == 0) {
			st.produced++;
			st.dropped_frozen++;
		}
		if (i % 13 == 0) {
			st.produced++;
			st.dropped_full++;
		}
		if (pt_ring_unaccounted(&st))
			break;
	}
	KUNIT_EXPECT_EQ(test, i, 1000u);
	KUNIT_EXPECT_EQ(test, pt_ring_unaccounted(&st), 0ll);
	KUNIT_EXPECT_EQ(test, pt_ring_lost(&st), st.overwritten + st.dropped_full +
			st.dropped_frozen);
}

static struct kunit_case pt_ring_account_cases[] = {
	KUNIT_CASE_PARAM(ring_account_unaccounted_is_signed_difference, account_gen_params),
	KUNIT_CASE_PARAM(ring_account_lost_sums_the_loss_counters, account_gen_params),
	KUNIT_CASE(ring_account_read_and_buffered_are_not_lost),
	KUNIT_CASE(ring_account_moves_between_counters_keep_balance),
	{}
};

struct kunit_suite pt_ring_account_suite = {
	.name = "pagetrail_ring_account",
	.test_cases = pt_ring_account_cases,
};
