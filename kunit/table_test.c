// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the chunk table (module/table.c) and the recent-window history
 * (module/history.c): containing lookups across orders, shard locks for
 * orders above MAX_PAGE_ORDER, recycling, history links and their
 * validation, and the bytes each chunk costs; the window of freed chunks
 * reused outside the driver (module/reused.c).
 */

#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>

#include "../module/table.c"
#include "../module/history.c"
#include "../module/reused.c"
#include "suites.h"

static int table_test_init(struct kunit *test)
{
	return pt_table_init(1024);
}

static void table_test_exit(struct kunit *test)
{
	pt_table_exit();
}

/* Under its shard lock, as the tracker does; IRQs off as the probes have. */
static struct pt_chunk *table_add(u64 pfn, u8 order, u8 state)
{
	unsigned int s = pt_table_shard(pfn);
	struct pt_chunk *c;
	unsigned long flags;

	local_irq_save(flags);
	pt_table_lock(s, pfn);
	c = pt_table_alloc(pfn, order);
	if (c)
		c->state = state;
	pt_table_unlock(s);
	local_irq_restore(flags);
	return c;
}

static struct pt_chunk *table_containing(u64 pfn, unsigned int *shard)
{
	struct pt_chunk *c;
	unsigned long flags;

	local_irq_save(flags);
	c = pt_table_lock_containing(pfn, shard);
	pt_table_unlock(*shard);
	local_irq_restore(flags);
	return c;
}

static void table_sizes_fit_the_budget(struct kunit *test)
{
	unsigned int cap = pt_table_capacity();
	size_t hist = (size_t)(cap / 64 * 9) * sizeof(struct pt_hist_entry);

	KUNIT_EXPECT_EQ(test, sizeof(struct pt_chunk), 48);
	KUNIT_EXPECT_EQ(test, sizeof(struct pt_hist_entry), 64);
	/* Chunk, link, bucket share and history window: 64 bytes at most. */
	KUNIT_EXPECT_LE(test, (pt_table_bytes() + hist) / cap, 64);
}

static void table_finds_containing_chunk_at_every_order(struct kunit *test)
{
	struct pt_chunk *c0, *c3, *c9;
	unsigned int shard;

	c0 = table_add(0x1000, 0, PT_ST_ASSIGNED);
	c3 = table_add(0x2008, 3, PT_ST_ASSIGNED);
	c9 = table_add(0x4200, 9, PT_ST_POOLED);
	KUNIT_ASSERT_NOT_NULL(test, c0);
	KUNIT_ASSERT_NOT_NULL(test, c3);
	KUNIT_ASSERT_NOT_NULL(test, c9);
	KUNIT_EXPECT_PTR_EQ(test, table_containing(0x1000, &shard), c0);
	KUNIT_EXPECT_PTR_EQ(test, table_containing(0x200f, &shard), c3);
	KUNIT_EXPECT_EQ(test, shard, pt_table_shard(0x2008));
	KUNIT_EXPECT_PTR_EQ(test, table_containing(0x43ff, &shard), c9);
	/* Aligned to order 3 but inside no order-3 chunk: nothing. */
	KUNIT_EXPECT_NULL(test, table_containing(0x2010, &shard));
	KUNIT_EXPECT_EQ(test, shard, pt_table_shard(0x2010));
	/* The pfn itself wins over a containing head. */
	c0 = table_add(0x4201, 0, PT_ST_TAKEN);
	KUNIT_EXPECT_PTR_EQ(test, table_containing(0x4201, &shard), c0);
	KUNIT_EXPECT_PTR_EQ(test, table_containing(0x4202, &shard), c9);
}

