// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the NVIDIA open GPU module profile (system-memory page pool,
 * driver 590.44.01 and later). Maps nv_mem_pool_*, nv_alloc_*, nvidia_mmap*
 * and the kernel calls they make onto roles; reads nv_alloc_t, nvidia_pte_t,
 * nv_page_pool_t and the pool entries through offsets given as parameters
 * (scripts/pagetrail-load finds them in BTF, DWARF or a table of releases).
 * The simulator tests/nvsim has the same names and layouts; only the
 * module name and, where the kernel config differs, the pool offsets change.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/nodemask.h>
#include <linux/ptrace.h>
#include <pagetrail/profile.h>
#include <pagetrail/probes.h>
#include <pagetrail/frames.h>
#include <pagetrail/tracker.h>
#include <pagetrail/events.h>
#include <pagetrail/layout.h>
#include <pagetrail/pagesample.h>
#include <pagetrail/token.h>
#include <pagetrail/target.h>
#include "compat.h"

/* --- layout parameters ------------------------------------------------- */

static struct pt_nv_layout nv = {
	.alloc_size = -1,
	.alloc_usage_count = -1,
	.alloc_usage_size = -1,
	.alloc_pool_bit = -1,
	.alloc_num_pages = -1,
	.alloc_order = -1,
	.alloc_page_table = -1,
	.pte_size = -1,
	.pte_phys_addr = -1,
	.pte_virt_addr = -1,
	.pool_size = -1,
	.pool_clean_list = -1,
	.pool_dirty_list = -1,
	.pool_node_id = -1,
	.pool_order = -1,
	.pool_lock = -1,
	.pool_shrinker = -1,
	.entry_virt_addr = -1,
	.entry_list_node = -1,
	.max_page_order = PT_NV_MAX_PAGE_ORDER,
};

