// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail page_pool profile, the handlers: fresh pages into the pool
 * (the hold tracepoint), takes (the allocation's return), recycles into
 * the cache or the ring (the last reference's put, decided at its entry as
 * the pool decides it), ring to cache (refill), the pool letting pages go
 * (the release tracepoint), holders dropping fragment references, the
 * pool's life, and the buddy allocator seeing pool pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <linux/poison.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <pagetrail/hitcount.h>
#include "pagepool.h"

struct pp_stats pp_stats;
DEFINE_PER_CPU(u64[PP_HIT_MAX], pp_hits);

/* The signature page_pool stamps into pp_magic, without the DMA index bits. */
static bool pp_page_signed(const struct page *page)
{
	unsigned long magic = READ_ONCE(page->pp_magic);

	return (magic & 0x7fUL) == (PP_SIGNATURE & 0x7fUL) &&
	       (magic >> 48) == (PP_SIGNATURE >> 48);
}

/* 6.1 keeps no per-page count outside fragment pools. */
static bool pp_pool_counts_refs(const struct page_pool *pool)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return true;
#else
	return pool->p.flags & PP_FLAG_PAGE_FRAG;
#endif
}

static u8 pp_pool_order(const struct page_pool *pool)
{
	/* the record's order field; no pool page is near it */
	return min_t(unsigned int, READ_ONCE(pool->p.order), 31);
}

/* A page observation about @page of @pool: who owns it, its facts. */
static void pp_obs_page(struct pt_obs *obs, const struct page_pool *pool,
			struct page *page)
{
	obs->pfn = page_to_pfn(page);
	obs->order = pp_pool_order(pool);
	obs->token = pt_token((unsigned long)pool);
	obs->alloc_seq = pp_registry_serial(pool);
	pt_sample_page(obs->pfn, obs);
	if (obs->sampled && pp_page_signed(page))
		obs->page_flags |= PT_PF_PP;
	if (pp_pool_counts_refs(pool)) {
		obs->sampled_pool_refs = true;
		obs->pool_refs = pp_page_refs(page);
		obs->aux = (u32)obs->pool_refs;
	}
}

/* --- take: page_pool_alloc_pages / _netmem / _netmems ------------------ */

/*
 * The wrapper and the core may both be probed, nested: only the outermost
 * take of this CPU records. Takes run with BH off (the pool's contract),
 * so the depth is per CPU and per context level.
 */
static DEFINE_PER_CPU(u8, pp_take_depth[4]);

static u8 *pp_take_depth_here(void)
{
	unsigned int level = in_nmi() ? 3 : in_hardirq() ? 2 :
					    in_serving_softirq() ? 1 : 0;

	return this_cpu_ptr(&pp_take_depth[level]);
}

int pp_take_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_take_call *d = data;
	u8 *depth = pp_take_depth_here();

	if (*depth >= 8) {
		atomic64_inc(&pp_stats.take_depth_lost);
		return 1;
	}
	d->outer = !(*depth)++;
	d->pool = regs_get_kernel_argument(regs, 0);
	return 0;
}

/* The page the outermost take of this CPU returned, or NULL. */
static struct page *pp_take_leave(struct pp_take_call *d,
				  struct pt_regs *regs)
{
	u8 *depth = pp_take_depth_here();
	struct page *page;

	if (*depth)
		(*depth)--;
	if (!d->outer) {
		atomic64_inc(&pp_stats.take_nested);
		return NULL;
	}
	page = pp_page_of(regs_return_value(regs));
	if (!page && regs_return_value(regs))
		atomic64_inc(&pp_stats.net_iov);
	return page;
}

static void pp_taken(const struct page_pool *pool, struct page *page)
{
	struct pt_obs obs = { .role = PT_ROLE_TAKE, .create = true };

	pt_hit_inc(pp_hits, PP_HIT_TAKES);
	pp_obs_page(&obs, pool, page);
	pt_observe(&obs);
	/* Handed out: the pool's page is its holder's until the last put. */
	obs.role = PT_ROLE_ASSIGN;
	obs.cause = PT_CAUSE_POOL;
	pt_observe(&obs);
}

