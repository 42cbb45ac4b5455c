// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail NVIDIA profile, layout and decoding: the layout parameters, safe
 * reads of driver memory, views of nv_alloc_t and nv_page_pool_t, and the
 * chunk walks. Every offset comes from scripts/pagetrail-load (BTF, DWARF
 * or a table of released layouts).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mm.h>
#include <linux/math64.h>
#include <linux/uaccess.h>
#include <linux/nodemask.h>
#include <pagetrail/memsafe.h>
#include <pagetrail/stage.h>
#include <pagetrail/hitcount.h>
#include "nvidia.h"

/* --- layout parameters ------------------------------------------------- */

struct pt_nv_layout nv_layout = {
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

#define PT_NV_PARAM(field, desc)                                    \
	module_param_named(nv_##field, nv_layout.field, int, 0444); \
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

struct pt_nv_stats nv_stats;

/* Not in nv_stats: a reset must not hand out a number twice. */
static atomic_t nv_alloc_seq;

u32 nv_alloc_number(void)
{
	return atomic_inc_return(&nv_alloc_seq);
}

u32 nv_allocations(void)
{
	return atomic_read(&nv_alloc_seq);
}

/*
 * Every counter, while handlers on other CPUs add to them: one atomic
 * store each (a memset's plain stores could tear or undo an increment).
 */
DEFINE_PER_CPU(u64[NV_HIT_MAX], nv_hits);

void nv_stats_reset(void)
{
	atomic64_t *c = (atomic64_t *)&nv_stats;
	size_t i;

	BUILD_BUG_ON(sizeof(nv_stats) % sizeof(*c));
	for (i = 0; i < sizeof(nv_stats) / sizeof(*c); i++)
		atomic64_set(&c[i], 0);
	pt_hit_reset(nv_hits);
}

static unsigned int nv_walk_max = PT_NV_WALK_CHUNKS;
module_param(nv_walk_max, uint, 0644);
MODULE_PARM_DESC(nv_walk_max,
		 "chunks one probe handler walks at most (1 to the build's cap: 65536, 4096 under PREEMPT_RT)");

/* nv_walk_max, within [1, PT_NV_WALK_CHUNKS]. */
unsigned int nv_walk_cap(void)
{
	return clamp(READ_ONCE(nv_walk_max), 1u, PT_NV_WALK_CHUNKS);
}

/* --- safe reads of driver memory --------------------------------------- */

/*
 * Every address read here is a driver object plus a layout offset: if it
 * cannot be read, the offsets do not describe this driver, so detach.
 */

bool nv_read_failed(unsigned long addr, bool ram)
{
	nv_decode_error(
		ram ? "unreadable driver memory at a layout offset" :
		      "driver pointer into vmalloc space without RAM (MMIO?)",
		addr);
	return false;
}

/*
 * A value the layout says is there is not: the parameters do not describe
 * this driver. Every record from here on would be wrong, so detach.
 */
void nv_decode_error(const char *what, unsigned long obj)
{
	atomic64_inc(&nv_stats.decode_errors);
	pr_warn_ratelimited(
		"nvidia profile: implausible %s; check the layout parameters\n",
		what);
	pt_target_fail(what);
}

/*
 * NV_MAX_PAGE_ORDER only sizes the pool table: a contiguous allocation has
 * the order of its whole size (get_order(), unbounded; one over the table
 * on 6.4-6.7 for 4 MiB). So the order is plausible when a pool could have
 * it or the allocation's size gives it.
 */
static bool nv_alloc_order_plausible(u32 order, u32 num_pages)
{
	if (order <= nv_layout.max_page_order)
		return true;
	return order < 32 && num_pages > (1u << order) / 2 &&
	       num_pages <= (1u << order);
}

bool nv_alloc_read(unsigned long at, struct nv_alloc_view *v)
{
	v->at = at;
	v->ram_page = 0;
	if (!nv_read_ulong(at + nv_layout.alloc_page_table, &v->page_table) ||
	    !nv_read_u32(at + nv_layout.alloc_num_pages, &v->num_pages) ||
	    !nv_read_u32(at + nv_layout.alloc_order, &v->order))
		return false;
	if (!v->page_table || !v->num_pages ||
	    !nv_alloc_order_plausible(v->order, v->num_pages)) {
		nv_decode_error("nv_alloc_t order/num_pages/page_table", at);
		return false;
	}
	return true;
}

/*
 * @at's view: from the memo of @f, the call working on @at (an
 * allocation's page table, size and order do not change while it runs),
 * else read, and kept there. *fresh: read now.
 */
bool nv_alloc_view_in(struct pt_frame *f, unsigned long at,
		      struct nv_alloc_view *v, bool *fresh)
{
	bool mine = f && f->obj == at;

	*fresh = !(mine && pt_frame_memo_load(f, v));
	if (!*fresh)
		return true;
	if (!nv_alloc_read(at, v))
		return false;
	if (mine)
		pt_frame_memo_store(f, v);
	return true;
}

/*
 * A walk reads the page table entry by entry: a page of it found backed
 * by RAM once (a vmalloc'd table: a page-table walk per check) stays so
 * while the allocation, the caller's argument, is alive.
 */
bool nv_pte_virt(struct nv_alloc_view *v, u32 idx, unsigned long *va)
{
	unsigned long addr = v->page_table +
			     (unsigned long)idx * nv_layout.pte_size +
			     nv_layout.pte_virt_addr;

	if (v->ram_page && (addr & PAGE_MASK) == v->ram_page &&
	    ((addr + sizeof(*va) - 1) & PAGE_MASK) == v->ram_page)
		return nv_read_ram(addr, va, sizeof(*va));
	if (!nv_read_ulong(addr, va))
		return false;
	if (((addr + sizeof(*va) - 1) & PAGE_MASK) == (addr & PAGE_MASK))
		v->ram_page = addr & PAGE_MASK;
	return true;
}

bool nv_pool_read(unsigned long pool, struct nv_pool_view *v)
{
	v->pool = pool;
	if (!nv_read_u32(pool + nv_layout.pool_node_id, &v->node) ||
	    !nv_read_u32(pool + nv_layout.pool_order, &v->order))
		return false;
	if (v->order > nv_layout.max_page_order || v->node >= MAX_NUMNODES) {
		nv_decode_error("nv_page_pool_t node/order", pool);
		return false;
	}
	return true;
}

u32 nv_pool_aux(const struct nv_pool_view *p)
{
	return p->node << 16 | p->order;
}

/* A record's aux for the pool at @pool: node << 16 | order, 0 if unreadable. */
u32 nv_pool_aux_at(unsigned long pool)
{
	struct nv_pool_view pv;

	return nv_pool_read(pool, &pv) ? nv_pool_aux(&pv) : 0;
}

unsigned long nv_entry_va(unsigned long list_node)
{
	unsigned long va = 0;

	nv_read_ulong(list_node - nv_layout.entry_list_node +
			      nv_layout.entry_virt_addr,
		      &va);
	return va;
}

/*
 * Probe handlers run with preemption off: a walk does a bounded amount of
 * work, stops at the first contradiction, and once the profile is failing.
 * What it leaves out is counted (a list's rest is not ours to count).
 */
static bool nv_walk_goes_on(u32 done, u32 cap)
{
	if (pt_target_failing())
		return false;
	if (done < cap)
		return true;
	atomic64_inc(&nv_stats.walks_truncated);
	return false;
}

/*
 * A pool entry's chunk address and the next node of its list, given its
 * list node: one read where the two fields are near each other (every
 * released layout: virt_addr 8 bytes below list_node), else two.
 */
static bool nv_entry_read(unsigned long node, unsigned long *va,
			  unsigned long *next)
{
	long va_at =
		(long)nv_layout.entry_virt_addr - nv_layout.entry_list_node;
	long lo = min(va_at, 0L), hi = max(va_at, 0L) + (long)sizeof(*va);
	u8 buf[4 * sizeof(*va)];

	if (hi - lo > (long)sizeof(buf)) {
		*va = nv_entry_va(node);
		return nv_read_ulong(node, next);
	}
	if (!nv_read(node + lo, buf, hi - lo))
		return false;
	memcpy(va, buf + (va_at - lo), sizeof(*va));
	memcpy(next, buf - lo, sizeof(*next));
	return true;
}

/* Walk a list_head of pool entries; stable because the caller owns it. */
u32 nv_walk_entries(unsigned long head, struct pt_obs *obs)
{
	unsigned long node, va, next;
	u32 n = 0, seen = 0, cap = nv_walk_cap();
	bool batch;
	int ret;

	if (!nv_read_ulong(head, &node))
		return 0;
	/* Record first: the walk's chunks staged together. */
	batch = pt_stage_batch_open();
	while (node != head && nv_walk_goes_on(seen++, cap)) {
		if (!nv_entry_read(node, &va, &next))
			break;
		ret = nv_observe_chunk(obs, va, true, NV_VA_FROM_ENTRY);
		if (ret < 0)
			break;
		n += ret;
		node = next;
	}
	pt_stage_batch_close(batch);
	return n;
}

/*
 * Chunks [first, first + nr) of an allocation, as @obs says; how many
 * recorded. Inline into each walker below, so that @fn, known there, is
 * called directly: an indirect call per chunk goes through a retpoline.
 */
static __always_inline u32 nv_walk_alloc_do(unsigned long at, u32 first, u32 nr,
					    int (*fn)(struct pt_obs *obs,
						      unsigned long va,
						      void *arg),
					    struct pt_obs *obs, void *arg)
{
	struct nv_alloc_view av;
	unsigned long va;
	u64 i, stride, end;
	u32 seen = 0, recorded = 0, cap = nv_walk_cap();
	bool batch;
	int ret;

	if (!nv_alloc_read(at, &av))
		return 0;
	batch = pt_stage_batch_open();
	stride = 1ULL << av.order;
	end = min_t(u64, av.num_pages, ((u64)first + nr) * stride);
	obs->order = av.order;
	obs->token = pt_token(at);
	obs->owner_known = true;
	/* virt_addr == 0 ends the allocated chunks (partial allocations). */
	for (i = first * stride; i < end; i += stride) {
		if (!nv_walk_goes_on(seen++, cap)) {
			/* Past the cap: those chunks, whether allocated or not. */
			if (!pt_target_failing() && obs->role < PT_ROLE_MAX)
				atomic64_add(div64_u64(end - i + stride - 1,
						       stride),
					     &nv_stats.not_walked[obs->role]);
			break;
		}
		if (!nv_pte_virt(&av, i, &va) || !va)
			break;
		obs->index = i;
		ret = fn(obs, va, arg);
		if (ret < 0)
			break;
		recorded += ret;
	}
	pt_stage_batch_close(batch);
	return recorded;
}

/* The same for any @fn, called indirectly. */
u32 nv_walk_alloc_each(unsigned long at, u32 first, u32 nr,
		       int (*fn)(struct pt_obs *obs, unsigned long va,
				 void *arg),
		       struct pt_obs *obs, void *arg)
{
	return nv_walk_alloc_do(at, first, nr, fn, obs, arg);
}

/* @arg non-NULL: sample the struct page too. */
static int nv_observe_pte_chunk(struct pt_obs *obs, unsigned long va, void *arg)
{
	return nv_observe_chunk(obs, va, arg != NULL, NV_VA_FROM_PTE);
}

u32 nv_walk_alloc_range(unsigned long at, u32 first, u32 nr,
			struct pt_obs *obs, bool sample)
{
	return nv_walk_alloc_do(at, first, nr, nv_observe_pte_chunk, obs,
				sample ? obs : NULL);
}

/* at->flags.pool: the allocation may come from, and go back to, a pool. */
bool nv_alloc_pool_flag(unsigned long at, bool *pool)
{
	int bit = nv_layout.alloc_pool_bit;
	u8 byte;

	if (bit < 0 || !nv_read(at + bit / 8, &byte, 1))
		return false;
	*pool = byte & BIT(bit % 8);
	return true;
}

/* sysmem_page_pools[node][order], read live; 0: none, or not known. */
unsigned long nv_pool_at(u32 node, u32 order)
{
	unsigned long pool = 0;

	if (!nv_pools || node >= MAX_NUMNODES ||
	    order > nv_layout.max_page_order)
		return 0;
	nv_read_ulong(
		nv_pools +
			sizeof(void *) *
				(node * (nv_layout.max_page_order + 1) + order),
		&pool);
	return pool;
}

void nv_walk_alloc_chunks(unsigned long at, struct pt_obs *obs, bool sample)
{
	nv_walk_alloc_range(at, 0, U32_MAX, obs, sample);
}
