// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the flight recorder's slots (module/ring.c): order, stop-on-full,
 * overwrite with and without a reader in between, a mode switch while
 * lapped, reset, the merge of CPUs by sequence number (a number taken but
 * not yet published on another CPU included), a reader lapped at every
 * copy, and writers streaming on every CPU. A ring of four records,
 * written with IRQs off as the recorder writes.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/smp.h>

static void ring_test_before_copy(int cpu);
#define pt_ring_test_before_copy(cpu) ring_test_before_copy(cpu)

#include "../module/ring.c"
#include "suites.h"

#define RING_SLOTS 4

static atomic64_t ring_test_seq;
/* Records the seam writes on the CPU being read, one per copy, while > 0. */
static atomic_t ring_test_laps;

static u64 ring_test_issued(void)
{
	return atomic64_read(&ring_test_seq);
}

/* As the recorder does it: section, number, record, end of section. */
static u64 ring_put_slow(unsigned int hold_us)
{
	struct pagetrail_record rec = {};
	unsigned long flags;

	local_irq_save(flags);
	pt_ring_enter(atomic64_read(&ring_test_seq) + 1);
	rec.seq = atomic64_inc_return(&ring_test_seq);
	rec.pfn = rec.seq * 3;
	if (hold_us)
		udelay(hold_us);
	pt_ring_write(&rec);
	pt_ring_leave();
	local_irq_restore(flags);
	return rec.seq;
}

static void ring_put(void)
{
	ring_put_slow(0);
}

static void ring_put_remote(void *unused)
{
	ring_put(); /* an IPI: IRQs are off, as for a writer */
}

static void ring_test_before_copy(int cpu)
{
	if (atomic_add_unless(&ring_test_laps, -1, 0))
		smp_call_function_single(cpu, ring_put_remote, NULL, 1);
}

static void ring_put_n(unsigned int n)
{
	while (n--)
		ring_put();
}

static int ring_test_init(struct kunit *test)
{
	atomic64_set(&ring_test_seq, 0);
	atomic_set(&ring_test_laps, 0);
	/* One byte short of a fifth record: the slots are whole records. */
	return pt_ring_init(RING_SLOTS * sizeof(struct pagetrail_record) + 127,
			    false, ring_test_issued);
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
			pt_ring_init(sizeof(struct pagetrail_record), true,
				     ring_test_issued),
			-EINVAL);
	KUNIT_EXPECT_EQ(
		test,
		pt_ring_init(RING_SLOTS * sizeof(struct pagetrail_record), true,
			     ring_test_issued),
		0);
}

/*
 * Overwrite mode, full ring, and the writer laps the reader between its
 * choice of a slot and its copy, every time: the reader steps ahead of
 * the writer and reads after one retry, instead of chasing the slot the
 * writer fills next for as long as the writer goes on.
 */
static void ring_lapped_reader_still_reads(struct kunit *test)
{
	pt_ring_set_overwrite(true);
	ring_put_n(RING_SLOTS);
	atomic_set(&ring_test_laps, 100);
	/* 1 lapped (5 replaced it); 2 skipped, one slot ahead; 6 laps nothing. */
	ring_expect_next(test, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ring_test_laps), 98);
	ring_expect_stats(test, RING_SLOTS + 2, 1, 3, 2, 0, 0);
	atomic_set(&ring_test_laps, 0);
	ring_expect_run(test, 4, 6);
}

/* A CPU that holds a number and publishes it late; another that reads. */
struct ring_race {
	unsigned int hold_ms;
	int stamped; /* the holder has its number */
	int published; /* the holder's record is in its slots */
	int put_before_publish; /* the reader's CPU wrote while it held */
	u64 held_seq, put_seq, first, second;
	int done;
};

static void ring_park(void)
{
	while (!kthread_should_stop())
		msleep(20);
}

static int ring_holder(void *arg)
{
	struct ring_race *r = arg;
	struct pagetrail_record rec = {};
	unsigned long flags;

	local_irq_save(flags);
	pt_ring_enter(atomic64_read(&ring_test_seq) + 1);
	rec.seq = atomic64_inc_return(&ring_test_seq);
	rec.pfn = rec.seq * 3;
	r->held_seq = rec.seq;
	/* The racer may write now: its number will be higher. */
	smp_store_release(&r->stamped, 1);
	mdelay(r->hold_ms);
	pt_ring_write(&rec);
	pt_ring_leave();
	local_irq_restore(flags);
	/* Tells the racer whether it raced: after the record is out. */
	smp_store_release(&r->published, 1);
	ring_park();
	return 0;
}

static int ring_racer(void *arg)
{
	struct ring_race *r = arg;
	struct pagetrail_record rec;
	unsigned long end = jiffies + 10 * HZ;

	/* Pairs with the holder's release of stamped, then of published. */
	while (!smp_load_acquire(&r->stamped) && time_before(jiffies, end))
		cond_resched();
	r->put_seq = ring_put_slow(0);
	/* Still held after our write? Then the read below races it. */
	r->put_before_publish = !smp_load_acquire(&r->published);
	r->first = pt_ring_read(&rec) ? rec.seq : 0;
	r->second = pt_ring_read(&rec) ? rec.seq : 0;
	/* The results, then done: pairs with the test's acquire. */
	smp_store_release(&r->done, 1);
	ring_park();
	return 0;
}