void pp_take_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_take_call *d = data;
	struct page *page = pp_take_leave(d, regs);

	if (page)
		pp_taken((const void *)d->pool, page);
}

/* --- recycle: the last reference's put ----------------------------------- */

/* As page_pool_napi_local() decides: this CPU runs the pool's consumer. */
static bool pp_napi_local(const struct page_pool *pool)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	const struct napi_struct *napi;
	int cpu;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) || !in_softirq())
		return false;
	cpu = smp_processor_id();
	if (READ_ONCE(pool->cpuid) == cpu)
		return true;
	napi = READ_ONCE(pool->p.napi);
	return napi && READ_ONCE(napi->list_owner) == cpu;
#else
	return false;
#endif
}

/*
 * Where a recyclable page goes, as the pool's own put decides it: into
 * the lockless cache when the caller may recycle directly and the cache
 * has room, else into the ring. Decided here, before the pool acts, so
 * that the admission is recorded before any other CPU can take the page.
 */
static bool pp_to_cache(const struct page_pool *pool, bool allow_direct,
			unsigned int cached)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	allow_direct = allow_direct || pp_napi_local(pool);
#else
	allow_direct = allow_direct && in_softirq();
#endif
	return allow_direct && cached < PP_ALLOC_CACHE_SIZE;
}

/*
 * A page the put will recycle: refcount 1 and not from the emergency
 * reserves. Any other goes back to the buddy allocator through the release
 * tracepoint, which records it.
 */
static bool pp_recyclable(struct page *page)
{
	return page_ref_count(page) == 1 && !page_is_pfmemalloc(page);
}

static void pp_admit(const struct page_pool *pool, struct page *page,
		     bool cache)
{
	struct pt_obs obs = { .role = PT_ROLE_ADMIT,
			      .cause = cache ? PT_CAUSE_CACHE : PT_CAUSE_RING,
			      .create = true,
			      .owner_known = true };

	pt_hit_inc(pp_hits,
		   cache ? PP_HIT_RECYCLES_CACHE : PP_HIT_RECYCLES_RING);
	pp_obs_page(&obs, pool, page);
	/* Teardown began: a page cached now is stranded (nothing takes). */
	obs.owner_dying = cache && READ_ONCE(pool->destroy_cnt);
	pt_observe(&obs);
}

/* page_pool_put_defragged_page (6.1), page_pool_put_unrefed_netmem */
int pp_put_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	const struct page_pool *pool =
		(const void *)regs_get_kernel_argument(regs, 0);
	struct page *page = pp_page_of(regs_get_kernel_argument(regs, 1));
	bool allow_direct = regs_get_kernel_argument(regs, 3) & 0xff;

	if (!page) {
		atomic64_inc(&pp_stats.net_iov);
		return 1;
	}
	if (!pp_recyclable(page))
		return 1;
	pp_admit(pool, page,
		 pp_to_cache(pool, allow_direct,
			     READ_ONCE(pool->alloc.count)));
	return 0;
}

/*
 * Bulk recycles (XDP_TX/REDIRECT completions): every page whose last
 * reference this is, as the bulk put itself walks them. 6.1 and 6.12 take
 * one pool and page addresses; 7.3 netmems of any pools.
 */
#define PP_BULK_MAX 64

static void pp_bulk_page(const struct page_pool *pool, struct page *page,
			 bool allow_direct, unsigned int *cached)
{
	bool cache;

	if (!page || !pp_page_signed(page))
		return;
	if (pp_pool_counts_refs(pool) && pp_page_refs(page) != 1)
		return; /* not the last reference: the put drops one */
	if (!pp_recyclable(page))
		return;
	cache = pp_to_cache(pool, allow_direct, *cached);
	if (cache)
		(*cached)++;
	pt_hit_inc(pp_hits, PP_HIT_BULK_RECYCLES);
	pp_admit(pool, page, cache);
}

