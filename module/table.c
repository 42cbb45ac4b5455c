// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the chunk table (see table.h). Nothing here is global on the
 * hot path: the shard lock of the chunk, per-shard free lists, a bump
 * index for entries never used, per-CPU counters and a counting pre-filter
 * updated with per-slot atomics. Only a full table reaches into other
 * shards, with trylock (no lock order to respect, no deadlock).
 */

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/cache.h>
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/overflow.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <uapi/pagetrail.h>
#include <pagetrail/orders.h>
#include <pagetrail/table.h>

static_assert(sizeof(struct pt_chunk) == 48);
static_assert(PT_ST_MAX <= 16); /* state:4 */

/*
 * 2^20 counters: a free or allocation of an untracked page costs one byte
 * read. Counting (not a bitmap) so that forgotten chunks leave it again
 * and the filter stays as selective on day ten as after a fresh load; a
 * counter that reached 255 stays set (never a false "untracked").
 */
#define PT_FILTER_BITS 20
#define PT_FILTER_STUCK U8_MAX
#define PT_NIL U32_MAX
#define PT_NO_PFN U64_MAX
/* The buddy allocator's largest order on x86: the longest forget walk. */
#define PT_FORGET_MAX_ORDER 10
/* A full table looks at this many chunks for a freed one before giving up. */
#define PT_RECYCLE_PROBES 256

struct pt_shard {
	raw_spinlock_t lock;
	u32 free; /* free list, through pt_links */
	u64 holder; /* pfn the holder locked for: tells contention apart */
} ____cacheline_aligned_in_smp;

static struct pt_chunk *pt_chunks;
static u32 *pt_links; /* bucket chain or free list, per chunk */
static u32 *pt_buckets;
static unsigned int pt_capacity;
static unsigned int pt_bucket_bits;
static struct pt_shard *pt_shards;
static unsigned int pt_nr_shards;
static atomic_t pt_unused; /* entries [pt_unused, capacity) never handed out */
static atomic_t pt_hand; /* recycling sweeps from here */
static u8 *pt_filter;
static unsigned long pt_orders_seen; /* bit per chunk order ever tracked */
static DEFINE_PER_CPU(struct pt_table_stats, pt_table_pcpu);

static inline struct pt_table_stats *pt_table_count(void)
{
	return this_cpu_ptr(&pt_table_pcpu);
}

static inline unsigned int pt_bucket(u64 pfn)
{
	return hash_64(pfn, pt_bucket_bits);
}

unsigned int pt_table_shard(u64 pfn)
{
	return pt_bucket(pfn) & (pt_nr_shards - 1);
}

static inline u32 pt_index(const struct pt_chunk *c)
{
	return c - pt_chunks;
}

void pt_table_clear(void)
{
	unsigned int i;
	int cpu;

	for (i = 0; i < pt_nr_shards; i++)
		pt_shards[i].free = PT_NIL;
	memset(pt_buckets, 0xff, sizeof(*pt_buckets) << pt_bucket_bits);
	memset(pt_chunks, 0, sizeof(*pt_chunks) * pt_capacity);
	atomic_set(&pt_unused, 0);
	atomic_set(&pt_hand, 0);
	memset(pt_filter, 0, 1u << PT_FILTER_BITS);
	WRITE_ONCE(pt_orders_seen, 0);
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&pt_table_pcpu, cpu), 0,
		       sizeof(struct pt_table_stats));
}

/*
 * vmalloc, never kmalloc: the kernel's counters (VmallocUsed) then show
 * every byte, as they do not show a large kmalloc; a failure is reported
 * once by the caller, not by the allocator.
 */
