// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the NVIDIA profile's allocation numbers and counters
 * (module/nvidia/layout.c, alloc.c; code-review-2 finding 8) and the cap
 * on what one handler walks (finding 6).
 */

/* The profile's own pr_fmt, before any header brings printk.h's. */
#include "../module/nvidia/layout.c"
#include "../module/nvidia/alloc.c"

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/sort.h>
#include "suites.h"

/* The rest of pagetrail, as these files see it. */
unsigned int nv_fallbacks;
unsigned long nv_pools;

u64 pt_token(unsigned long ptr)
{
	return ptr;
}

static unsigned int nvidia_test_observed;

/* pt_observe() is inline: record first is off here, so it interprets. */
bool pt_stage_on;

bool pt_observe_made(const struct pt_obs *obs, const struct pt_made *made)
{
	nvidia_test_observed++;
	return true;
}

bool pt_stage_push(enum pt_stage_kind kind, const struct pt_obs *obs,
		   unsigned int n)
{
	return false;
}

/* Nothing is held here (frames_test.c): observed at once. */
void pt_hold_observe(struct pt_frame *f, const struct pt_obs *obs)
{
	pt_observe(obs);
}

/* The walks here sample nothing; pt_sample_page() (inline) calls these. */
void pt_sample_struct_page(struct page *page, struct pt_obs *obs)
{
}

void pt_sample_no_page(u64 pfn, struct pt_obs *obs)
{
}

/* Record first's batches: these walks observe one by one here. */
bool pt_stage_batch_open(void)
{
	return false;
}

void pt_stage_batch_close(bool opened)
{
}

u32 nv_take_by_state(unsigned long at, struct pt_frame *alloc, u32 first,
		     u32 nr)
{
	return 0;
}

void nv_take_by_walk(unsigned long at, struct pt_frame *take, u32 first,
		     u32 nr)
{
}

void nv_admit_at_release(struct pt_frame *release, unsigned long at)
{
}

void nv_admit_end(struct pt_frame *release)
{
}

static int nvidia_test_init(struct kunit *test)
{
	nv_stats_reset();
	return pt_frames_init();
}

static void nvidia_test_exit(struct kunit *test)
{
	pt_frames_exit();
}

/* nv_alloc_system_pages(nv, at) entered on this CPU: its number. */
static u32 nvidia_test_alloc(unsigned long at)
{
	struct pt_regs regs = {};
	struct nv_frame_data d = {};
	u32 seq;

#if defined(CONFIG_X86_64)
	regs.si = at;
#elif defined(CONFIG_ARM64)
	regs.regs[1] = at;
#else
#error "nvidia_test: set the second argument register for this architecture"
#endif
	if (nv_alloc_entry(NULL, &regs, &d) || !d.f)
		return 0;
	seq = d.f->alloc_seq;
	pt_frame_pop(d.f);
	return seq;
}

#define NVIDIA_TEST_CPUS 8
#define NVIDIA_TEST_ALLOCS 20000

struct nvidia_test_allocator {
	u32 *seq;
	unsigned int n; /* allocations done, published when all are */
};