/* Above MAX_PAGE_ORDER a chunk spans many regions: one lock, its head's. */
static void table_locks_the_head_shard_for_large_orders(struct kunit *test)
{
	u64 head = 0x100000; /* order 14: 64 MiB */
	struct pt_chunk *big, *inner, *live;
	unsigned int shard;

	big = table_add(head, 14, PT_ST_ASSIGNED);
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_EXPECT_PTR_EQ(test, table_containing(head + 0x2f01, &shard), big);
	KUNIT_EXPECT_EQ(test, shard, pt_table_shard(head));
	/*
	 * A freed chunk inside a live one is older history: the live one
	 * contains the pfn, however large (no walk forgot the freed one).
	 */
	inner = table_add(head + 0x3000, 0, PT_ST_FREED);
	live = table_add(head + 0x3001, 0, PT_ST_MAPPED);
	KUNIT_ASSERT_NOT_NULL(test, inner);
	KUNIT_ASSERT_NOT_NULL(test, live);
	KUNIT_EXPECT_PTR_EQ(test, table_containing(head + 0x3000, &shard), big);
	KUNIT_EXPECT_EQ(test, shard, pt_table_shard(head));
	KUNIT_EXPECT_PTR_EQ(test, table_containing(head + 0x3001, &shard),
			    live);
	/* With nothing live around it, the freed chunk is the answer. */
	big->state = PT_ST_FREED;
	KUNIT_EXPECT_PTR_EQ(test, table_containing(head + 0x3000, &shard),
			    inner);
	KUNIT_EXPECT_EQ(test, shard, pt_table_shard(head + 0x3000));
}

/* Up to the buddy allocator's largest order, freed chunks inside are forgotten. */
static void table_forgets_freed_chunks_inside_a_new_one(struct kunit *test)
{
	u64 head = 0x200000; /* order 10: the longest walk */
	unsigned int s;
	unsigned long flags;

	KUNIT_ASSERT_NOT_NULL(test, table_add(head + 0x3ff, 0, PT_ST_FREED));
	KUNIT_ASSERT_NOT_NULL(test, table_add(head + 0x100, 0, PT_ST_MAPPED));
	KUNIT_ASSERT_NOT_NULL(test, table_add(head, 10, PT_ST_ASSIGNED));
	local_irq_save(flags);
	pt_table_forget_freed_inside(head, 10);
	s = pt_table_shard(head + 0x3ff);
	pt_table_lock(s, head + 0x3ff);
	KUNIT_EXPECT_NULL(test, pt_table_find(head + 0x3ff));
	pt_table_unlock(s);
	s = pt_table_shard(head + 0x100);
	pt_table_lock(s, head + 0x100);
	KUNIT_EXPECT_NOT_NULL(test, pt_table_find(head + 0x100));
	pt_table_unlock(s);
	local_irq_restore(flags);
}

/*
 * The walk runs with IRQs off: an order-22 chunk (16 GiB, or a garbage
 * order that passed the plausibility check) must not cost 4 million
 * lookups there. A millisecond-scale bound: the old walk took seconds.
 */
static void table_forget_walk_is_bounded(struct kunit *test)
{
	unsigned long flags;
	u64 t0, ns;

	local_irq_save(flags);
	t0 = ktime_get_ns();
	pt_table_forget_freed_inside(0x40000000, 22);
	ns = ktime_get_ns() - t0;
	local_irq_restore(flags);
	KUNIT_EXPECT_LT(test, ns, 20 * NSEC_PER_MSEC);
}

static void table_recycles_freed_chunks_when_full(struct kunit *test)
{
	struct pt_table_stats st;
	unsigned int i, cap = pt_table_capacity();

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_NOT_NULL(test, table_add(0x10000 + i, 0,
						      i % 2 ? PT_ST_FREED :
							      PT_ST_POOLED));
	/* Full of entries: the next ones take freed chunks' places. */
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_NOT_NULL(test,
				      table_add(0x90000 + i, 0, PT_ST_POOLED));
	pt_table_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.recycled, 8);
	KUNIT_EXPECT_EQ(test, st.full, 0);
	KUNIT_EXPECT_EQ(test, st.tracked, cap);
}