/* Created and bound, not yet woken. */
static struct task_struct *ring_start_on(struct kunit *test, int (*fn)(void *),
					 void *arg, int cpu)
{
	struct task_struct *t = kthread_create(fn, arg, "pt_ring_test/%d", cpu);

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	return t;
}

/*
 * CPU A takes number 1 and holds it unpublished; CPU B then writes 2 and
 * reads at once: it must wait for 1 and read 1 before 2, not take an
 * empty-looking A for a CPU with nothing older.
 */
static void ring_waits_for_a_number_taken_elsewhere(struct kunit *test)
{
	struct ring_race r = { .hold_ms = 300 };
	struct task_struct *holder, *racer;
	int a, b;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	holder = ring_start_on(test, ring_holder, &r, a);
	racer = ring_start_on(test, ring_racer, &r, b);
	/* Both exist before CPU a turns IRQs off for the hold. */
	wake_up_process(racer);
	wake_up_process(holder);
	/* Pairs with the racer's release: its results are in r. */
	while (!smp_load_acquire(&r.done))
		msleep(20);
	kthread_stop(racer);
	kthread_stop(holder);
	KUNIT_ASSERT_EQ(test, r.held_seq, 1ull);
	KUNIT_ASSERT_EQ(test, r.put_seq, 2ull);
	/* Otherwise the race did not happen: the order proves nothing. */
	KUNIT_EXPECT_TRUE(test, r.put_before_publish);
	KUNIT_EXPECT_EQ(test, r.first, 1ull);
	KUNIT_EXPECT_EQ(test, r.second, 2ull);
}

/* Writers on every online CPU; each section held a little to widen races. */
struct ring_storm {
	int stop;
	unsigned long written;
};

static int ring_storm_writer(void *arg)
{
	struct ring_storm *w = arg;
	unsigned long n = 0;

	while (!READ_ONCE(w->stop)) {
		ring_put_slow(n % 3);
		if (++n % 16 == 0)
			usleep_range(20, 50);
	}
	WRITE_ONCE(w->written, n);
	ring_park();
	return 0;
}

#define RING_STORM_CPUS 8

/*
 * While every CPU writes, the reader's sequence strictly increases and it
 * keeps reading (at least a record per 10 ms); once the writers stop, the
 * rest drains and every record is read or counted lost.
 */
static void ring_storm(struct kunit *test, bool overwrite)
{
	struct task_struct *t[RING_STORM_CPUS];
	struct ring_storm w[RING_STORM_CPUS] = {};
	unsigned long end, nread = 0, backwards = 0, written = 0;
	struct pagetrail_record rec;
	struct pt_ring_stats st;
	u64 last = 0;
	int cpu, n = 0, i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	pt_ring_exit();
	KUNIT_ASSERT_EQ(
		test,
		pt_ring_init(64 * sizeof(rec), overwrite, ring_test_issued), 0);
	for_each_online_cpu(cpu) {
		if (n == RING_STORM_CPUS)
			break;
		t[n] = ring_start_on(test, ring_storm_writer, &w[n], cpu);
		wake_up_process(t[n++]);
	}
	end = jiffies + msecs_to_jiffies(1000);
	while (time_before(jiffies, end)) {
		if (!pt_ring_read(&rec)) {
			cond_resched();
			continue;
		}
		backwards += rec.seq <= last;
		last = rec.seq;
		nread++;
	}
	for (i = 0; i < n; i++)
		WRITE_ONCE(w[i].stop, 1);
	for (i = 0; i < n; i++) {
		kthread_stop(t[i]);
		written += w[i].written;
	}
	while (pt_ring_read(&rec)) {
		backwards += rec.seq <= last;
		last = rec.seq;
		nread++;
	}
	KUNIT_EXPECT_EQ(test, backwards, 0ul);
	KUNIT_EXPECT_GE(test, nread, 100ul);
	pt_ring_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.produced, (u64)written);
	KUNIT_EXPECT_EQ(test, st.read, (u64)nread);
	KUNIT_EXPECT_EQ(test, st.buffered, 0ull);
	KUNIT_EXPECT_EQ(test, pt_ring_unaccounted(&st), 0ll);
	kunit_info(test, "%d writers: %lu written, %lu read, %llu lost\n", n,
		   written, nread, pt_ring_lost(&st));
}

static void ring_storm_overwrite_reads_in_order(struct kunit *test)
{
	ring_storm(test, true);
}

static void ring_storm_stop_reads_in_order(struct kunit *test)
{
	ring_storm(test, false);
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
	KUNIT_CASE(ring_lapped_reader_still_reads),
	KUNIT_CASE(ring_waits_for_a_number_taken_elsewhere),
	KUNIT_CASE_SLOW(ring_storm_overwrite_reads_in_order),
	KUNIT_CASE_SLOW(ring_storm_stop_reads_in_order),
	{}
};

struct kunit_suite pt_ring_suite = {
	.name = "pagetrail_ring",
	.init = ring_test_init,
	.exit = ring_test_exit,
	.test_cases = pt_ring_cases,
};
