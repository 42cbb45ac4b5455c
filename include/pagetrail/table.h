/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: the chunk table. Chunks live in one array, chained into hash
 * buckets by head pfn; each bucket belongs to one of a few hundred shards
 * and its shard's raw spinlock protects the bucket's chains and every chunk
 * on them. A chunk's shard depends on its head pfn only, so two chunks
 * share a lock only when their hashes collide, and any order (contiguous
 * allocations above MAX_PAGE_ORDER included) is one lock.
 */
#ifndef PAGETRAIL_TABLE_H
#define PAGETRAIL_TABLE_H

#include <linux/types.h>

#define PT_CHUNK_PFN_BITS 40 /* 52-bit physical addresses, 4 KiB pages */
#define PT_CHUNK_EPOCH_BITS 13

/* One tracked chunk: 48 bytes (plus 4 of chain link and its bucket share). */
struct pt_chunk {
	union {
		struct {
			u64 pfn : PT_CHUNK_PFN_BITS;
			u64 order : 5;
			u64 state : 4;
			u64 in_use : 1;
			/* touched by a call in flight at attach, since admission */
			u64 unsure : 1;
			/* attach epoch, modulo 2^13 */
			u64 epoch : PT_CHUNK_EPOCH_BITS;
		};
		u64 key; /* all of the above, for a peek without the lock */
	};
	u64 token;
	u64 prev_token;
	u32 alloc_seq;
	u32 prev_alloc_seq;
	u32 index;
	u32 generation;
	u16 gaps; /* saturating */
	u16 anomalies; /* saturating */
	u32 hist; /* position + 1 of the newest history entry, 0: none */
};

struct pt_table_stats {
	s64 tracked;
	u64 recycled; /* freed chunks forgotten to make room */
	u64 full; /* no entry free and none freed to recycle */
	s64 filter_used;
	u64 locked; /* shard lock acquisitions */
	u64 contended_same; /* waited for the same chunk (its own order) */
	u64 contended_other; /* waited for another chunk: a hash collision */
};

void *pt_table_vzalloc(size_t n, size_t size);
int pt_table_init(unsigned int capacity);
void pt_table_exit(void);
void pt_table_clear(void);
unsigned int pt_table_capacity(void);
unsigned int pt_table_shards(void);
size_t pt_table_bytes(void);
size_t pt_table_fixed_bytes(void);
void pt_table_get_stats(struct pt_table_stats *st);

bool pt_table_maybe_tracked(u64 pfn);
unsigned int pt_table_shard(u64 pfn);

/* The shard lock; callers have IRQs off. */
void pt_table_lock(unsigned int shard, u64 pfn) __acquires(pt_shard_lock);
void pt_table_unlock(unsigned int shard) __releases(pt_shard_lock);

/* Under the shard lock of @pfn. */
struct pt_chunk *pt_table_find(u64 pfn);
struct pt_chunk *pt_table_alloc(u64 pfn, u8 order);
void pt_table_free(struct pt_chunk *c);
void pt_table_note_order(u8 order);

/*
 * IRQs off, no shard lock held: the chunk containing @pfn (itself, or a
 * head aligned to a tracked order) with its shard locked; else NULL with
 * @pfn's own shard locked. *@shard names the lock held.
 */
struct pt_chunk *pt_table_lock_containing(u64 pfn, unsigned int *shard)
	__acquires(pt_shard_lock);
/* IRQs off, no shard lock held: a chunk of @order at @pfn now exists. */
void pt_table_forget_freed_inside(u64 pfn, u8 order);

/* Readers (debugfs): slot -> chunk; lock its shard and recheck. */
const struct pt_chunk *pt_table_slot(unsigned int slot);

#endif /* PAGETRAIL_TABLE_H */