void *pt_table_vzalloc(size_t n, size_t size)
{
	return __vmalloc(array_size(n, size),
			 GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
}

void pt_table_exit(void)
{
	vfree(pt_chunks);
	vfree(pt_links);
	vfree(pt_buckets);
	vfree(pt_filter);
	vfree(pt_shards);
	pt_chunks = NULL;
	pt_links = NULL;
	pt_buckets = NULL;
	pt_filter = NULL;
	pt_shards = NULL;
}

/*
 * A bucket per four chunks (at most one byte per chunk). Shards: 64 per
 * CPU, 4096 at least, so that two CPUs busy on different chunks meet on a
 * lock by chance once in thousands of overlaps (a cache line each, 256 KiB
 * for up to 64 CPUs); never more than buckets.
 */
int pt_table_init(unsigned int capacity)
{
	unsigned int i;

	pt_capacity = capacity;
	pt_bucket_bits = ilog2(max(rounddown_pow_of_two(capacity) / 4, 16u));
	pt_nr_shards = clamp(roundup_pow_of_two(num_possible_cpus() * 64),
			     4096ul, 65536ul);
	pt_nr_shards = min(pt_nr_shards, 1u << pt_bucket_bits);
	pt_chunks = pt_table_vzalloc(capacity, sizeof(*pt_chunks));
	pt_links = pt_table_vzalloc(capacity, sizeof(*pt_links));
	pt_buckets =
		pt_table_vzalloc(1u << pt_bucket_bits, sizeof(*pt_buckets));
	pt_filter = pt_table_vzalloc(1u << PT_FILTER_BITS, 1);
	pt_shards = pt_table_vzalloc(pt_nr_shards, sizeof(*pt_shards));
	if (!pt_chunks || !pt_links || !pt_buckets || !pt_filter ||
	    !pt_shards) {
		pt_table_exit();
		return -ENOMEM;
	}
	for (i = 0; i < pt_nr_shards; i++)
		raw_spin_lock_init(&pt_shards[i].lock);
	pt_table_clear();
	return 0;
}

unsigned int pt_table_capacity(void)
{
	return pt_capacity;
}

unsigned int pt_table_shards(void)
{
	return pt_nr_shards;
}

/* What grows with the capacity: chunks, their links and the buckets. */
size_t pt_table_bytes(void)
{
	return (size_t)pt_capacity * (sizeof(*pt_chunks) + sizeof(*pt_links)) +
	       (sizeof(*pt_buckets) << pt_bucket_bits);
}

/* What does not: the pre-filter and the shards. */
size_t pt_table_fixed_bytes(void)
{
	return (1u << PT_FILTER_BITS) + pt_nr_shards * sizeof(*pt_shards);
}

void pt_table_get_stats(struct pt_table_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct pt_table_stats *c =
			per_cpu_ptr(&pt_table_pcpu, cpu);

		st->tracked += READ_ONCE(c->tracked);
		st->recycled += READ_ONCE(c->recycled);
		st->full += READ_ONCE(c->full);
		st->filter_used += READ_ONCE(c->filter_used);
		st->locked += READ_ONCE(c->locked);
		st->contended_same += READ_ONCE(c->contended_same);
		st->contended_other += READ_ONCE(c->contended_other);
	}
}

/*
 * Take the lock, and say whom we waited for: the holder's chunk, or
 * another one that hashed to the same shard (the contention this design
 * exists to make rare; pt_lockstat asserts on it).
 */
void pt_table_lock(unsigned int shard, u64 pfn) __acquires(pt_shard_lock)
{
	struct pt_shard *s = &pt_shards[shard];
	struct pt_table_stats *st = pt_table_count();

	if (!raw_spin_trylock(&s->lock)) {
		if (READ_ONCE(s->holder) == pfn)
			st->contended_same++;
		else
			st->contended_other++;
		raw_spin_lock(&s->lock);
	}
	WRITE_ONCE(s->holder, pfn);
	st->locked++;
}

void pt_table_unlock(unsigned int shard) __releases(pt_shard_lock)
{
	raw_spin_unlock(&pt_shards[shard].lock);
}

/* Lock-free pre-filter: false means the pfn is certainly not tracked. */
bool pt_table_maybe_tracked(u64 pfn)
{
	return READ_ONCE(pt_filter[hash_64(pfn, PT_FILTER_BITS)]);
}

/* Exact: chunks of different shards share counters. */
static void pt_filter_add(u64 pfn)
{
	u8 *c = &pt_filter[hash_64(pfn, PT_FILTER_BITS)];
	u8 old = READ_ONCE(*c);

	do {
		if (old == PT_FILTER_STUCK)
			return;
	} while (!try_cmpxchg(c, &old, old + 1));
	if (!old)
		pt_table_count()->filter_used++;
}