#define PT_NV_PARAM(field, desc)                             \
	module_param_named(nv_##field, nv.field, int, 0444); \
	MODULE_PARM_DESC(nv_##field, desc)

PT_NV_PARAM(alloc_size, "sizeof(nv_alloc_t)");
PT_NV_PARAM(alloc_usage_count, "offsetof(nv_alloc_t, usage_count)");
PT_NV_PARAM(alloc_usage_size,
	    "sizeof(nv_alloc_t.usage_count): 4 (atomic_t) or 8 (atomic64_t)");
PT_NV_PARAM(alloc_pool_bit,
	    "bit offset of nv_alloc_t flags.pool (-1: unknown)");
PT_NV_PARAM(alloc_num_pages, "offsetof(nv_alloc_t, num_pages)");
PT_NV_PARAM(alloc_order, "offsetof(nv_alloc_t, order)");
PT_NV_PARAM(alloc_page_table, "offsetof(nv_alloc_t, page_table)");
PT_NV_PARAM(pte_size, "sizeof(nvidia_pte_t)");
PT_NV_PARAM(pte_phys_addr, "offsetof(nvidia_pte_t, phys_addr)");
PT_NV_PARAM(pte_virt_addr, "offsetof(nvidia_pte_t, virt_addr)");
PT_NV_PARAM(pool_size, "sizeof(nv_page_pool_t)");
PT_NV_PARAM(pool_clean_list, "offsetof(nv_page_pool_t, clean_list)");
PT_NV_PARAM(pool_dirty_list, "offsetof(nv_page_pool_t, dirty_list)");
PT_NV_PARAM(pool_node_id, "offsetof(nv_page_pool_t, node_id)");
PT_NV_PARAM(pool_order, "offsetof(nv_page_pool_t, order)");
PT_NV_PARAM(pool_lock, "offsetof(nv_page_pool_t, lock)");
PT_NV_PARAM(pool_shrinker,
	    "offsetof(nv_page_pool_t, _shrinker), kernels < 6.7 (-1: none)");
PT_NV_PARAM(entry_virt_addr, "offsetof(nv_page_pool_entry_t, virt_addr)");
PT_NV_PARAM(entry_list_node, "offsetof(nv_page_pool_entry_t, list_node)");
PT_NV_PARAM(max_page_order,
	    "NV_MAX_PAGE_ORDER of the target (sysmem_page_pools dimension)");

/* Upper bound on list walks: a corrupted list must not hang a probe. */
#define PT_NV_WALK_MAX (1u << 20)

struct pt_nv_stats {
	/* A read failed or a value was implausible. */
	atomic64_t decode_errors;
	/* Chunks seen taken != chunks the pool said it handed out. */
	atomic64_t take_mismatch;
	/* Chunks seen reclaimed != chunks the shrinker reported freed. */
	atomic64_t reclaim_mismatch;
	atomic64_t shrink_count_calls;
	atomic64_t shrink_count_sum;
	atomic64_t shrink_scan_calls;
	atomic64_t shrink_scan_freed;
	atomic64_t mmaps;
	atomic64_t mmap_failed;
	atomic64_t inserts;
	atomic64_t insert_failed;
	atomic_t alloc_seq;
};

static struct pt_nv_stats nv_stats;

/*
 * &sysmem_page_pools, handed in by scripts/pagetrail-load from
 * /proc/kallsyms: a data symbol has no kprobe to resolve it, and calling
 * kallsyms_lookup_name() through a kprobe-resolved address faults on IBT.
 */
static unsigned long nv_pools_addr;
module_param(nv_pools_addr, ulong, 0444);
MODULE_PARM_DESC(nv_pools_addr,
		 "address of the target's sysmem_page_pools (0: skip the live pool check)");

/* --- safe reads of driver memory --------------------------------------- */

static bool nv_read(unsigned long addr, void *dst, size_t len)
{
	if (!copy_from_kernel_nofault(dst, (const void *)addr, len))
		return true;
	atomic64_inc(&nv_stats.decode_errors);
	return false;
}

static bool nv_read_ulong(unsigned long addr, unsigned long *v)
{
	return nv_read(addr, v, sizeof(*v));
}

static bool nv_read_u32(unsigned long addr, u32 *v)
{
	return nv_read(addr, v, sizeof(*v));
}

/*
 * A value the layout says is there is not: the parameters do not describe
 * this driver. Every record from here on would be wrong, so detach.
 */
static void nv_decode_error(const char *what, unsigned long obj)
{
	atomic64_inc(&nv_stats.decode_errors);
	pr_warn_ratelimited(
		"nvidia profile: implausible %s; check the layout parameters\n",
		what);
	pt_target_fail(what);
}

struct nv_alloc_view {
	unsigned long at;
	unsigned long page_table;
	u32 num_pages;
	u32 order;
};

static bool nv_alloc_read(unsigned long at, struct nv_alloc_view *v)
{
	v->at = at;
	if (!nv_read_ulong(at + nv.alloc_page_table, &v->page_table) ||
	    !nv_read_u32(at + nv.alloc_num_pages, &v->num_pages) ||
	    !nv_read_u32(at + nv.alloc_order, &v->order))
		return false;
	if (v->order > nv.max_page_order || !v->page_table) {
		nv_decode_error("nv_alloc_t order/page_table", at);
		return false;
	}
	return true;
}

static bool nv_pte_virt(const struct nv_alloc_view *v, u32 idx,
			unsigned long *va)
{
	return nv_read_ulong(v->page_table + (unsigned long)idx * nv.pte_size +
				     nv.pte_virt_addr,
			     va);
}

struct nv_pool_view {
	unsigned long pool;
	u32 node;
	u32 order;
};

static bool nv_pool_read(unsigned long pool, struct nv_pool_view *v)
{
	v->pool = pool;
	if (!nv_read_u32(pool + nv.pool_node_id, &v->node) ||
	    !nv_read_u32(pool + nv.pool_order, &v->order))
		return false;
	if (v->order > nv.max_page_order || v->node >= MAX_NUMNODES) {
		nv_decode_error("nv_page_pool_t node/order", pool);
		return false;
	}
	return true;
}

static u32 nv_pool_aux(const struct nv_pool_view *p)
{
	return p->node << 16 | p->order;
}

static unsigned long nv_entry_va(unsigned long list_node)
{
	unsigned long va = 0;

	nv_read_ulong(list_node - nv.entry_list_node + nv.entry_virt_addr, &va);
	return va;
}

/* Observe one chunk given by its head virtual address. */
static bool nv_observe_chunk(struct pt_obs *obs, unsigned long va, bool sample)
{
	bool ok;

	obs->pfn = pt_virt_to_pfn(va, &ok);
	if (!ok) {
		nv_decode_error("chunk virtual address", va);
		return false;
	}
	obs->sampled = false;
	if (sample)
		pt_sample_page(obs->pfn, obs);
	return pt_observe(obs);
}

/* Walk a list_head of pool entries; stable because the caller owns it. */
static u32 nv_walk_entries(unsigned long head, struct pt_obs *obs)
{
	unsigned long node;
	u32 n = 0, seen = 0;

	if (!nv_read_ulong(head, &node))
		return 0;
	while (node != head && seen++ < PT_NV_WALK_MAX) {
		n += nv_observe_chunk(obs, nv_entry_va(node), true);
		if (!nv_read_ulong(node, &node))
			break;
	}
	return n;
}

/* --- allocation: nv_alloc_system_pages, nv_alloc_set_page --------------- */

struct nv_frame_data {
	struct pt_frame *f;
};

static int nv_alloc_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	unsigned long at = regs_get_kernel_argument(regs, 1);

	struct pt_frame *outer = pt_frame_find(PT_CTX_ALLOC);

	d->f = pt_frame_push(PT_CTX_ALLOC);
	if (!d->f)
		return 1;
	d->f->obj = at;
	d->f->token = pt_token(at);
	/* nv_alloc_contig_pages -> nv_alloc_system_pages is one allocation. */
	if (outer && outer->obj == at)
		d->f->alloc_seq = outer->alloc_seq;
	else
		d->f->alloc_seq = atomic_inc_return(&nv_stats.alloc_seq);
	return 0;
}

static void nv_walk_alloc_chunks(unsigned long at, struct pt_obs *obs,
				 bool sample);

struct nv_coherent_data {
	unsigned long at;
};

static int nv_coherent_entry(struct pt_probe *p, struct pt_regs *regs,
			     void *data)
{
	struct nv_coherent_data *d = data;

	d->at = regs_get_kernel_argument(regs, 1);
	return 0;
}

/* The coherent path fills page_table itself, without nv_alloc_set_page. */
static void nv_coherent_ret(struct pt_probe *p, struct pt_regs *regs,
			    void *data)
{
	struct nv_coherent_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN,
			      .cause = PT_CAUSE_FRESH,
			      .create = true };
	struct pt_frame *alloc = pt_frame_find(PT_CTX_ALLOC);

	if (regs_return_value(regs) != 0) /* NV_OK */
		return;
	obs.alloc_seq = alloc && alloc->obj == d->at ? alloc->alloc_seq : 0;
	nv_walk_alloc_chunks(d->at, &obs, true);
}