static int nvidia_test_allocator(void *arg)
{
	struct nvidia_test_allocator *a = arg;
	unsigned int i;

	for (i = 0; i < NVIDIA_TEST_ALLOCS; i++) {
		a->seq[i] = nvidia_test_alloc(0x1000 + i);
		/* Another allocation's counters, as mmap and insert add them. */
		atomic64_inc(&nv_stats.mmaps);
		if (i % 64 == 0)
			cond_resched();
	}
	/* Pairs with the test's acquire: every seq[] is written. */
	smp_store_release(&a->n, i);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int nvidia_test_resetter(void *arg)
{
	unsigned long *resets = arg;

	while (!kthread_should_stop()) {
		nv_stats_reset();
		(*resets)++;
		cond_resched();
	}
	return 0;
}

static int nvidia_test_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Allocations entered on every CPU while another thread resets the stats
 * over and over (the debugfs 'reset' command): every allocation gets a
 * number of its own, and together they are the next numbers in a row.
 * With alloc_seq saved and restored around a memset, an increment between
 * the save and the restore was undone and its number handed out again.
 */
static void nvidia_alloc_numbers_unique_across_reset(struct kunit *test)
{
	struct nvidia_test_allocator a[NVIDIA_TEST_CPUS] = {};
	struct task_struct *t[NVIDIA_TEST_CPUS], *resetter;
	unsigned long resets = 0;
	unsigned int total = 0, dups = 0, i, j;
	int cpu, n = 0, rcpu;
	u32 base = nv_allocations(), *all;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	rcpu = cpumask_last(cpu_online_mask);
	for_each_online_cpu(cpu) {
		if (n == NVIDIA_TEST_CPUS)
			break;
		a[n].seq = kunit_kcalloc(test, NVIDIA_TEST_ALLOCS, sizeof(u32),
					 GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, a[n].seq);
		t[n] = kthread_create(nvidia_test_allocator, &a[n],
				      "pt_nv_test/%d", cpu);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[n]));
		kthread_bind(t[n], cpu);
		n++;
	}
	resetter = kthread_create(nvidia_test_resetter, &resets,
				  "pt_nv_reset/%d", rcpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR(resetter));
	kthread_bind(resetter, rcpu);
	wake_up_process(resetter);
	for (i = 0; i < n; i++)
		wake_up_process(t[i]);
	/* Pairs with the allocator's release: its seq[] is all written. */
	for (i = 0; i < n; i++)
		while (smp_load_acquire(&a[i].n) != NVIDIA_TEST_ALLOCS)
			msleep(20);
	kthread_stop(resetter);
	for (i = 0; i < n; i++)
		kthread_stop(t[i]);

	all = kunit_kcalloc(test, n * NVIDIA_TEST_ALLOCS, sizeof(u32),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, all);
	for (i = 0; i < n; i++)
		for (j = 0; j < NVIDIA_TEST_ALLOCS; j++)
			all[total++] = a[i].seq[j];
	sort(all, total, sizeof(*all), nvidia_test_cmp, NULL);
	for (i = 1; i < total; i++)
		dups += all[i] == all[i - 1];
	kunit_info(test, "%u allocations on %d CPUs, %lu resets\n", total, n,
		   resets);
	KUNIT_EXPECT_GT(test, resets, 0ul);
	KUNIT_EXPECT_EQ(test, dups, 0u);
	KUNIT_EXPECT_EQ(test, all[0], base + 1);
	KUNIT_EXPECT_EQ(test, all[total - 1], base + total);
	KUNIT_EXPECT_EQ(test, nv_allocations(), base + total);
}

/* A reset clears every counter, the per-role ones too, and no number. */
static void nvidia_reset_clears_every_counter(struct kunit *test)
{
	atomic64_t *c = (atomic64_t *)&nv_stats;
	size_t i, nr = sizeof(nv_stats) / sizeof(*c);
	u32 seq = nvidia_test_alloc(0x2000);

	for (i = 0; i < nr; i++)
		atomic64_set(&c[i], i + 1);
	nv_stats_reset();
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&c[i]), 0ll,
				    "counter %zu of %zu", i, nr);
	KUNIT_EXPECT_EQ(test, nv_allocations(), seq);
	KUNIT_EXPECT_EQ(test, nvidia_test_alloc(0x2000), seq + 1);
}

/*
 * An allocation of @chunks order-0 chunks, page_table of nvidia_pte_t
 * entries in @ptes, at @at (nv_alloc_t), under nv_layout's offsets.
 */
struct nvidia_test_alloc_t {
	unsigned long page_table;
	u32 num_pages;
	u32 order;
};

struct nvidia_test_pte {
	unsigned long phys;
	unsigned long virt;
};

/*
 * A walk of an allocation stops at nv_walk_max chunks and counts the rest
 * by its role; the cap cannot be raised past the build's.
 */