static void pt_filter_remove(u64 pfn)
{
	u8 *c = &pt_filter[hash_64(pfn, PT_FILTER_BITS)];
	u8 old = READ_ONCE(*c);

	do {
		if (!old || old == PT_FILTER_STUCK)
			return;
	} while (!try_cmpxchg(c, &old, old - 1));
	if (old == 1)
		pt_table_count()->filter_used--;
}

struct pt_chunk *pt_table_find(u64 pfn)
{
	u32 i;

	for (i = pt_buckets[pt_bucket(pfn)]; i != PT_NIL; i = pt_links[i])
		if (pt_chunks[i].pfn == pfn)
			return &pt_chunks[i];
	return NULL;
}

void pt_table_note_order(u8 order)
{
	pt_orders_note(&pt_orders_seen, order);
}

/* Out of its bucket (under its shard's lock). */
static void pt_unlink(struct pt_chunk *c)
{
	u32 *p = &pt_buckets[pt_bucket(c->pfn)];
	u32 i = pt_index(c);

	while (*p != PT_NIL && *p != i)
		p = &pt_links[*p];
	if (*p == i)
		*p = pt_links[i];
	pt_filter_remove(c->pfn);
	c->in_use = 0;
	pt_table_count()->tracked--;
}

void pt_table_free(struct pt_chunk *c)
{
	struct pt_shard *s = &pt_shards[pt_table_shard(c->pfn)];
	u32 i = pt_index(c);

	pt_unlink(c);
	pt_links[i] = s->free;
	s->free = i;
}

static u32 pt_pop_free(struct pt_shard *s)
{
	u32 i = s->free;

	if (i != PT_NIL)
		s->free = pt_links[i];
	return i;
}

/* A free entry of @s, if it has one and its lock is free right now. */
static u32 pt_steal_from(struct pt_shard *s)
{
	u32 i;

	if (READ_ONCE(s->free) == PT_NIL)
		return PT_NIL;
	if (!raw_spin_trylock(&s->lock))
		return PT_NIL;
	i = pt_pop_free(s);
	raw_spin_unlock(&s->lock);
	return i;
}

/* Another shard's free entry; no lock is waited for. */
static u32 pt_steal_free(unsigned int own)
{
	unsigned int k;
	u32 i = PT_NIL;

	for (k = 1; k < pt_nr_shards && i == PT_NIL; k++)
		i = pt_steal_from(&pt_shards[(own + k) & (pt_nr_shards - 1)]);
	return i;
}

/* Under its shard's lock: forget @c if it is still the freed chunk seen. */
static bool pt_recycle_chunk(struct pt_chunk *c, u64 pfn)
{
	if (!c->in_use || c->state != PT_ST_FREED || c->pfn != pfn)
		return false; /* it moved on since it was peeked at */
	pt_unlink(c);
	pt_table_count()->recycled++;
	return true;
}

/*
 * Forget a freed chunk to make room: a clock hand sweeps the array, so the
 * chunks passed over longest ago go first (an approximation of "freed
 * longest ago" that needs no list through every shard). The caller holds
 * @own's lock; another shard's is only tried.
 */
static u32 pt_recycle(unsigned int own)
{
	unsigned int n, t, cap = pt_capacity;
	struct pt_chunk *c, peek;
	bool forgot;
	u32 i;

	for (n = 0; n < PT_RECYCLE_PROBES; n++) {
		i = (unsigned int)atomic_inc_return(&pt_hand) % cap;
		c = &pt_chunks[i];
		peek.key = READ_ONCE(c->key);
		if (!peek.in_use || peek.state != PT_ST_FREED)
			continue;
		t = pt_table_shard(peek.pfn);
		if (t == own) {
			forgot = pt_recycle_chunk(c, peek.pfn);
		} else if (raw_spin_trylock(&pt_shards[t].lock)) {
			forgot = pt_recycle_chunk(c, peek.pfn);
			raw_spin_unlock(&pt_shards[t].lock);
		} else {
			forgot = false;
		}
		if (forgot)
			return i;
	}
	return PT_NIL;
}

