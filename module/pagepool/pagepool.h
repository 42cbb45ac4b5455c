/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail page_pool profile: what its stages share. registry.c knows the
 * pools, pool.c turns the pool's calls and tracepoints into role events,
 * profile.c plants them. The kernel's own headers give every layout, so
 * nothing here is decoded from offsets: this file is built per kernel.
 */
#ifndef PAGETRAIL_PAGEPOOL_H
#define PAGETRAIL_PAGEPOOL_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/version.h>
#include <pagetrail/profile.h>
#include <pagetrail/probes.h>
#include <pagetrail/frames.h>
#include <pagetrail/tracker.h>
#include <pagetrail/events.h>
#include <pagetrail/pagesample.h>
#include <pagetrail/token.h>
#include "../compat.h"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#include <net/page_pool/types.h>
#else
#include <net/page_pool.h>
#endif

/*
 * 6.1 hands struct page pointers around; 6.6 and later a netmem_ref, which
 * for a page is the same pointer and for a net_iov (devmem, io_uring zero
 * copy) has bit 0 set and no struct page: such memory is not followed.
 */
static inline struct page *pp_page_of(unsigned long netmem)
{
	return netmem & 1UL ? NULL : (struct page *)netmem;
}

/* The pool's own count of references to a page (pp_frag_count on 6.1). */
static inline long pp_page_refs(struct page *page)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return atomic_long_read(&page->pp_ref_count);
#else
	return atomic_long_read(&page->pp_frag_count);
#endif
}

struct pp_stats {
	atomic64_t pools_created;
	atomic64_t pools_gone;
	/* pools first seen after their creation (before attach): no serial */
	atomic64_t pools_unknown;
	/* registry full: the pool's records carry serial 0 */
	atomic64_t registry_full;
	/* a fragment page found over-released at the next hand-out */
	atomic64_t frag_underflows;
	/* a fragment page drained whole and handed out again in place */
	atomic64_t frag_reuses;
	atomic64_t net_iov; /* netmem without a struct page: not followed */
	/* a take nested in another take of this CPU (wrapper and core) */
	atomic64_t take_nested;
	/* the take's nesting depth ran out: that take was not recorded */
	atomic64_t take_depth_lost;
};

extern struct pp_stats pp_stats;

/* What every page of a pool counts: per CPU (hitcount.h). */
enum pp_hit {
	PP_HIT_TAKES,
	PP_HIT_RECYCLES_CACHE,
	PP_HIT_RECYCLES_RING,
	PP_HIT_BULK_RECYCLES,
	PP_HIT_RELEASES,
	PP_HIT_UNREFS,
	PP_HIT_MAX
};
DECLARE_PER_CPU(u64[PP_HIT_MAX], pp_hits);

/* --- registry.c: the pools pagetrail has seen, by address and serial --- */

u32 pp_registry_add(const struct page_pool *pool);
u32 pp_registry_serial(const struct page_pool *pool);
u32 pp_registry_remove(const struct page_pool *pool);
void pp_registry_reset(void);
unsigned int pp_registry_live(void);

/* --- pool.c: handlers ---------------------------------------------------- */

/* Per call, entry to return. */
struct pp_take_call {
	unsigned long pool;
	bool outer; /* not nested in another take on this CPU */
};

struct pp_frag_call {
	struct pp_take_call take;
	unsigned long offset; /* the caller's unsigned int the offset goes to */
	unsigned long prev; /* the pool's fragment page at entry */
};

struct pp_refill_call {
	unsigned long pool;
	unsigned int cached; /* the cache's fill at entry */
};

struct pp_frame_data {
	struct pt_frame *f;
};

int pp_take_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void pp_take_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_put_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_bulk_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_unref_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_frag_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void pp_frag_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_refill_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void pp_refill_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_create_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void pp_create_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_destroy_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int pp_retry_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void pp_frame_ret(struct pt_probe *p, struct pt_regs *regs, void *data);

void pp_tp_hold(void *data, const struct page_pool *pool,
		unsigned long netmem, u32 hold);
void pp_tp_release(void *data, const struct page_pool *pool,
		   unsigned long netmem, u32 release);
void pp_tp_pool_release(void *data, const struct page_pool *pool,
			s32 inflight, u32 hold, u32 release);
void pp_tp_page_free(void *data, struct page *page, unsigned int order);
void pp_tp_page_alloc(void *data, struct page *page, unsigned int order,
		      gfp_t gfp, int migratetype);

/* pt_frame.flags of a DESTROY frame: the deferred retry, not destroy() */
#define PP_FRAME_RETRY BIT(0)

#endif /* PAGETRAIL_PAGEPOOL_H */
