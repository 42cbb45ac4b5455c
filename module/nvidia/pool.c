// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail NVIDIA profile, the pool: take (nv_mem_pool_alloc_pages and
 * move_pages), admission (nv_mem_pool_free_pages), the scrubber, the
 * shrinker, pool teardown, and the buddy allocator hooks that see chunks
 * leave the driver and come back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/shrinker.h>
#include "nvidia.h"

/* --- pool take and reclaim: nv_mem_pool_alloc_pages, move_pages --------- */

int nv_take_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_take_data *d = data;

	d->f = pt_frame_push(PT_CTX_TAKE);
	if (!d->f)
		return 1;
	d->at = regs_get_kernel_argument(regs, 1);
	d->f->obj = regs_get_kernel_argument(regs, 0);
	d->f->token = pt_token(d->at);
	/* Called only from nv_alloc_system_pages: in flight since before attach? */
	if (!pt_frame_find(PT_CTX_ALLOC))
		d->f->flags |= NV_TAKE_UNSURE;
	return 0;
}

/*
 * nv_mem_pool_move_pages inlined: chunks [first, first + nr) of @at came
 * out of @take's pool; which list they left is not seen (cause none).
 */
void nv_take_by_walk(unsigned long at, struct pt_frame *take, u32 first,
		     u32 nr)
{
	struct pt_frame *alloc = pt_frame_find(PT_CTX_ALLOC);
	struct pt_obs obs = { .role = PT_ROLE_TAKE, .create = true };

	obs.aux = nv_pool_aux_at(take->obj);
	obs.alloc_seq = alloc ? alloc->alloc_seq : 0;
	obs.unsure = take->flags & NV_TAKE_UNSURE;
	take->count += nv_walk_alloc_range(at, first, nr, &obs, true);
}

void nv_take_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_take_data *d = data;
	u32 taken = regs_return_value(regs);
	struct pt_frame *alloc = pt_frame_find(PT_CTX_ALLOC);
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN,
			      .cause = PT_CAUSE_POOL,
			      .create = true };

	/* nv_alloc_set_page inlined: chunks [0, taken) are now the caller's. */
	if (nv_fallbacks & NV_FB_SET_PAGE) {
		if (nv_fallbacks & NV_FB_MOVE_PAGES)
			nv_take_by_walk(d->at, d->f, 0, taken);
		obs.alloc_seq = alloc ? alloc->alloc_seq : 0;
		obs.unsure = d->f->flags & NV_TAKE_UNSURE;
		nv_walk_alloc_range(d->at, 0, taken, &obs, true);
	}
	/* Fresh chunks follow the pool's in page_table. */
	if (alloc && alloc->obj == d->at)
		alloc->count += taken;
	/* The pool's own count of chunks handed out must match what we saw. */
	if (taken != d->f->count)
		atomic64_inc(&nv_stats.take_mismatch);
	pt_frame_pop(d->f);
}

int nv_move_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_move_data *d = data;

	if (!pt_frame_innermost(BIT(PT_CTX_TAKE) | BIT(PT_CTX_SHRINK)))
		return 1;
	d->dst = regs_get_kernel_argument(regs, 0);
	d->src = regs_get_kernel_argument(regs, 1);
	return 0;
}

/* The moved entries sit on the caller's private list: walk it. */
void nv_move_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_move_data *d = data;
	struct pt_frame *f =
		pt_frame_innermost(BIT(PT_CTX_TAKE) | BIT(PT_CTX_SHRINK));
	struct nv_pool_view pool;
	struct pt_obs obs = { .create = true };

	if (!f || !nv_pool_read(f->obj, &pool))
		return;
	if (d->src == f->obj + nv_layout.pool_clean_list) {
		obs.cause = PT_CAUSE_CLEAN;
	} else if (d->src == f->obj + nv_layout.pool_dirty_list) {
		obs.cause = PT_CAUSE_DIRTY;
	} else {
		nv_decode_error("nv_mem_pool_move_pages source list", f->obj);
		return;
	}
	if (f->ctx == PT_CTX_SHRINK) {
		obs.role = PT_ROLE_RECLAIM;
		obs.cause = PT_CAUSE_SHRINKER;
	} else {
		struct pt_frame *alloc = pt_frame_find(PT_CTX_ALLOC);

		obs.role = PT_ROLE_TAKE;
		obs.token = f->token;
		obs.alloc_seq = alloc ? alloc->alloc_seq : 0;
		obs.unsure = f->flags & NV_TAKE_UNSURE;
	}
	obs.order = pool.order;
	obs.aux = nv_pool_aux(&pool);
	f->count += nv_walk_entries(d->dst, &obs);
}