static void nvidia_walk_stops_at_the_cap_and_counts_the_rest(struct kunit *test)
{
	const u32 chunks = 300, cap = 64;
	struct nvidia_test_alloc_t *at;
	struct nvidia_test_pte *ptes;
	struct pt_obs obs = { .role = PT_ROLE_ADMIT };
	unsigned int old = nv_walk_max;
	void *page;
	u32 i;

	/* pagetrail_target leaves it set, as a failed load does. */
	if (pt_target_failing())
		kunit_skip(test, "the failing latch is set: walks stop at once");
	at = kunit_kzalloc(test, sizeof(*at), GFP_KERNEL);
	ptes = kunit_kcalloc(test, chunks, sizeof(*ptes), GFP_KERNEL);
	page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, at);
	KUNIT_ASSERT_NOT_NULL(test, ptes);
	KUNIT_ASSERT_NOT_NULL(test, page);
	for (i = 0; i < chunks; i++) {
		ptes[i].virt = (unsigned long)page;
		ptes[i].phys = __pa(page);
	}
	at->page_table = (unsigned long)ptes;
	at->num_pages = chunks;
	at->order = 0;
	nv_layout.alloc_page_table = offsetof(typeof(*at), page_table);
	nv_layout.alloc_num_pages = offsetof(typeof(*at), num_pages);
	nv_layout.alloc_order = offsetof(typeof(*at), order);
	nv_layout.pte_size = sizeof(*ptes);
	nv_layout.pte_virt_addr = offsetof(typeof(*ptes), virt);
	nv_layout.pte_phys_addr = offsetof(typeof(*ptes), phys);
	nv_layout.max_page_order = 10;

	nv_walk_max = cap;
	nvidia_test_observed = 0;
	nv_walk_alloc_chunks((unsigned long)at, &obs, false);
	KUNIT_EXPECT_EQ(test, nvidia_test_observed, cap);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nv_stats.walks_truncated), 1ll);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nv_stats.not_walked[PT_ROLE_ADMIT]),
			(long long)(chunks - cap));

	/* Within the cap: nothing left out. */
	nv_walk_max = chunks;
	nvidia_test_observed = 0;
	obs.role = PT_ROLE_RELEASE;
	nv_walk_alloc_chunks((unsigned long)at, &obs, false);
	KUNIT_EXPECT_EQ(test, nvidia_test_observed, chunks);
	KUNIT_EXPECT_EQ(test, atomic64_read(&nv_stats.walks_truncated), 1ll);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&nv_stats.not_walked[PT_ROLE_RELEASE]),
			0ll);

	/* A range past the cap counts only the range's rest. */
	nv_walk_max = 10;
	nvidia_test_observed = 0;
	obs.role = PT_ROLE_ASSIGN;
	nv_walk_alloc_range((unsigned long)at, 100, 50, &obs, false);
	KUNIT_EXPECT_EQ(test, nvidia_test_observed, 10u);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&nv_stats.not_walked[PT_ROLE_ASSIGN]),
			40ll);

	/* 0 or too much: clamped to [1, the build's cap]. */
	nv_walk_max = 0;
	KUNIT_EXPECT_EQ(test, nv_walk_cap(), 1u);
	nv_walk_max = UINT_MAX;
	KUNIT_EXPECT_EQ(test, nv_walk_cap(), PT_NV_WALK_CHUNKS);
	KUNIT_EXPECT_LE(test, PT_NV_WALK_CHUNKS,
			IS_ENABLED(CONFIG_PREEMPT_RT) ? 2048u : 65536u);
	nv_walk_max = old;
}

static struct kunit_case nvidia_cases[] = {
	KUNIT_CASE(nvidia_reset_clears_every_counter),
	KUNIT_CASE(nvidia_walk_stops_at_the_cap_and_counts_the_rest),
	KUNIT_CASE_SLOW(nvidia_alloc_numbers_unique_across_reset),
	{}
};

struct kunit_suite pt_nvidia_suite = {
	.name = "pagetrail_nvidia",
	.init = nvidia_test_init,
	.exit = nvidia_test_exit,
	.test_cases = nvidia_cases,
};
