/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: per-task nesting of driver functions, for attributing kernel calls. */
#ifndef PAGETRAIL_FRAMES_H
#define PAGETRAIL_FRAMES_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/string.h>
#include <linux/types.h>

/* The driver context a thread is in; profiles map their functions onto these. */
enum pt_ctx {
	PT_CTX_NONE = 0,
	PT_CTX_ALLOC, /* allocating an allocation's pages */
	PT_CTX_TAKE, /* taking chunks from the pool */
	PT_CTX_ADMIT, /* admitting an allocation's chunks to the pool */
	PT_CTX_SCRUB, /* pool scrubber pass */
	PT_CTX_SHRINK, /* shrinker scan */
	PT_CTX_RECLAIM_FREE, /* freeing a list of reclaimed chunks */
	PT_CTX_DESTROY, /* pool teardown */
	PT_CTX_RELEASE, /* freeing an allocation */
	PT_CTX_MMAP, /* the driver's mmap */
	PT_CTX_MMAP_HELPER, /* the part of mmap that inserts pages */
	PT_CTX_MAX
};

struct pt_hold;

struct pt_frame {
	unsigned long obj; /* the allocation, pool or VMA the function works on */
	u64 token;
	u64 fail_pfn; /* MMAP: the first page whose insert failed */
	u32 alloc_seq;
	u32 count; /* TAKE/SHRINK: chunks seen; MMAP: inserts */
	u32 failed; /* MMAP: failed inserts */
	int fail_ret; /* MMAP: errno of the first failed insert */
	int inner_ret; /* MMAP: the helper's return value */
	u32 flags; /* the profile's own marks on this call */
	/* a second object: RELEASE, the lock of the pool it will admit to */
	unsigned long aux_obj;
	/* ALLOC: a chunk whose page-table entry is checked once written */
	unsigned long check_va;
	u32 check_idx;
	/*
	 * The profile's decoded view of obj, read at the call's first hit
	 * that needs it: what stays fixed while the function runs (an
	 * allocation's page table, a pool's lock), so that later hits in
	 * the same call read no driver memory for it.
	 */
	unsigned long memo[4];
	/*
	 * The probe's per-call data of the function this frame stands for,
	 * where a profile keeps what the call has yet to stage (NULL: none).
	 */
	void *call;
	/* Observations the call holds until it returns (hold.h), or NULL. */
	struct pt_hold *hold;
	bool memo_valid;
	u8 ctx;
};

int pt_frames_init(void);
unsigned int pt_frames_slots(void);
void pt_frames_exit(void);
void pt_frames_reset(void);
void pt_frames_stop(void);
/* Tasks inside a driver function now (frames.c). */
extern atomic_t pt_frame_slots_in_use;

/* Inline: asked first by every kernel-wide hook (up(), page frees). */
static inline bool pt_frames_active(void)
{
	return atomic_read(&pt_frame_slots_in_use) > 0;
}

struct pt_frame *pt_frame_push(u8 ctx);
void pt_frame_pop(struct pt_frame *frame);
struct pt_frame *pt_frame_find(u8 ctx);
struct pt_frame *pt_frame_innermost(u32 ctx_mask);
/* The innermost frames of two contexts, with one lookup of the task. */
void pt_frame_find2(u8 ctx_a, struct pt_frame **a, u8 ctx_b,
		    struct pt_frame **b);

/*
 * The memo: load the view @v (false when none is kept yet), or keep it.
 * Whatever a profile keeps must fit (checked at build time).
 */
#define pt_frame_memo_load(f, v)                                \
	({                                                      \
		bool __kept = (f)->memo_valid;                  \
		BUILD_BUG_ON(sizeof(*(v)) > sizeof((f)->memo)); \
		if (__kept)                                     \
			memcpy((v), (f)->memo, sizeof(*(v)));   \
		__kept;                                         \
	})
#define pt_frame_memo_store(f, v)                               \
	do {                                                    \
		BUILD_BUG_ON(sizeof(*(v)) > sizeof((f)->memo)); \
		memcpy((f)->memo, (v), sizeof(*(v)));           \
		(f)->memo_valid = true;                         \
	} while (0)

struct pt_frames_stats {
	u64 overflow; /* no slot or too deep: the nesting was not recorded */
	u64 unbalanced; /* a return that was not the innermost frame */
	unsigned int in_use;
	unsigned int slots; /* tasks that can be inside driver functions at once */
};
void pt_frames_get_stats(struct pt_frames_stats *st);
void pt_frames_reset_stats(void);

#endif /* PAGETRAIL_FRAMES_H */