/* --- admission: nv_mem_pool_free_pages ---------------------------------- */

int nv_admit_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	unsigned long pool = regs_get_kernel_argument(regs, 0);
	unsigned long at = regs_get_kernel_argument(regs, 1);
	struct pt_obs obs = { .role = PT_ROLE_ADMIT, .create = true };

	d->f = pt_frame_push(PT_CTX_ADMIT);
	if (d->f) {
		d->f->obj = pool;
		d->f->token = pt_token(at);
	}
	obs.aux = nv_pool_aux_at(pool);
	/* Only nv_free_system_pages admits: no frame, it began before attach. */
	obs.unsure = !pt_frame_find(PT_CTX_RELEASE);
	/* Before the lock is taken: the chunks are not visible to others yet. */
	nv_walk_alloc_chunks(at, &obs, true);
	return d->f ? 0 : 1;
}

/*
 * NV_OK means the chunks are on the dirty list. Anything else (it cannot
 * sleep) admitted nothing: nv_free_system_pages then frees every chunk,
 * and those frees are the pool declining them, not a free while pooled.
 */
void nv_admit_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_frame *release;

	pt_frame_pop(d->f);
	release = pt_frame_find(PT_CTX_RELEASE);
	if (regs_return_value(regs) == 0) {
		if (release)
			release->flags |= NV_RELEASE_ADMITTED;
		return;
	}
	atomic64_inc(&nv_stats.admit_refused);
	if (release)
		release->flags |= NV_RELEASE_ADMIT_REFUSED;
}

/* --- scrubber: nv_mem_pool_worker, and up() on the pool lock ------------ */

int nv_worker_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_SCRUB);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 0);
	return 0;
}

/*
 * The worker releases the pool lock right after it put the chunk it just
 * scrubbed at the head of clean_list. At up() the lock is still held, so
 * clean_list.next is that chunk: a dirty -> clean transition per chunk,
 * for one cheap check on every up() in the system.
 */
int nv_up_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	unsigned long sem = regs_get_kernel_argument(regs, 0);
	struct pt_obs obs = { .role = PT_ROLE_SCRUB, .create = true };
	unsigned long lock, head, clean;
	struct nv_pool_view pool;
	struct pt_frame *f;

	if (!pt_frames_active())
		return 1;
	f = pt_frame_find(PT_CTX_SCRUB);
	if (!f || !nv_read_ulong(f->obj + nv_layout.pool_lock, &lock) ||
	    lock != sem)
		return 1;
	clean = f->obj + nv_layout.pool_clean_list;
	if (!nv_read_ulong(clean, &head) || head == clean ||
	    !nv_pool_read(f->obj, &pool))
		return 0;
	obs.order = pool.order;
	obs.aux = nv_pool_aux(&pool);
	nv_observe_chunk(&obs, nv_entry_va(head), true, NV_VA_FROM_ENTRY);
	return 0;
}

/* --- shrinker ----------------------------------------------------------- */

int nv_count_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	return 0;
}

void nv_count_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	long n = regs_return_value(regs);

	atomic64_inc(&nv_stats.shrink_count_calls);
	if (n > 0)
		atomic64_add(n, &nv_stats.shrink_count_sum);
}

static unsigned long nv_pool_of_shrinker(unsigned long shrinker)
{
#if PT_SHRINKER_HAS_PRIVATE_DATA
	unsigned long pool = 0;

	nv_read_ulong(shrinker + offsetof(struct shrinker, private_data),
		      &pool);
	return pool;
#else
	return nv_layout.pool_shrinker >= 0 ?
		       shrinker - nv_layout.pool_shrinker :
		       0;
#endif
}

int nv_scan_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	unsigned long pool =
		nv_pool_of_shrinker(regs_get_kernel_argument(regs, 0));

	if (!pool)
		return 1;
	d->f = pt_frame_push(PT_CTX_SHRINK);
	if (!d->f)
		return 1;
	d->f->obj = pool;
	return 0;
}

void nv_scan_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	unsigned long freed = regs_return_value(regs);

	atomic64_inc(&nv_stats.shrink_scan_calls);
	if (freed != SHRINK_STOP) {
		atomic64_add(freed, &nv_stats.shrink_scan_freed);
		if (freed != d->f->count)
			atomic64_inc(&nv_stats.reclaim_mismatch);
	}
	pt_frame_pop(d->f);
}