int pp_bulk_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	const unsigned long *netmems =
		(const void *)regs_get_kernel_argument(regs, 0);
	unsigned int n = min_t(u32, regs_get_kernel_argument(regs, 1),
			       PP_BULK_MAX);
	const struct page_pool *pool;
	unsigned int i, cached = 0;
	struct page *page;

	for (i = 0; i < n; i++) {
		page = pp_page_of(READ_ONCE(netmems[i]));
		if (!page)
			continue;
		page = compound_head(page);
		pool = READ_ONCE(page->pp);
		if (!pool)
			continue;
		/* one pool's pages at a time, each under its own put */
		cached = READ_ONCE(pool->alloc.count);
		pp_bulk_page(pool, page, false, &cached);
	}
#else
	const struct page_pool *pool =
		(const void *)regs_get_kernel_argument(regs, 0);
	void *const *addrs = (void *const *)regs_get_kernel_argument(regs, 1);
	unsigned int n = min_t(int, regs_get_kernel_argument(regs, 2),
			       PP_BULK_MAX);
	unsigned int i, cached = READ_ONCE(pool->alloc.count);
	/* 6.1's bulk put never uses the cache; 6.12 when NAPI-local */
	bool direct = LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0) &&
		      pp_napi_local(pool);

	for (i = 0; i < n; i++) {
		void *va = READ_ONCE(addrs[i]);

		if (va && virt_addr_valid(va))
			pp_bulk_page(pool, virt_to_head_page(va), direct,
				     &cached);
	}
#endif
	return 1;
}

/*
 * A holder drops one of several references (skb frees, xdp returns):
 * napi_pp_put_page (6.12, 7.3), page_pool_return_skb_page (6.1). The last
 * one goes on to the put above; a count already at or below 0 is an
 * over-release the pool cannot see until it warns.
 */
int pp_unref_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct page *page = pp_page_of(regs_get_kernel_argument(regs, 0));
	struct pt_obs obs = { .role = PT_ROLE_UNREF, .tracked_only = true };
	const struct page_pool *pool;

	if (!page)
		return 1;
	page = compound_head(page);
	if (!pt_tracker_maybe_tracked(page_to_pfn(page)) ||
	    !pp_page_signed(page))
		return 1;
	pool = READ_ONCE(page->pp);
	if (!pool || !pp_pool_counts_refs(pool) || pp_page_refs(page) == 1)
		return 1;
	pt_hit_inc(pp_hits, PP_HIT_UNREFS);
	pp_obs_page(&obs, pool, page);
	pt_observe(&obs);
	return 0;
}

/*
 * A fragment hand-out: page_pool_alloc_frag (6.1), _frag_netmem (6.12, 7.x).
 * The pool's current fragment page holds a bias of BIAS_MAX references
 * (net/core/page_pool.c; halved in 6.7), and the drain that ends the page
 * takes back all but one per fragment handed out. Holders' puts that do
 * not drop the last reference are inlined into them, unseen: but if more
 * were dropped than handed out, the drain to come underflows (the pool's
 * WARN) and strands the page in flight. Say so here, while the pool still
 * names its fragment page.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define PP_FRAG_BIAS (LONG_MAX >> 1)
#else
#define PP_FRAG_BIAS LONG_MAX
#endif

static void pp_frag_check(const struct page_pool *pool, struct page *page)
{
	struct pt_obs obs = { .role = PT_ROLE_UNREF,
			      .cause = PT_CAUSE_FRAG,
			      .tracked_only = true };
	long left;

	if (!page)
		return;
	/* legit puts never exceed the hand-outs: the drain leaves 0 or more */
	left = pp_page_refs(page) -
	       (PP_FRAG_BIAS - READ_ONCE(pool->frag_users));
	if (left >= 0)
		return;
	atomic64_inc(&pp_stats.frag_underflows);
	pp_obs_page(&obs, pool, page);
	obs.pool_refs = left;
	obs.aux = (u32)left;
	pt_observe(&obs);
}