static void nv_frame_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	pt_frame_pop(d->f);
}

struct nv_set_page_data {
	unsigned long at;
	unsigned long va;
	u32 idx;
};

static int nv_set_page_entry(struct pt_probe *p, struct pt_regs *regs,
			     void *data)
{
	struct nv_set_page_data *d = data;

	d->at = regs_get_kernel_argument(regs, 0);
	d->idx = regs_get_kernel_argument(regs, 1);
	d->va = regs_get_kernel_argument(regs, 2);
	return 0;
}

/*
 * nv_alloc_set_page(at, chunk, va) fills page_table[chunk << order ...]. At
 * return those entries are written: the first must hold what we were passed.
 */
static void nv_set_page_ret(struct pt_probe *p, struct pt_regs *regs,
			    void *data)
{
	struct nv_set_page_data *d = data;
	struct nv_alloc_view av;
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN, .create = true };
	struct pt_frame *alloc, *take;
	unsigned long va, phys;
	u32 first;

	if (!nv_alloc_read(d->at, &av))
		return;
	first = d->idx << av.order;
	if (first >= av.num_pages) {
		nv_decode_error("nv_alloc_set_page chunk index", d->at);
		return;
	}
	if (!nv_pte_virt(&av, first, &va) ||
	    !nv_read_ulong(av.page_table + (unsigned long)first * nv.pte_size +
				   nv.pte_phys_addr,
			   &phys))
		return;
	if (va != d->va || !virt_addr_valid((void *)va) || phys != __pa(va)) {
		nv_decode_error("nvidia_pte_t after nv_alloc_set_page", d->at);
		return;
	}
	alloc = pt_frame_find(PT_CTX_ALLOC);
	take = pt_frame_find(PT_CTX_TAKE);
	obs.cause = take ? PT_CAUSE_POOL : PT_CAUSE_FRESH;
	obs.token = pt_token(d->at);
	obs.alloc_seq = alloc && alloc->obj == d->at ? alloc->alloc_seq : 0;
	obs.index = first;
	obs.order = av.order;
	nv_observe_chunk(&obs, d->va, true);
}

