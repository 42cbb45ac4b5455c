// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: record first's pre-filter (module/pending.c): staged admissions
 * count until interpreted, and a probe reading the pre-filter while the
 * consumer interprets the admission never sees neither the pending count
 * nor the table's filter. The table is table_test.c's copy of table.c.
 */

#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/sched.h>

#include "../module/pending.c"
#include "suites.h"
#include "two_cpus.h"

#define PT_PENDING_PFN 0x5150
#define PT_PENDING_ROUNDS 400

/*
 * The chunk of @pfn into the table (@tracked) or out of it, under its
 * shard lock with IRQs off, as the tracker does. False if the table had
 * no room.
 */
static bool pending_table_set(u64 pfn, bool tracked)
{
	unsigned int s = pt_table_shard(pfn);
	struct pt_chunk *c;
	unsigned long flags;
	bool ok = true;

	local_irq_save(flags);
	pt_table_lock(s, pfn);
	c = pt_table_find(pfn);
	if (tracked && !c)
		ok = pt_table_alloc(pfn, 0);
	else if (!tracked && c)
		pt_table_free(c);
	pt_table_unlock(s);
	local_irq_restore(flags);
	return ok;
}

static int pending_test_init(struct kunit *test)
{
	pt_pending_clear();
	pt_pending_enable(true);
	return pt_table_init(1024);
}

static void pending_test_exit(struct kunit *test)
{
	pt_pending_enable(false);
	pt_pending_clear();
	pt_table_exit();
}

static void pending_counts_until_interpreted(struct kunit *test)
{
	const u64 pfn = PT_PENDING_PFN;

	KUNIT_EXPECT_FALSE(test, pt_pending_or_tracked(pfn));
	/* Two admissions of one pfn staged: pending until both are read. */
	pt_pending_add(pfn);
	pt_pending_add(pfn);
	KUNIT_EXPECT_TRUE(test, pt_pending_or_tracked(pfn));
	pt_pending_done(pfn);
	KUNIT_EXPECT_TRUE(test, pt_pending_or_tracked(pfn));
	KUNIT_ASSERT_TRUE(test, pending_table_set(pfn, true));
	pt_pending_done(pfn);
	/* Interpreted: the table holds it now. */
	KUNIT_EXPECT_TRUE(test, pt_pending_or_tracked(pfn));
	pending_table_set(pfn, false);
	KUNIT_EXPECT_FALSE(test, pt_pending_or_tracked(pfn));
	/* A reset forgets what was staged. */
	pt_pending_add(pfn);
	pt_pending_clear();
	KUNIT_EXPECT_FALSE(test, pt_pending_or_tracked(pfn));
	/* record_first=0: the counts are not read at all. */
	pt_pending_add(pfn);
	pt_pending_enable(false);
	KUNIT_EXPECT_FALSE(test, pt_pending_or_tracked(pfn));
	pt_pending_enable(true);
	KUNIT_EXPECT_TRUE(test, pt_pending_or_tracked(pfn));
	pt_pending_done(pfn);
}

/*
 * A consumer on one CPU interprets an admission (the chunk into the table,
 * then not pending) while a probe on another reads the pre-filter in a
 * loop. Between the staging and the release that ends the round, every
 * read must pass. The consumer sleeps a tick before and after its two
 * writes, so the reader is interrupted at any point of its read, the gap
 * between its two reads included.
 */
struct pt_pending_race {
	unsigned long window; /* odd: staged or tracked, 2 * round + 1 */
	bool stop;
	int rounds;
	unsigned long reads, inside, misses;
};

static int pending_consumer_fn(void *arg)
{
	struct pt_pending_race *r = arg;
	const u64 pfn = PT_PENDING_PFN;
	int i;

	for (i = 0; i < r->rounds; i++) {
		pt_pending_add(pfn);
		/* Staged, then the window: the reader sees the count in it. */
		smp_store_release(&r->window, 2UL * i + 1);
		schedule_timeout_uninterruptible(1);
		if (!pending_table_set(pfn, true))
			break;
		pt_pending_done(pfn);
		schedule_timeout_uninterruptible(1);
		WRITE_ONCE(r->window, 2UL * i + 2);
		/* The window closed before the chunk leaves the filter. */
		smp_mb();
		pending_table_set(pfn, false);
	}
	r->rounds = i;
	WRITE_ONCE(r->stop, true);
	return 0;
}

static int pending_reader_fn(void *arg)
{
	struct pt_pending_race *r = arg;
	unsigned long w;
	bool pass;

	while (!READ_ONCE(r->stop)) {
		/* The window, then the read: its count is seen (release). */
		w = smp_load_acquire(&r->window);
		pass = pt_pending_or_tracked(PT_PENDING_PFN);
		/* The read, then the window again: still open, still inside. */
		smp_rmb();
		if ((w & 1) && READ_ONCE(r->window) == w) {
			r->inside++;
			r->misses += !pass;
		}
		if (++r->reads % 4096 == 0)
			cond_resched();
	}
	return 0;
}

static void pending_never_lost_while_interpreted(struct kunit *test)
{
	static int (*const fn[2])(void *) = { pending_reader_fn,
					      pending_consumer_fn };
	struct pt_pending_race *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->rounds = PT_PENDING_ROUNDS;
	pt_kunit_two_cpus(test, "pt_pending", fn, r);
	KUNIT_EXPECT_EQ(test, r->rounds, PT_PENDING_ROUNDS);
	KUNIT_EXPECT_GT(test, r->inside, 0UL);
	KUNIT_EXPECT_EQ(test, r->misses, 0UL);
	kunit_info(test,
		   "%d rounds: %lu reads, %lu inside a window, %lu missed\n",
		   r->rounds, r->reads, r->inside, r->misses);
}

static struct kunit_case pt_pending_cases[] = {
	KUNIT_CASE(pending_counts_until_interpreted),
	KUNIT_CASE_SLOW(pending_never_lost_while_interpreted),
	{}
};

struct kunit_suite pt_pending_suite = {
	.name = "pagetrail_pending",
	.init = pending_test_init,
	.exit = pending_test_exit,
	.test_cases = pt_pending_cases,
};
