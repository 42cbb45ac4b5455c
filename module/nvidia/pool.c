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

/*
 * The frames a move belongs to: a take, a shrinker scan, and where the
 * take is inlined (610.x) the allocation that does it in its own body.
 */
static struct pt_frame *nv_move_frame(void)
{
	u32 ctx = BIT(PT_CTX_TAKE) | BIT(PT_CTX_SHRINK);

	if (nv_fallbacks & NV_FB_POOL_TAKE)
		ctx |= BIT(PT_CTX_ALLOC);
	return pt_frame_innermost(ctx);
}

int nv_move_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_move_data *d = data;

	if (!nv_move_frame())
		return 1;
	d->dst = regs_get_kernel_argument(regs, 0);
	d->src = regs_get_kernel_argument(regs, 1);
	return 0;
}

/*
 * The pool a list head belongs to, when only the list is known (the take
 * inlined into the allocation): it must be the live pool of its own
 * [node][order] cell, and of the allocation's order.
 */
static unsigned long nv_pool_of_list(unsigned long list, u32 order)
{
	unsigned long cand[2] = { list - nv_layout.pool_clean_list,
				  list - nv_layout.pool_dirty_list };
	struct nv_pool_view pv;
	unsigned int i;

	/* Quiet reads: the other candidate is no pool, and that is no error. */
	for (i = 0; i < ARRAY_SIZE(cand); i++)
		if (nv_read_u32(cand[i] + nv_layout.pool_node_id, &pv.node) &&
		    nv_read_u32(cand[i] + nv_layout.pool_order, &pv.order) &&
		    pv.order == order && nv_pool_at(pv.node, pv.order) == cand[i])
			return cand[i];
	return 0;
}

/* The moved entries sit on the caller's private list: walk it. */
void nv_move_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_move_data *d = data;
	struct pt_frame *f = nv_move_frame();
	struct nv_pool_view pool;
	struct pt_obs obs = { .create = true };
	unsigned long pool_addr;

	if (!f)
		return;
	pool_addr = f->obj;
	if (f->ctx == PT_CTX_ALLOC) {
		struct nv_alloc_view av;

		if (!nv_alloc_read(f->obj, &av))
			return;
		pool_addr = nv_pool_of_list(d->src, av.order);
		if (!pool_addr) {
			nv_decode_error(
				"nv_mem_pool_move_pages source list (no pool of the allocation's order)",
				d->src);
			return;
		}
	}
	if (!nv_pool_read(pool_addr, &pool))
		return;
	if (d->src == pool_addr + nv_layout.pool_clean_list) {
		obs.cause = PT_CAUSE_CLEAN;
	} else if (d->src == pool_addr + nv_layout.pool_dirty_list) {
		obs.cause = PT_CAUSE_DIRTY;
	} else {
		nv_decode_error("nv_mem_pool_move_pages source list",
				pool_addr);
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
	/* ALLOC: its count is then where the fresh chunks begin. */
	f->count += nv_walk_entries(d->dst, &obs);
}

struct nv_take_state {
	struct pt_obs assign;
	u32 taken;
};

/* One chunk: a take if the table holds it pooled, then its assignment. */
static int nv_take_or_fresh(struct pt_obs *take, unsigned long va, void *arg)
{
	struct nv_take_state *s = arg;
	int ret;

	ret = nv_decode_chunk(take, va, true, NV_VA_FROM_PTE);
	if (ret)
		return ret;
	/* A pool holds chunks of its own node only: the chunk names it. */
	if (pfn_valid(take->pfn))
		take->aux = page_to_nid(pfn_to_page(take->pfn)) << 16 |
			    take->order;
	s->assign.index = take->index;
	s->assign.order = take->order;
	s->assign.token = take->token;
	s->assign.owner_known = true;
	ret = nv_decode_chunk(&s->assign, va, true, NV_VA_FROM_PTE);
	if (ret)
		return ret;
	s->taken += pt_observe_take_or_fresh(take, &s->assign);
	return 1;
}

