// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the flight recorder's slots (module/ring.c): order, stop-on-full,
 * overwrite with and without a reader in between, a mode switch while
 * lapped, reset, and the merge of two CPUs by sequence number. A ring of
 * four records, written with IRQs off as the recorder writes.
 */

#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/smp.h>

#include "../module/ring.c"
#include "suites.h"

#define RING_SLOTS 4

static u64 ring_test_seq;

static void ring_put(void)
{
	struct pagetrail_record rec = { .seq = ++ring_test_seq };
	unsigned long flags;

	rec.pfn = rec.seq * 3;
	local_irq_save(flags);
	pt_ring_write(&rec);
	local_irq_restore(flags);
}

static void ring_put_n(unsigned int n)
{
	while (n--)
		ring_put();
}

static int ring_test_init(struct kunit *test)
{
	ring_test_seq = 0;
	/* One byte short of a fifth record: the slots are whole records. */
	return pt_ring_init(RING_SLOTS * sizeof(struct pagetrail_record) + 127,
			    false);
}

static void ring_test_exit(struct kunit *test)
{
	pt_ring_exit();
}

/* Every counter, and the books balance. */
static void ring_expect_stats(struct kunit *test, u64 produced, u64 read,
			      u64 buffered, u64 overwritten, u64 dropped_full,
			      u64 dropped_frozen)
{
	struct pt_ring_stats st;

	pt_ring_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.produced, produced);
	KUNIT_EXPECT_EQ(test, st.read, read);
	KUNIT_EXPECT_EQ(test, st.buffered, buffered);
	KUNIT_EXPECT_EQ(test, st.overwritten, overwritten);
	KUNIT_EXPECT_EQ(test, st.dropped_full, dropped_full);
	KUNIT_EXPECT_EQ(test, st.dropped_frozen, dropped_frozen);
	KUNIT_EXPECT_EQ(test, pt_ring_unaccounted(&st), 0ll);
}

/* Reads the next record; expects it to be @seq, with its own payload. */
static void ring_expect_next(struct kunit *test, u64 seq)
{
	struct pagetrail_record rec;

	KUNIT_ASSERT_TRUE(test, pt_ring_read(&rec));
	KUNIT_EXPECT_EQ(test, rec.seq, seq);
	KUNIT_EXPECT_EQ(test, rec.pfn, seq * 3);
}

/* Reads records @first..@last, in that order. */
static void ring_expect_run(struct kunit *test, u64 first, u64 last)
{
	u64 seq;

	for (seq = first; seq <= last; seq++)
		ring_expect_next(test, seq);
}

static void ring_reads_in_order_then_empty(struct kunit *test)
{
	struct pagetrail_record rec;

	KUNIT_EXPECT_FALSE(test, pt_ring_read(&rec));
	ring_put_n(3);
	ring_expect_stats(test, 3, 0, 3, 0, 0, 0);
	ring_expect_run(test, 1, 2);
	ring_put(); /* written between two reads */
	ring_expect_run(test, 3, 4);
	KUNIT_EXPECT_FALSE(test, pt_ring_read(&rec));
	ring_expect_stats(test, 4, 4, 0, 0, 0, 0);
}

static void ring_stop_mode_drops_the_newest(struct kunit *test)
{
	struct pagetrail_record rec;

	ring_put_n(RING_SLOTS + 3);
	ring_expect_stats(test, RING_SLOTS + 3, 0, RING_SLOTS, 0, 3, 0);
	ring_expect_next(test, 1);
	/* A slot read is free again: the next record fits. */
	ring_put();
	ring_expect_run(test, 2, 4);
	ring_expect_next(test, RING_SLOTS + 4);
	KUNIT_EXPECT_FALSE(test, pt_ring_read(&rec));
	ring_expect_stats(test, RING_SLOTS + 4, 5, 0, 0, 3, 0);
}

static void ring_overwrite_keeps_the_newest(struct kunit *test)
{
	pt_ring_set_overwrite(true);
	ring_put_n(RING_SLOTS + 5);
	/* Counted as overwritten before any reader skipped them. */
	ring_expect_stats(test, RING_SLOTS + 5, 0, RING_SLOTS, 5, 0, 0);
	ring_expect_next(test, 6);
	ring_expect_stats(test, RING_SLOTS + 5, 1, RING_SLOTS - 1, 5, 0, 0);
	/* The writer laps the reader again: two more replaced. */
	ring_put_n(3);
	ring_expect_run(test, 9, 10);
	ring_expect_stats(test, RING_SLOTS + 8, 3, 2, 7, 0, 0);
}