/* nv_mem_pool_free_page_list(list, order): private (shrinker) or pool (destroy) list. */
int nv_free_list_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_RECLAIM, .create = true };
	struct pt_frame *outer =
		pt_frame_innermost(BIT(PT_CTX_SHRINK) | BIT(PT_CTX_DESTROY));

	obs.order = regs_get_kernel_argument(regs, 1);
	obs.cause = outer && outer->ctx == PT_CTX_DESTROY ? PT_CAUSE_DESTROY :
							    PT_CAUSE_SHRINKER;
	obs.unsure = !outer; /* its shrinker or teardown began before attach */
	if (outer)
		obs.aux = nv_pool_aux_at(outer->obj);
	d->f = pt_frame_push(PT_CTX_RECLAIM_FREE);
	if (obs.order <= nv_layout.max_page_order) {
		u32 n = nv_walk_entries(regs_get_kernel_argument(regs, 0),
					&obs);

		if (outer && outer->ctx == PT_CTX_SHRINK && !outer->count)
			outer->count = n; /* moved before we could see it */
	}
	return d->f ? 0 : 1;
}

int nv_destroy_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_DESTROY);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 0);
	return 0;
}

/* --- the buddy allocator: kmem:mm_page_free, kmem:mm_page_alloc --------- */

static u8 nv_free_cause(void)
{
	struct pt_frame *f =
		pt_frame_innermost(BIT(PT_CTX_ADMIT) | BIT(PT_CTX_RELEASE) |
				   BIT(PT_CTX_RECLAIM_FREE) |
				   BIT(PT_CTX_DESTROY) | BIT(PT_CTX_SHRINK));

	if (!f)
		return PT_CAUSE_FOREIGN;
	switch (f->ctx) {
	case PT_CTX_ADMIT:
		return PT_CAUSE_REJECT;
	case PT_CTX_RELEASE:
		return f->flags & NV_RELEASE_ADMIT_REFUSED ? PT_CAUSE_REJECT :
							     PT_CAUSE_DIRECT;
	default:
		return PT_CAUSE_RECLAIM;
	}
}

/*
 * nv_mem_pool_free_page_list inlined: a tracked chunk freed inside the
 * shrinker or the pool's teardown left the pool just before.
 */
static void nv_reclaim_by_free(u64 pfn, unsigned int order)
{
	struct pt_frame *f =
		pt_frame_innermost(BIT(PT_CTX_SHRINK) | BIT(PT_CTX_DESTROY));
	struct pt_obs obs = { .role = PT_ROLE_RECLAIM, .tracked_only = true };

	if (!f)
		return;
	obs.pfn = pfn;
	obs.order = order;
	obs.cause = f->ctx == PT_CTX_DESTROY ? PT_CAUSE_DESTROY :
					       PT_CAUSE_SHRINKER;
	obs.aux = nv_pool_aux_at(f->obj);
	if (pt_observe(&obs) && f->ctx == PT_CTX_SHRINK)
		f->count++;
}

void nv_tp_page_free(void *data, struct page *page, unsigned int order)
{
	struct pt_tp_hook *h = data;
	struct pt_obs obs = { .role = PT_ROLE_FREE };
	u64 pfn = page_to_pfn(page);

	if (!pt_tracker_maybe_tracked(pfn))
		return;
	pt_tp_count(h);
	obs.pfn = pfn;
	obs.order = order;
	obs.cause = nv_free_cause();
	if (nv_fallbacks & NV_FB_FREE_LIST)
		nv_reclaim_by_free(pfn, order);
	pt_sample_page(pfn, &obs);
	pt_observe(&obs);
}

void nv_tp_page_alloc(void *data, struct page *page, unsigned int order,
		      gfp_t gfp, int migratetype)
{
	struct pt_tp_hook *h = data;
	struct pt_obs obs = { .role = PT_ROLE_ALLOC };
	u64 pfn;

	if (!page)
		return;
	pfn = page_to_pfn(page);
	if (!pt_tracker_maybe_tracked(pfn))
		return;
	pt_tp_count(h);
	obs.pfn = pfn;
	obs.order = order;
	obs.cause = pt_frame_find(PT_CTX_ALLOC) ? PT_CAUSE_FRESH :
						  PT_CAUSE_FOREIGN;
	pt_sample_page(pfn, &obs);
	pt_observe(&obs);
}