/*
 * The take and move_pages both inlined (610.x with clang or GCC -O3):
 * nothing of the take is seen but its result. Of chunks [first, first +
 * nr) of @at, those the table still holds pooled came from the pool (a
 * TAKE, list unseen); the rest are fresh. Returns the chunks taken.
 */
u32 nv_take_by_state(unsigned long at, struct pt_frame *alloc, u32 first,
		     u32 nr)
{
	struct nv_take_state s = {
		.assign = { .role = PT_ROLE_ASSIGN, .create = true },
	};
	struct pt_obs take = { .role = PT_ROLE_TAKE, .pooled_only = true };

	take.alloc_seq = alloc ? alloc->alloc_seq : 0;
	s.assign.alloc_seq = take.alloc_seq;
	s.assign.unsure = !alloc;
	nv_walk_alloc_each(at, first, nr, nv_take_or_fresh, &take, &s);
	return s.taken;
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

/*
 * nv_mem_pool_free_pages inlined (610.x): nv_free_system_pages admits in
 * its own body. It does so when flags.pool is set and the pool of chunk
 * 0's node and the allocation's order exists; then, like the admission
 * of 595.x at its entry, every chunk is ADMITted here, before any is
 * visible to another thread, and the frees that follow in this frame are
 * the pool turning chunks away (wrong node, no entry, cannot sleep).
 */
void nv_admit_at_release(struct pt_frame *release, unsigned long at)
{
	struct pt_obs obs = { .role = PT_ROLE_ADMIT, .create = true };
	struct nv_alloc_view av;
	struct nv_pool_view pv;
	unsigned long va, pool, lock;
	bool ok, pooled;
	u64 pfn;

	if (!nv_alloc_pool_flag(at, &pooled) || !pooled ||
	    !nv_alloc_read(at, &av) || !nv_pte_virt(&av, 0, &va) || !va)
		return;
	pfn = pt_virt_to_pfn(va, &ok);
	if (!ok || !pfn_valid(pfn))
		return;
	pool = nv_pool_at(page_to_nid(pfn_to_page(pfn)), av.order);
	if (!pool || !nv_pool_read(pool, &pv) ||
	    !nv_read_ulong(pool + nv_layout.pool_lock, &lock))
		return;
	release->flags |= NV_RELEASE_ADMIT_EXPECTED;
	release->aux_obj = lock;
	obs.aux = nv_pool_aux(&pv);
	nv_walk_alloc_chunks(at, &obs, true);
}

/*
 * At the release's return: no release of the pool's lock in between
 * means nothing was spliced onto the dirty list: the admission declined
 * (cannot sleep) or turned every chunk away, and all were freed.
 */
void nv_admit_end(struct pt_frame *release)
{
	if ((release->flags & NV_RELEASE_ADMIT_EXPECTED) &&
	    !(release->flags & NV_RELEASE_UNLOCK_SEEN))
		atomic64_inc(&nv_stats.admit_refused);
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

/* What a scrub pass reads of its pool once: fixed while the pool lives. */
struct nv_scrub_memo {
	unsigned long lock;
	struct nv_pool_view pool;
};

static bool nv_scrub_memo_of(struct pt_frame *f, struct nv_scrub_memo *m)
{
	if (pt_frame_memo_load(f, m))
		return true;
	if (!nv_read_ulong(f->obj + nv_layout.pool_lock, &m->lock) ||
	    !nv_pool_read(f->obj, &m->pool))
		return false;
	pt_frame_memo_store(f, m);
	return true;
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
	struct nv_scrub_memo m;
	unsigned long head, clean;
	struct pt_frame *f;

	if (!pt_frames_active())
		return 1;
	/* A shrinker nested in a release (direct reclaim) unlocks pools too. */
	f = pt_frame_innermost(BIT(PT_CTX_SCRUB) | BIT(PT_CTX_RELEASE) |
			       BIT(PT_CTX_SHRINK) | BIT(PT_CTX_DESTROY));
	if (!f || f->ctx == PT_CTX_SHRINK || f->ctx == PT_CTX_DESTROY)
		return 1;
	/* The inlined admission's unlock: its splice is done. */
	if (f->ctx == PT_CTX_RELEASE) {
		if ((f->flags & NV_RELEASE_ADMIT_EXPECTED) && f->aux_obj == sem)
			f->flags |= NV_RELEASE_UNLOCK_SEEN;
		return 1;
	}
	/* The pass's pool (the worker's argument): its lock, node, order. */
	if (!nv_scrub_memo_of(f, &m) || m.lock != sem)
		return 1;
	clean = f->obj + nv_layout.pool_clean_list;
	if (!nv_read_ulong(clean, &head) || head == clean)
		return 0;
	obs.order = m.pool.order;
	obs.aux = nv_pool_aux(&m.pool);
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

/*
 * nv_mem_pool_destroy inlined (NV_FB_POOL_DESTROY): outside any shrinker
 * or driver frame, while the target unloads, a pool's chunks leave only
 * through its teardown.
 */
static bool nv_in_teardown(void)
{
	return (nv_fallbacks & NV_FB_POOL_DESTROY) &&
	       !pt_frame_innermost(BIT(PT_CTX_SHRINK) | BIT(PT_CTX_ALLOC) |
				   BIT(PT_CTX_RELEASE) | BIT(PT_CTX_SCRUB)) &&
	       nv_target_going();
}

/* nv_mem_pool_free_page_list(list, order): private (shrinker) or pool (destroy) list. */
int nv_free_list_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_RECLAIM, .create = true };
	struct pt_frame *outer =
		pt_frame_innermost(BIT(PT_CTX_SHRINK) | BIT(PT_CTX_DESTROY));
	bool teardown = !outer && nv_in_teardown();

	obs.order = regs_get_kernel_argument(regs, 1);
	obs.cause = teardown || (outer && outer->ctx == PT_CTX_DESTROY) ?
			    PT_CAUSE_DESTROY :
			    PT_CAUSE_SHRINKER;
	/* its shrinker or teardown began before attach */
	obs.unsure = !outer && !teardown;
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
		return nv_in_teardown() ? PT_CAUSE_RECLAIM : PT_CAUSE_FOREIGN;
	switch (f->ctx) {
	case PT_CTX_ADMIT:
		return PT_CAUSE_REJECT;
	case PT_CTX_RELEASE:
		return f->flags & (NV_RELEASE_ADMIT_REFUSED |
				   NV_RELEASE_ADMIT_EXPECTED) ?
			       PT_CAUSE_REJECT :
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

	obs.pfn = pfn;
	obs.order = order;
	if (!f) {
		/* A teardown's free: of a chunk the pool still listed only. */
		if (!nv_in_teardown())
			return;
		obs.cause = PT_CAUSE_DESTROY;
		obs.pooled_only = true;
		pt_observe(&obs);
		return;
	}
	obs.cause = f->ctx == PT_CTX_DESTROY ? PT_CAUSE_DESTROY :
					       PT_CAUSE_SHRINKER;
	obs.aux = nv_pool_aux_at(f->obj);
	if (pt_observe(&obs) && f->ctx == PT_CTX_SHRINK)
		f->count++;
}

void nv_tp_page_free(void *data, struct page *page, unsigned int order)
{
	struct pt_obs obs = { .role = PT_ROLE_FREE };

	if (!pt_tp_buddy_page(data, page, order, &obs))
		return;
	obs.cause = nv_free_cause();
	if (nv_fallbacks & NV_FB_FREE_LIST)
		nv_reclaim_by_free(obs.pfn, order);
	pt_sample_page(obs.pfn, &obs);
	pt_observe(&obs);
}

void nv_tp_page_alloc(void *data, struct page *page, unsigned int order,
		      gfp_t gfp, int migratetype)
{
	struct pt_obs obs = { .role = PT_ROLE_ALLOC };

	if (!pt_tp_buddy_page(data, page, order, &obs))
		return;
	obs.cause = pt_frame_find(PT_CTX_ALLOC) ? PT_CAUSE_FRESH :
						  PT_CAUSE_FOREIGN;
	pt_sample_page(obs.pfn, &obs);
	pt_observe(&obs);
}