/*
 * The hand-out is also the take of its fragment page: 6.1 inlines the
 * page take into it, and a page drained whole is reused in place without
 * one. So the hand-out is the outermost take (the page take nests in it),
 * and at its return a fragment at offset 0 is a page newly handed out:
 * the pool's own page again (drained, back in the pool and out), or
 * another. Further fragments of the page are no transition.
 */
int pp_frag_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_frag_call *d = data;
	const struct page_pool *pool =
		(const void *)regs_get_kernel_argument(regs, 0);

	d->prev = (__force unsigned long)READ_ONCE(pool->frag_page);
	pp_frag_check(pool, pp_page_of(d->prev));
	d->offset = regs_get_kernel_argument(regs, 1);
	return pp_take_entry(p, regs, &d->take);
}

void pp_frag_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_frag_call *d = data;
	const struct page_pool *pool = (const void *)d->take.pool;
	struct page *page = pp_take_leave(&d->take, regs);
	struct pt_obs obs = { .role = PT_ROLE_ADMIT,
			      .cause = PT_CAUSE_FRAG,
			      .owner_known = true };

	/* the caller's offset, in its frame, written before the return */
	if (!page || READ_ONCE(*(unsigned int *)d->offset))
		return;
	if (page == pp_page_of(d->prev)) {
		atomic64_inc(&pp_stats.frag_reuses);
		pp_obs_page(&obs, pool, page);
		pt_observe(&obs);
	}
	pp_taken(pool, page);
}

/* --- ring to cache: page_pool_refill_alloc_cache ------------------------- */

int pp_refill_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_refill_call *d = data;
	const struct page_pool *pool =
		(const void *)regs_get_kernel_argument(regs, 0);

	d->pool = (unsigned long)pool;
	d->cached = READ_ONCE(pool->alloc.count);
	return 0;
}

static void pp_refilled(const struct page_pool *pool, unsigned long netmem)
{
	struct pt_obs obs = { .role = PT_ROLE_SCRUB,
			      .cause = PT_CAUSE_CACHE,
			      .tracked_only = true };
	struct page *page = pp_page_of(netmem);

	if (!page)
		return;
	pp_obs_page(&obs, pool, page);
	pt_observe(&obs);
}

/*
 * The consumer's own context: the cache is ours to read. What the refill
 * moved sits above where the cache stood, and the page it returns was the
 * last one moved.
 */
void pp_refill_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_refill_call *d = data;
	const struct page_pool *pool = (const void *)d->pool;
	unsigned int i, now = READ_ONCE(pool->alloc.count);

	now = min_t(unsigned int, now, PP_ALLOC_CACHE_SIZE);
	for (i = d->cached; i < now; i++)
		pp_refilled(pool, (__force unsigned long)READ_ONCE(
					  pool->alloc.cache[i]));
	if (regs_return_value(regs))
		pp_refilled(pool, regs_return_value(regs));
}

/* --- the pool's life ------------------------------------------------------ */

static void pp_pool_event(const struct page_pool *pool, u8 cause, s32 inflight,
			  u32 hold, u32 release, u32 serial)
{
	struct pt_obs obs = { .role = PT_ROLE_POOL, .cause = cause };

	obs.token = pt_token((unsigned long)pool);
	obs.alloc_seq = serial;
	obs.aux = (u32)inflight;
	obs.index = hold;
	obs.inner_ret = (int)release;
	obs.order = pp_pool_order(pool);
	pt_observe_event(&obs);
}

int pp_create_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	return 0;
}

/* page_pool_create and page_pool_create_percpu, maybe nested: once. */
void pp_create_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	const struct page_pool *pool = (const void *)regs_return_value(regs);
	u32 known, serial;

	if (IS_ERR_OR_NULL(pool))
		return;
	known = pp_registry_serial(pool);
	if (known)
		return;
	serial = pp_registry_add(pool);
	atomic64_inc(&pp_stats.pools_created);
	/* aux: the pool's node and order, as the NVIDIA pools' records */
	pp_pool_event(pool, PT_CAUSE_CREATE, 0, 0, 0, serial);
}

int pp_destroy_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_DESTROY);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 0);
	return 0;
}