/* --- pool take and reclaim: nv_mem_pool_alloc_pages, move_pages --------- */

static int nv_take_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_TAKE);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 0);
	d->f->token = pt_token(regs_get_kernel_argument(regs, 1));
	return 0;
}

static void nv_take_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	/* The pool's own count of chunks handed out must match what we saw. */
	if ((u32)regs_return_value(regs) != d->f->count)
		atomic64_inc(&nv_stats.take_mismatch);
	pt_frame_pop(d->f);
}

struct nv_move_data {
	unsigned long dst;
	unsigned long src;
};

static int nv_move_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_move_data *d = data;

	if (!pt_frame_innermost(BIT(PT_CTX_TAKE) | BIT(PT_CTX_SHRINK)))
		return 1;
	d->dst = regs_get_kernel_argument(regs, 0);
	d->src = regs_get_kernel_argument(regs, 1);
	return 0;
}

/* The moved entries sit on the caller's private list: walk it. */
static void nv_move_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_move_data *d = data;
	struct pt_frame *f =
		pt_frame_innermost(BIT(PT_CTX_TAKE) | BIT(PT_CTX_SHRINK));
	struct nv_pool_view pool;
	struct pt_obs obs = { .create = true };

	if (!f || !nv_pool_read(f->obj, &pool))
		return;
	if (d->src == f->obj + nv.pool_clean_list) {
		obs.cause = PT_CAUSE_CLEAN;
	} else if (d->src == f->obj + nv.pool_dirty_list) {
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
	}
	obs.order = pool.order;
	obs.aux = nv_pool_aux(&pool);
	f->count += nv_walk_entries(d->dst, &obs);
}

/* --- admission: nv_mem_pool_free_pages ---------------------------------- */

static void nv_walk_alloc_chunks(unsigned long at, struct pt_obs *obs,
				 bool sample)
{
	struct nv_alloc_view av;
	unsigned long va;
	u32 i, stride;

	if (!nv_alloc_read(at, &av))
		return;
	stride = 1u << av.order;
	obs->order = av.order;
	obs->token = pt_token(at);
	obs->owner_known = true;
	/* virt_addr == 0 ends the allocated chunks (partial allocations). */
	for (i = 0; i < av.num_pages; i += stride) {
		if (!nv_pte_virt(&av, i, &va) || !va)
			break;
		obs->index = i;
		nv_observe_chunk(obs, va, sample);
	}
}

static int nv_admit_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	unsigned long pool = regs_get_kernel_argument(regs, 0);
	unsigned long at = regs_get_kernel_argument(regs, 1);
	struct pt_obs obs = { .role = PT_ROLE_ADMIT, .create = true };
	struct nv_pool_view pv;

	d->f = pt_frame_push(PT_CTX_ADMIT);
	if (d->f) {
		d->f->obj = pool;
		d->f->token = pt_token(at);
	}
	if (nv_pool_read(pool, &pv))
		obs.aux = nv_pool_aux(&pv);
	/* Before the lock is taken: the chunks are not visible to others yet. */
	nv_walk_alloc_chunks(at, &obs, true);
	return d->f ? 0 : 1;
}

/* --- scrubber: nv_mem_pool_worker, and up() on the pool lock ------------ */