static u32 pt_take_entry(unsigned int own)
{
	u32 i = pt_pop_free(&pt_shards[own]);

	if (i == PT_NIL && atomic_read(&pt_unused) < pt_capacity) {
		i = atomic_fetch_inc(&pt_unused);
		if (i >= pt_capacity)
			i = PT_NIL;
	}
	if (i == PT_NIL)
		i = pt_steal_free(own);
	if (i == PT_NIL)
		i = pt_recycle(own);
	return i;
}

struct pt_chunk *pt_table_alloc(u64 pfn, u8 order)
{
	unsigned int b = pt_bucket(pfn);
	struct pt_chunk *c;
	u32 i = pt_take_entry(b & (pt_nr_shards - 1));

	if (i == PT_NIL) {
		pt_table_count()->full++;
		return NULL;
	}
	c = &pt_chunks[i];
	memset(c, 0, sizeof(*c));
	c->pfn = pfn;
	c->order = order;
	c->state = PT_ST_UNTRACKED;
	c->in_use = 1;
	pt_links[i] = pt_buckets[b];
	pt_buckets[b] = i;
	pt_filter_add(pfn);
	pt_table_note_order(order);
	pt_table_count()->tracked++;
	return c;
}

/*
 * A freed chunk found first may be history that a larger live chunk,
 * created over it, shadows (the forget pass below stops at
 * PT_FORGET_MAX_ORDER): a live chunk containing @pfn wins, and the first
 * freed one serves only when none does.
 */
struct pt_chunk *pt_table_lock_containing(u64 pfn, unsigned int *shard)
	__acquires(pt_shard_lock)
{
	unsigned long orders = READ_ONCE(pt_orders_seen) | 1;
	unsigned int order, s, freed_order = 0;
	u64 head, freed_head = PT_NO_PFN;
	struct pt_chunk *c;

	/* Order 0 stands for the pfn itself, at whatever order it is tracked. */
	for_each_set_bit(order, &orders, BITS_PER_LONG) {
		head = pt_order_head(pfn, order);
		if ((order && head == pfn) || !pt_table_maybe_tracked(head))
			continue;
		s = pt_table_shard(head);
		pt_table_lock(s, head);
		c = pt_table_find(head);
		if (c && (!order || c->order == order)) {
			if (c->state != PT_ST_FREED) {
				*shard = s;
				return c;
			}
			if (freed_head == PT_NO_PFN) {
				freed_head = head;
				freed_order = order;
			}
		}
		pt_table_unlock(s);
	}
	if (freed_head != PT_NO_PFN) {
		/* Unlocked meanwhile: still there? */
		*shard = pt_table_shard(freed_head);
		pt_table_lock(*shard, freed_head);
		c = pt_table_find(freed_head);
		if (c && (!freed_order || c->order == freed_order))
			return c;
		pt_table_unlock(*shard);
	}
	*shard = pt_table_shard(pfn);
	pt_table_lock(*shard, pfn);
	return NULL;
}

/*
 * Chunks freed earlier inside the new chunk's range are history of other
 * allocations, and would shadow it at lookup. Each lives under its own
 * shard's lock, taken one at a time; the pre-filter skips the pfns that
 * were never tracked without touching a lock. The caller has IRQs off, so
 * the walk stops at the buddy allocator's largest order (1,023 pfns);
 * above it (CMA and coherent allocations, or a garbage order) the lookup's
 * preference for live chunks does the work instead.
 */
void pt_table_forget_freed_inside(u64 pfn, u8 order)
{
	struct pt_chunk *c;
	unsigned int s;
	u64 i;

	if (!order || order > PT_FORGET_MAX_ORDER)
		return;
	for (i = 1; i < (1ULL << order); i++) {
		if (!pt_table_maybe_tracked(pfn + i))
			continue;
		s = pt_table_shard(pfn + i);
		pt_table_lock(s, pfn + i);
		c = pt_table_find(pfn + i);
		if (c && c->state == PT_ST_FREED)
			pt_table_free(c);
		pt_table_unlock(s);
	}
}

const struct pt_chunk *pt_table_slot(unsigned int slot)
{
	return slot < pt_capacity ? &pt_chunks[slot] : NULL;
}