/* Lapped in overwrite mode, then stop mode: new records wait for room. */
static void ring_switch_to_stop_while_lapped(struct kunit *test)
{
	struct pagetrail_record rec;

	pt_ring_set_overwrite(true);
	ring_put_n(RING_SLOTS + 2);
	pt_ring_set_overwrite(false);
	ring_put();
	ring_expect_stats(test, RING_SLOTS + 3, 0, RING_SLOTS, 2, 1, 0);
	ring_expect_next(test, 3);
	ring_put();
	ring_expect_run(test, 4, 6);
	ring_expect_next(test, RING_SLOTS + 4);
	KUNIT_EXPECT_FALSE(test, pt_ring_read(&rec));
	ring_expect_stats(test, RING_SLOTS + 4, 5, 0, 2, 1, 0);
}

static void ring_frozen_records_are_counted(struct kunit *test)
{
	unsigned long flags;

	local_irq_save(flags);
	pt_ring_count_frozen();
	local_irq_restore(flags);
	ring_expect_stats(test, 1, 0, 0, 0, 0, 1);
}

static void ring_reset_clears_records_and_counters(struct kunit *test)
{
	struct pagetrail_record rec;

	pt_ring_set_overwrite(true);
	ring_put_n(RING_SLOTS + 1);
	ring_expect_next(test, 2);
	pt_ring_reset();
	KUNIT_EXPECT_FALSE(test, pt_ring_read(&rec));
	ring_expect_stats(test, 0, 0, 0, 0, 0, 0);
	ring_put();
	ring_expect_next(test, RING_SLOTS + 2);
	ring_expect_stats(test, 1, 1, 0, 0, 0, 0);
}

static void ring_put_remote(void *unused)
{
	ring_put(); /* an IPI: IRQs are off, as for a writer */
}

/* Two CPUs' slots are merged by sequence number, not by CPU. */
static void ring_merges_cpus_by_sequence(struct kunit *test)
{
	struct pagetrail_record rec;
	int self, other;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	self = get_cpu();
	other = cpumask_any_but(cpu_online_mask, self);
	ring_put(); /* 1 here */
	smp_call_function_single(other, ring_put_remote, NULL, 1); /* 2 */
	smp_call_function_single(other, ring_put_remote, NULL, 1); /* 3 */
	ring_put(); /* 4 here */
	put_cpu();
	/* CPU by CPU would read 1, 4, 2, 3 or 2, 3, 1, 4. */
	ring_expect_run(test, 1, 4);
	KUNIT_EXPECT_FALSE(test, pt_ring_read(&rec));
	ring_expect_stats(test, 4, 4, 0, 0, 0, 0);
}

static void ring_refuses_a_size_under_two_records(struct kunit *test)
{
	pt_ring_exit();
	KUNIT_EXPECT_EQ(test,
			pt_ring_init(sizeof(struct pagetrail_record), true),
			-EINVAL);
	KUNIT_EXPECT_EQ(
		test,
		pt_ring_init(RING_SLOTS * sizeof(struct pagetrail_record),
			     true),
		0);
}

static struct kunit_case pt_ring_cases[] = {
	KUNIT_CASE(ring_reads_in_order_then_empty),
	KUNIT_CASE(ring_stop_mode_drops_the_newest),
	KUNIT_CASE(ring_overwrite_keeps_the_newest),
	KUNIT_CASE(ring_switch_to_stop_while_lapped),
	KUNIT_CASE(ring_frozen_records_are_counted),
	KUNIT_CASE(ring_reset_clears_records_and_counters),
	KUNIT_CASE(ring_merges_cpus_by_sequence),
	KUNIT_CASE(ring_refuses_a_size_under_two_records),
	{}
};

struct kunit_suite pt_ring_suite = {
	.name = "pagetrail_ring",
	.init = ring_test_init,
	.exit = ring_test_exit,
	.test_cases = pt_ring_cases,
};