static int nv_worker_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
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
static int nv_up_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	unsigned long sem = regs_get_kernel_argument(regs, 0);
	struct pt_obs obs = { .role = PT_ROLE_SCRUB, .create = true };
	unsigned long lock, head, clean;
	struct nv_pool_view pool;
	struct pt_frame *f;

	if (!pt_frames_active())
		return 1;
	f = pt_frame_find(PT_CTX_SCRUB);
	if (!f || !nv_read_ulong(f->obj + nv.pool_lock, &lock) || lock != sem)
		return 1;
	clean = f->obj + nv.pool_clean_list;
	if (!nv_read_ulong(clean, &head) || head == clean ||
	    !nv_pool_read(f->obj, &pool))
		return 0;
	obs.order = pool.order;
	obs.aux = nv_pool_aux(&pool);
	nv_observe_chunk(&obs, nv_entry_va(head), true);
	return 0;
}

/* --- shrinker ----------------------------------------------------------- */

static int nv_count_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	return 0;
}

static void nv_count_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
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
	return nv.pool_shrinker >= 0 ? shrinker - nv.pool_shrinker : 0;
#endif
}

static int nv_scan_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
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

static void nv_scan_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
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
static int nv_free_list_entry(struct pt_probe *p, struct pt_regs *regs,
			      void *data)
{
	struct nv_frame_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_RECLAIM, .create = true };
	struct pt_frame *outer =
		pt_frame_innermost(BIT(PT_CTX_SHRINK) | BIT(PT_CTX_DESTROY));
	struct nv_pool_view pv;

	obs.order = regs_get_kernel_argument(regs, 1);
	obs.cause = outer && outer->ctx == PT_CTX_DESTROY ? PT_CAUSE_DESTROY :
							    PT_CAUSE_SHRINKER;
	if (outer && nv_pool_read(outer->obj, &pv))
		obs.aux = nv_pool_aux(&pv);
	d->f = pt_frame_push(PT_CTX_RECLAIM_FREE);
	if (obs.order <= nv.max_page_order) {
		u32 n = nv_walk_entries(regs_get_kernel_argument(regs, 0),
					&obs);

		if (outer && outer->ctx == PT_CTX_SHRINK && !outer->count)
			outer->count = n; /* moved before we could see it */
	}
	return d->f ? 0 : 1;
}

static int nv_destroy_entry(struct pt_probe *p, struct pt_regs *regs,
			    void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_DESTROY);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 0);
	return 0;
}

/* --- release: nv_free_system_pages -------------------------------------- */

struct nv_release_data {
	struct pt_frame *f;
	unsigned long at;
};

static int nv_release_entry(struct pt_probe *p, struct pt_regs *regs,
			    void *data)
{
	struct nv_release_data *d = data;

	d->at = regs_get_kernel_argument(regs, 0);
	d->f = pt_frame_push(PT_CTX_RELEASE);
	if (!d->f)
		return 1;
	d->f->obj = d->at;
	d->f->token = pt_token(d->at);
	return 0;
}

/* Chunks the allocation still owns here were neither pooled nor freed. */
static void nv_release_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_release_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_RELEASE };

	nv_walk_alloc_chunks(d->at, &obs, true);
	pt_frame_pop(d->f);
}

/* --- mapping: nvidia_mmap, nvidia_mmap_helper, vm_insert_page ----------- */

static unsigned long nv_vma_alloc(unsigned long vma)
{
	unsigned long at = 0;

	nv_read_ulong(vma + offsetof(struct vm_area_struct, vm_private_data),
		      &at);
	return at;
}

static int nv_mmap_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_MMAP);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 1);
	return 0;
}

static void nv_mmap_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_frame *f = d->f;
	struct pt_obs obs = { .role = PT_ROLE_MAP };

	obs.ret = regs_return_value(regs);
	obs.inner_ret = f->fail_ret;
	obs.pfn = f->fail_pfn;
	obs.index = f->count;
	obs.aux = (u32)f->inner_ret;
	obs.token = pt_token(nv_vma_alloc(f->obj));
	atomic64_inc(&nv_stats.mmaps);
	if (obs.ret)
		atomic64_inc(&nv_stats.mmap_failed);
	pt_frame_pop(f);
	pt_observe_event(&obs);
}

static int nv_mmap_helper_entry(struct pt_probe *p, struct pt_regs *regs,
				void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_MMAP_HELPER);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 3);
	return 0;
}

static void nv_mmap_helper_ret(struct pt_probe *p, struct pt_regs *regs,
			       void *data)
{
	struct nv_frame_data *d = data;
	struct pt_frame *outer;

	pt_frame_pop(d->f);
	outer = pt_frame_find(PT_CTX_MMAP);
	if (outer)
		outer->inner_ret = regs_return_value(regs);
}