/* page_pool_release_retry(work): the deferred attempt, a kworker. */
int pp_retry_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_frame_data *d = data;
	unsigned long work = regs_get_kernel_argument(regs, 0);

	d->f = pt_frame_push(PT_CTX_DESTROY);
	if (!d->f)
		return 1;
	d->f->obj = work - offsetof(struct page_pool, release_dw.work);
	d->f->flags = PP_FRAME_RETRY;
	return 0;
}

void pp_frame_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct pp_frame_data *d = data;

	pt_frame_pop(d->f);
}

/*
 * page_pool:page_pool_release, each attempt to end a destroyed pool: the
 * kernel's own hold and release counts. In flight 0: the pool is freed
 * right after, and its address may name the next pool.
 */
void pp_tp_pool_release(void *data, const struct page_pool *pool,
			s32 inflight, u32 hold, u32 release)
{
	struct pt_frame *f = pt_frame_innermost(BIT(PT_CTX_DESTROY));
	u32 serial = pp_registry_serial(pool);
	u8 cause = PT_CAUSE_RETRY;

	pt_tp_count(data);
	if (f && f->obj == (unsigned long)pool && !(f->flags & PP_FRAME_RETRY))
		cause = PT_CAUSE_DESTROY;
	pp_pool_event(pool, cause, inflight, hold, release, serial);
	if (inflight == 0) {
		pp_registry_remove(pool);
		atomic64_inc(&pp_stats.pools_gone);
		pp_pool_event(pool, PT_CAUSE_GONE, 0, hold, release, serial);
	}
}

/* --- the pool's tracepoints and the buddy allocator's ------------------- */

/* page_pool:page_pool_state_hold: a fresh page from the buddy allocator. */
void pp_tp_hold(void *data, const struct page_pool *pool, unsigned long netmem,
		u32 hold)
{
	struct pt_obs obs = { .role = PT_ROLE_ADMIT,
			      .cause = PT_CAUSE_FRESH,
			      .create = true };
	struct page *page = pp_page_of(netmem);

	pt_tp_count(data);
	if (!page) {
		atomic64_inc(&pp_stats.net_iov);
		return;
	}
	if (!pp_registry_serial(pool))
		atomic64_inc(&pp_stats.pools_unknown);
	pp_obs_page(&obs, pool, page);
	obs.aux = hold;
	pt_observe(&obs);
}

/*
 * page_pool:page_pool_state_release: the pool lets a page go, from its
 * cache or ring (ring full, NUMA waive, teardown) or from a holder's hands
 * (a put with other references left, 6.1's page_pool_release_page).
 */
void pp_tp_release(void *data, const struct page_pool *pool,
		   unsigned long netmem, u32 release)
{
	struct pt_obs obs = { .role = PT_ROLE_RELEASE,
			      .cause = PT_CAUSE_REFCNT,
			      .tracked_only = true };
	struct page *page = pp_page_of(netmem);

	if (!page || !pt_tracker_maybe_tracked(page_to_pfn(page)))
		return;
	pt_tp_count(data);
	pt_hit_inc(pp_hits, PP_HIT_RELEASES);
	pp_obs_page(&obs, pool, page);
	obs.aux = release;
	pt_observe(&obs);
}

void pp_tp_page_free(void *data, struct page *page, unsigned int order)
{
	struct pt_obs obs = { .role = PT_ROLE_FREE, .cause = PT_CAUSE_FOREIGN };

	if (!pt_tp_buddy_page(data, page, order, &obs))
		return;
	pt_sample_page(obs.pfn, &obs);
	pt_observe(&obs);
}

void pp_tp_page_alloc(void *data, struct page *page, unsigned int order,
		      gfp_t gfp, int migratetype)
{
	struct pt_obs obs = { .role = PT_ROLE_ALLOC, .cause = PT_CAUSE_FOREIGN };

	if (!pt_tp_buddy_page(data, page, order, &obs))
		return;
	pt_sample_page(obs.pfn, &obs);
	pt_observe(&obs);
}