static void table_full_of_live_chunks_says_so(struct kunit *test)
{
	struct pt_table_stats st;
	unsigned int i, cap = pt_table_capacity();

	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_NOT_NULL(test,
				      table_add(0x10000 + i, 0, PT_ST_POOLED));
	KUNIT_EXPECT_NULL(test, table_add(0x90000, 0, PT_ST_POOLED));
	pt_table_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.full, 1);
	KUNIT_EXPECT_EQ(test, st.recycled, 0);
}

/* A freed entry goes back to its shard's list and is used again. */
static void table_reuses_freed_entries(struct kunit *test)
{
	struct pt_chunk *a, *b;
	unsigned long flags;
	unsigned int s;

	a = table_add(0x5000, 0, PT_ST_POOLED);
	KUNIT_ASSERT_NOT_NULL(test, a);
	s = pt_table_shard(0x5000);
	local_irq_save(flags);
	pt_table_lock(s, 0x5000);
	pt_table_free(a);
	KUNIT_EXPECT_NULL(test, pt_table_find(0x5000));
	b = pt_table_alloc(0x5000, 0);
	pt_table_unlock(s);
	local_irq_restore(flags);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_EQ(test, (u32)b->hist, 0u);
}

static void table_filter_counts_exactly(struct kunit *test)
{
	struct pt_table_stats st;
	struct pt_chunk *c;
	unsigned long flags;

	c = table_add(0x7777, 0, PT_ST_POOLED);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_TRUE(test, pt_table_maybe_tracked(0x7777));
	local_irq_save(flags);
	pt_table_lock(pt_table_shard(0x7777), 0x7777);
	pt_table_free(c);
	pt_table_unlock(pt_table_shard(0x7777));
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, pt_table_maybe_tracked(0x7777));
	pt_table_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.filter_used, 0);
	KUNIT_EXPECT_EQ(test, st.tracked, 0);
}

static u64 hist_seq;

static u32 hist_push(u64 pfn, u8 role, u32 newest)
{
	struct pagetrail_record r = {
		.seq = ++hist_seq,
		.pfn = pfn,
		.role = role,
		.pid = 7,
		.generation = (u32)hist_seq,
		.comm = "kunit",
	};

	return pt_history_push(&r, pfn, newest);
}

static void history_links_a_chunk_backwards(struct kunit *test)
{
	struct pt_hist h[PT_HIST_LEN];
	u32 a = 0, b = 0;
	unsigned int n, i;

	KUNIT_ASSERT_EQ(test, pt_history_init(16), 0);
	for (i = 0; i < 5; i++) {
		a = hist_push(0xa000, PT_ROLE_ADMIT + (i % 3), a);
		b = hist_push(0xb000, PT_ROLE_TAKE, b);
	}
	n = pt_history_read(0xa000, a, h, PT_HIST_LEN);
	KUNIT_EXPECT_EQ(test, n, 5);
	/* Oldest first, and only 0xa000's. */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, h[i].role, PT_ROLE_ADMIT + (i % 3));
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_LT(test, h[i - 1].generation, h[i].generation);
	/* At most what the caller asks for: the newest ones. */
	n = pt_history_read(0xa000, a, h, 2);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, h[1].role, PT_ROLE_ADMIT + 1);
	pt_history_exit();
}