struct nv_insert_data {
	struct pt_obs obs;
	unsigned long vma;
	bool from_driver;
};

/* Driver inserts (inside nvidia_mmap_helper) and any insert of a tracked page. */
static int nv_insert_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_insert_data *d = data;
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 2);
	u64 pfn = page_to_pfn(page);

	d->from_driver = !!pt_frame_find(PT_CTX_MMAP_HELPER);
	if (!d->from_driver && !pt_tracker_maybe_tracked(pfn))
		return 1;
	memset(&d->obs, 0, sizeof(d->obs));
	d->obs.role = PT_ROLE_INSERT;
	d->obs.pfn = pfn;
	d->vma = regs_get_kernel_argument(regs, 0);
	/* The refcount the kernel is about to check, before the insert. */
	pt_sample_page(pfn, &d->obs);
	return 0;
}

static void nv_insert_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_insert_data *d = data;
	struct pt_frame *mmap = pt_frame_find(PT_CTX_MMAP);

	d->obs.ret = regs_return_value(regs);
	if (d->from_driver) {
		d->obs.token = pt_token(nv_vma_alloc(d->vma));
		d->obs.owner_known = true;
		atomic64_inc(&nv_stats.inserts);
		if (d->obs.ret)
			atomic64_inc(&nv_stats.insert_failed);
	}
	if (mmap && d->from_driver) {
		mmap->count++;
		if (d->obs.ret && !mmap->failed++) {
			mmap->fail_ret = d->obs.ret;
			mmap->fail_pfn = d->obs.pfn;
		}
	}
	pt_observe(&d->obs);
}

static void nv_vma_event(struct pt_regs *regs, u8 cause)
{
	unsigned long at = nv_vma_alloc(regs_get_kernel_argument(regs, 0));
	struct pt_obs obs = { .role = PT_ROLE_VMA, .cause = cause };
	s64 usage64 = 0;
	s32 usage32 = 0;

	if (at && nv.alloc_usage_size == sizeof(usage64))
		nv_read(at + nv.alloc_usage_count, &usage64, sizeof(usage64));
	else if (at)
		nv_read(at + nv.alloc_usage_count, &usage32, sizeof(usage32));
	obs.token = pt_token(at);
	obs.aux = nv.alloc_usage_size == sizeof(usage64) ? (u32)usage64 :
							   (u32)usage32;
	pt_observe_event(&obs);
}

static int nv_vma_open_entry(struct pt_probe *p, struct pt_regs *regs,
			     void *data)
{
	nv_vma_event(regs, PT_CAUSE_VMA_OPEN);
	return 0;
}

static int nv_vma_release_entry(struct pt_probe *p, struct pt_regs *regs,
				void *data)
{
	nv_vma_event(regs, PT_CAUSE_VMA_CLOSE);
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
		return PT_CAUSE_DIRECT;
	default:
		return PT_CAUSE_RECLAIM;
	}
}

static void nv_tp_page_free(void *data, struct page *page, unsigned int order)
{
	struct pt_tp_hook *h = data;
	struct pt_obs obs = { .role = PT_ROLE_FREE };
	u64 pfn = page_to_pfn(page);

	if (!pt_tracker_maybe_tracked(pfn))
		return;
	atomic64_inc(&h->hits);
	obs.pfn = pfn;
	obs.order = order;
	obs.cause = nv_free_cause();
	pt_sample_page(pfn, &obs);
	pt_observe(&obs);
}

static void nv_tp_page_alloc(void *data, struct page *page, unsigned int order,
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
	atomic64_inc(&h->hits);
	obs.pfn = pfn;
	obs.order = order;
	obs.cause = pt_frame_find(PT_CTX_ALLOC) ? PT_CAUSE_FRESH :
						  PT_CAUSE_FOREIGN;
	pt_sample_page(pfn, &obs);
	pt_observe(&obs);
}

/* --- the probe set ------------------------------------------------------ */

#define DRV(sym, e, r, dsz)                                             \
	{                                                               \
		.symbol = sym, .in_target = true, .entry = e, .ret = r, \
		.data_size = dsz                                        \
	}
#define KERN(sym, e, r, dsz)                                          \
	{                                                             \
		.symbol = sym, .entry = e, .ret = r, .data_size = dsz \
	}
#define FRAME sizeof(struct nv_frame_data)

static struct pt_probe nv_probes[] = {
	DRV("nv_alloc_system_pages", nv_alloc_entry, nv_frame_ret, FRAME),
	DRV("nv_mem_pool_alloc_pages", nv_take_entry, nv_take_ret, FRAME),
	DRV("nv_mem_pool_move_pages", nv_move_entry, nv_move_ret,
	    sizeof(struct nv_move_data)),
	DRV("nv_alloc_set_page", nv_set_page_entry, nv_set_page_ret,
	    sizeof(struct nv_set_page_data)),
	DRV("nv_mem_pool_free_pages", nv_admit_entry, nv_frame_ret, FRAME),
	DRV("nv_mem_pool_worker", nv_worker_entry, nv_frame_ret, FRAME),
	DRV("nv_mem_pool_shrinker_count", nv_count_entry, nv_count_ret, 0),
	DRV("nv_mem_pool_shrinker_scan", nv_scan_entry, nv_scan_ret, FRAME),
	DRV("nv_mem_pool_free_page_list", nv_free_list_entry, nv_frame_ret,
	    FRAME),
	DRV("nv_mem_pool_destroy", nv_destroy_entry, nv_frame_ret, FRAME),
	DRV("nv_free_system_pages", nv_release_entry, nv_release_ret,
	    sizeof(struct nv_release_data)),
	DRV("nv_alloc_contig_pages", nv_alloc_entry, nv_frame_ret, FRAME),
	DRV("nv_alloc_coherent_pages", nv_coherent_entry, nv_coherent_ret,
	    sizeof(struct nv_coherent_data)),
	DRV("nv_free_contig_pages", nv_release_entry, nv_release_ret,
	    sizeof(struct nv_release_data)),
	DRV("nvidia_mmap", nv_mmap_entry, nv_mmap_ret, FRAME),
	DRV("nvidia_mmap_helper", nv_mmap_helper_entry, nv_mmap_helper_ret,
	    FRAME),
	DRV("nvidia_vma_open", nv_vma_open_entry, NULL, 0),
	DRV("nvidia_vma_release", nv_vma_release_entry, NULL, 0),
	KERN("vm_insert_page", nv_insert_entry, nv_insert_ret,
	     sizeof(struct nv_insert_data)),
	KERN("up", nv_up_entry, NULL, 0),
};

static struct pt_tp_hook nv_tp_free = { .name = "mm_page_free",
					.probe = nv_tp_page_free };
static struct pt_tp_hook nv_tp_alloc = { .name = "mm_page_alloc",
					 .probe = nv_tp_page_alloc };

/* --- validation ---------------------------------------------------------- */

static int nv_check_params(char *why, size_t len)
{
	return pt_nv_layout_check(&nv, why, len);
}

static bool nv_list_head_sane(unsigned long head)
{
	unsigned long next, back;

	if (!nv_read_ulong(head, &next) ||
	    !nv_read_ulong(next + sizeof(void *), &back))
		return false;
	return back == head;
}

/*
 * Read every pool of sysmem_page_pools: each must say it is the pool of
 * its own [node][order] cell, and its lists must be well-formed list heads.
 * The pool lock is not ours to take, so a list that looks torn is retried.
 */