/* Once the window wraps, an overwritten entry ends the history there. */
static void history_stops_at_overwritten_entries(struct kunit *test)
{
	struct pt_hist h[PT_HIST_LEN];
	u32 a = 0, b = 0;
	unsigned int i, n;

	KUNIT_ASSERT_EQ(test, pt_history_init(16), 0);
	for (i = 0; i < 3; i++)
		a = hist_push(0xa000, PT_ROLE_ADMIT, a);
	for (i = 0; i < 14; i++)
		b = hist_push(0xb000, PT_ROLE_TAKE, b);
	/* 17 pushes into 16 slots: 0xa000's oldest is gone, two remain. */
	n = pt_history_read(0xa000, a, h, PT_HIST_LEN);
	KUNIT_EXPECT_EQ(test, n, 2);
	for (i = 0; i < 16; i++)
		b = hist_push(0xb000, PT_ROLE_TAKE, b);
	/* All gone: never another pfn's entries in their place. */
	KUNIT_EXPECT_EQ(test, pt_history_read(0xa000, a, h, PT_HIST_LEN), 0);
	n = pt_history_read(0xb000, b, h, PT_HIST_LEN);
	KUNIT_EXPECT_EQ(test, n, PT_HIST_LEN);
	/* A chunk that has none (a fresh entry) reads none. */
	KUNIT_EXPECT_EQ(test, pt_history_read(0xb000, 0, h, PT_HIST_LEN), 0);
	pt_history_exit();
}

/* A reused chunk is found by any of its pages, only by them, in its epoch. */
static void reused_window_covers_the_whole_chunk(struct kunit *test)
{
	pt_reused_clear();
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x1000, 1));
	pt_reused_note(0x1000, 4, 1);
	pt_reused_note(0x2345, 0, 1);
	KUNIT_EXPECT_TRUE(test, pt_reused_contains(0x1000, 1));
	KUNIT_EXPECT_TRUE(test, pt_reused_contains(0x100f, 1));
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x1010, 1));
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x0fff, 1));
	KUNIT_EXPECT_TRUE(test, pt_reused_contains(0x2345, 1));
	/* Noted before the last attach: what happened since is unknown. */
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x2345, 2));
	/* 0x2340 is an order-4 head, but no order-4 chunk starts there. */
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x2346, 1));
	pt_reused_clear();
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x1000, 1));
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(0x2345, 1));
}

/*
 * The driver owning the head again ends the story; dropping another pfn
 * that hashes to the same slot does not; a newer chunk of the same hash
 * replaces an older one (the window is lossy, never wrong).
 */
static void reused_window_drop_and_overwrite(struct kunit *test)
{
	u64 a = 0x40000, b = a + 1;

	while (hash_64(b, PT_REUSED_BITS) != hash_64(a, PT_REUSED_BITS))
		b++;
	pt_reused_clear();
	pt_reused_note(a, 0, 1);
	pt_reused_drop(b);
	KUNIT_EXPECT_TRUE(test, pt_reused_contains(a, 1));
	pt_reused_drop(a);
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(a, 1));
	pt_reused_note(a, 0, 1);
	pt_reused_note(b, 0, 1);
	KUNIT_EXPECT_FALSE(test, pt_reused_contains(a, 1));
	KUNIT_EXPECT_TRUE(test, pt_reused_contains(b, 1));
	KUNIT_EXPECT_EQ(test, pt_reused_bytes(), (size_t)32768);
	pt_reused_clear();
}

static struct kunit_case pt_table_cases[] = {
	KUNIT_CASE(table_sizes_fit_the_budget),
	KUNIT_CASE(table_finds_containing_chunk_at_every_order),
	KUNIT_CASE(table_locks_the_head_shard_for_large_orders),
	KUNIT_CASE(table_forgets_freed_chunks_inside_a_new_one),
	KUNIT_CASE(table_forget_walk_is_bounded),
	KUNIT_CASE(table_recycles_freed_chunks_when_full),
	KUNIT_CASE(table_full_of_live_chunks_says_so),
	KUNIT_CASE(table_reuses_freed_entries),
	KUNIT_CASE(table_filter_counts_exactly),
	KUNIT_CASE(history_links_a_chunk_backwards),
	KUNIT_CASE(history_stops_at_overwritten_entries),
	KUNIT_CASE(reused_window_covers_the_whole_chunk),
	KUNIT_CASE(reused_window_drop_and_overwrite),
	{}
};

struct kunit_suite pt_table_suite = {
	.name = "pagetrail_table",
	.init = table_test_init,
	.exit = table_test_exit,
	.test_cases = pt_table_cases,
};