static int nv_check_live_pools(const char *target)
{
	char sym[KSYM_SYMBOL_LEN], expect[32], owner[MODULE_NAME_LEN + 4];
	unsigned long nv_pools_sym;
	unsigned int node, order, pools = 0, tries;
	unsigned long cell, pool;
	struct nv_pool_view pv = {};

	if (!nv_pools_addr) {
		pr_warn("nvidia profile: nv_pools_addr not given; pool offsets cannot be checked against live pools\n");
		return 0;
	}
	/* Only an address that names exactly sysmem_page_pools [target]. */
	snprintf(expect, sizeof(expect), "sysmem_page_pools+0x0/");
	sprint_symbol(sym, nv_pools_addr);
	snprintf(owner, sizeof(owner), " [%s]", target);
	if (strncmp(sym, expect, strlen(expect)) || !strstr(sym, owner)) {
		pr_err("nvidia profile: nv_pools_addr=0x%lx is not %s's sysmem_page_pools\n",
		       nv_pools_addr, target);
		return -EINVAL;
	}
	nv_pools_sym = nv_pools_addr;
	for (node = 0; node < MAX_NUMNODES; node++) {
		for (order = 0; order <= nv.max_page_order; order++) {
			cell = nv_pools_sym +
			       sizeof(void *) *
				       (node * (nv.max_page_order + 1) + order);
			if (!nv_read_ulong(cell, &pool))
				return -EFAULT;
			if (!pool)
				continue;
			if (!nv_pool_read(pool, &pv) || pv.node != node ||
			    pv.order != order) {
				pr_err("nvidia profile: pool [%u][%u] reads node_id=%u order=%u: nv_pool_node_id=%d/nv_pool_order=%d (or nv_max_page_order=%d) are wrong\n",
				       node, order, pv.node, pv.order,
				       nv.pool_node_id, nv.pool_order,
				       nv.max_page_order);
				return -EINVAL;
			}
			for (tries = 0; tries < 3; tries++)
				if (nv_list_head_sane(pool +
						      nv.pool_clean_list) &&
				    nv_list_head_sane(pool +
						      nv.pool_dirty_list))
					break;
			if (tries == 3) {
				pr_err("nvidia profile: pool [%u][%u] lists are not list heads: nv_pool_clean_list=%d/nv_pool_dirty_list=%d are wrong\n",
				       node, order, nv.pool_clean_list,
				       nv.pool_dirty_list);
				return -EINVAL;
			}
			pools++;
		}
	}
	pr_info("nvidia profile: %u live pools match the layout\n", pools);
	return 0;
}

static int nv_attach(const char *target)
{
	int ret;

	ret = nv_check_live_pools(target);
	if (ret)
		return ret;
	ret = pt_tp_attach(&nv_tp_free);
	if (ret)
		return ret;
	ret = pt_tp_attach(&nv_tp_alloc);
	if (ret)
		goto err_free;
	ret = pt_probes_attach(nv_probes, ARRAY_SIZE(nv_probes), target);
	if (ret)
		goto err_alloc;
	return 0;
err_alloc:
	pt_tp_detach(&nv_tp_alloc);
err_free:
	pt_tp_detach(&nv_tp_free);
	return ret;
}

static void nv_detach(void)
{
	pt_probes_detach(nv_probes, ARRAY_SIZE(nv_probes));
	pt_tp_detach(&nv_tp_alloc);
	pt_tp_detach(&nv_tp_free);
}

static void nv_show_probes(struct seq_file *m)
{
	pt_probes_show(m, nv_probes, ARRAY_SIZE(nv_probes));
	seq_printf(m, "tracepoint=kmem:%s hooked=%d hits=%lld\n",
		   nv_tp_free.name, nv_tp_free.registered,
		   atomic64_read(&nv_tp_free.hits));
	seq_printf(m, "tracepoint=kmem:%s hooked=%d hits=%lld\n",
		   nv_tp_alloc.name, nv_tp_alloc.registered,
		   atomic64_read(&nv_tp_alloc.hits));
}

static void nv_show_stats(struct seq_file *m)
{
#define S(x) \
	seq_printf(m, "nv_" #x "=%lld\n", (long long)atomic64_read(&nv_stats.x))
	S(decode_errors);
	S(take_mismatch);
	S(reclaim_mismatch);
	S(shrink_count_calls);
	S(shrink_count_sum);
	S(shrink_scan_calls);
	S(shrink_scan_freed);
	S(mmaps);
	S(mmap_failed);
	S(inserts);
	S(insert_failed);
#undef S
	seq_printf(m, "nv_allocations=%d\n", atomic_read(&nv_stats.alloc_seq));
}

const struct pt_profile pt_profile_nvidia = {
	.name = "nvidia",
	.default_target = "nvidia",
	.anchor_symbol = "nv_alloc_system_pages",
	.check_params = nv_check_params,
	.attach = nv_attach,
	.detach = nv_detach,
	.show_probes = nv_show_probes,
	.show_stats = nv_show_stats,
};
