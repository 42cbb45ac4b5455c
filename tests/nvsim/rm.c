// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the resource-manager side of an allocation: nvos_create_alloc(),
 * RM's usage_count reference, handles, and the free that runs when the
 * last reference goes (RM's free or the last VMA's close, nv.c:4000-4038).
 * With fault_stale_context a freed allocation is kept in a graveyard, so a
 * stale context reads valid memory holding stale data instead of freed slab.
 */
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "nvsim.h"

/* Upper bound for one allocation: 1 GiB, also keeps at->size in 32 bits. */
#define NVSIM_MAX_ALLOC_PAGES	(1U << 18)

/* Guards the lists and handles below; nvidia_mmap holds it across the map. */
DEFINE_MUTEX(nvsim_allocs_lock);
static LIST_HEAD(nvsim_allocs);		/* every allocation not yet freed */
static LIST_HEAD(nvsim_graveyard);	/* freed while fault_stale_context */
static DEFINE_IDR(nvsim_handles);	/* handles RM still holds, never reused */

static struct nvsim_alloc *nvos_create_alloc(unsigned int num_pages)
{
	struct nvsim_alloc *na = kzalloc(sizeof(*na), GFP_KERNEL);

	if (!na)
		return NULL;
	na->at.page_table = kvzalloc(array_size(num_pages, sizeof(nvidia_pte_t)), GFP_KERNEL);
	if (!na->at.page_table) {
		kfree(na);
		return NULL;
	}
	na->at.num_pages = num_pages;
	INIT_LIST_HEAD(&na->node);
	return na;
}

static void nvos_free_alloc(nv_alloc_t *at)
{
	struct nvsim_alloc *na = to_nvsim_alloc(at);
	bool keep;

	mutex_lock(&nvsim_allocs_lock);
	keep = fault_stale_context && !list_empty(&na->node);
	list_del_init(&na->node);
	if (keep) {
		na->dead = true;
		list_add_tail(&na->node, &nvsim_graveyard);
	}
	mutex_unlock(&nvsim_allocs_lock);

	if (keep) {
		nvsim_inc(fault_stale_graveyard);
		return;
	}
	kvfree(at->page_table);
	kfree(na);
}

/*
 * Drop one usage_count reference (RM's, or one a VMA close handed back);
 * at zero free the pages, then the allocation.
 */
void nvsim_alloc_put(nv_alloc_t *at)
{
	struct nvsim_alloc *na = to_nvsim_alloc(at);
	bool atomic_free;

	/*
	 * A VMA mapped through a stale context is closing. The driver would
	 * free the pages a second time here; nvsim counts it and stops.
	 */
	if (na->dead) {
		nvsim_inc(fault_stale_releases);
		return;
	}
	if (!atomic64_dec_and_test(&at->usage_count))
		return;

	/* fault_admit_atomic: the driver frees where it cannot sleep. */
	atomic_free = at->flags.pool && nvsim_fault_admit_atomic();
	nvsim_contain_before_free(at);
	if (atomic_free)
		preempt_disable();
	if (at->flags.contig)
		nv_free_contig_pages(at);
	else
		nv_free_system_pages(at);
	if (atomic_free)
		preempt_enable();
	nvsim_dec(allocs_live);
	nvsim_inc(allocs_freed);
	nvos_free_alloc(at);
}

static int nvsim_rm_alloc_check(const struct nvsim_alloc_req *req)
{
	bool contig = req->flags & NVSIM_ALLOC_CONTIG;

	if (!req->num_pages || req->num_pages > NVSIM_MAX_ALLOC_PAGES)
		return -EINVAL;
	/*
	 * The driver lets a contiguous request exceed NV_MAX_PAGE_ORDER (its
	 * get_order() is unbounded): the buddy allocator then fails it and
	 * nv_free_system_pages runs on the failure path with that order.
	 */
	if (contig && get_order((unsigned long)req->num_pages * PAGE_SIZE) > NV_MAX_PAGE_ORDER + 2)
		return -EINVAL;
	if (!contig && req->order > NV_MAX_PAGE_ORDER)
		return -EINVAL;
	if ((req->flags & NVSIM_ALLOC_NODE) &&
	    (req->node < 0 || req->node >= MAX_NUMNODES || !node_online(req->node)))
		return -EINVAL;
	if (req->flags & ~(NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_UNCACHED | NVSIM_ALLOC_CONTIG |
			   NVSIM_ALLOC_NODE | NVSIM_ALLOC_DMA32))
		return -EINVAL;
	return 0;
}

/* RM's allocation: nv_alloc_pages() with RM's usage_count reference. */
int nvsim_rm_alloc(void *owner, struct nvsim_alloc_req *req)
{
	struct nvsim_alloc *na;
	nv_alloc_t *at;
	NV_STATUS status;
	int handle;
	int rc;

	rc = nvsim_rm_alloc_check(req);
	if (rc) {
		nvsim_inc(ioctl_rejected);
		return rc;
	}
	nvsim_fault_inject_alloc();

	na = nvos_create_alloc(req->num_pages);
	if (!na) {
		nvsim_inc(allocs_failed);
		return -ENOMEM;
	}
	at = &na->at;
	at->size = req->num_pages * PAGE_SIZE;
	at->order = req->order;
	at->flags.zeroed = !!(req->flags & NVSIM_ALLOC_ZEROED);
	at->flags.contig = !!(req->flags & NVSIM_ALLOC_CONTIG);
	at->flags.node = !!(req->flags & NVSIM_ALLOC_NODE);
	at->node_id = at->flags.node ? req->node : NUMA_NO_NODE;
	at->cache_type = (req->flags & NVSIM_ALLOC_UNCACHED) ? NV_MEMORY_UNCACHED :
							       NV_MEMORY_CACHED;
	at->pid = task_tgid_nr(current);
	na->force_dma32 = !!(req->flags & NVSIM_ALLOC_DMA32);
	na->owner = owner;

	nvsim_inc(allocs_total);
	if (at->flags.contig)
		status = nv_alloc_contig_pages(&nvsim_ctl_state, at);
	else
		status = nv_alloc_system_pages(&nvsim_ctl_state, at);
	req->status = status;
	if (status != NV_OK) {
		nvsim_inc(allocs_failed);
		nvos_free_alloc(at);
		return -ENOMEM;
	}

	/* RM's reference (nv.c:3988); each VMA adds one. */
	atomic64_set(&at->usage_count, 1);
	na->rm_ref = true;
	nvsim_inc(allocs_live);
	if (at->flags.pool)
		nvsim_inc(allocs_pooled);

	mutex_lock(&nvsim_allocs_lock);
	handle = idr_alloc_cyclic(&nvsim_handles, na, 1, 0, GFP_KERNEL);
	if (handle > 0) {
		na->handle = handle;
		list_add_tail(&na->node, &nvsim_allocs);
	}
	mutex_unlock(&nvsim_allocs_lock);
	if (handle < 0) {
		nvsim_inc(allocs_failed);
		nvsim_alloc_put(at);
		return handle;
	}

	req->handle = handle;
	req->chunks = nvsim_alloc_chunks(at);
	req->pool_chunks = na->pool_chunks;
	req->pooled = at->flags.pool;
	req->order_out = at->order;
	req->first_pfn = at->page_table[0].phys_addr >> PAGE_SHIFT;
	return 0;
}

/* RM frees its handle: drops RM's reference; VMAs may keep the pages. */
int nvsim_rm_free(void *owner, u32 handle)
{
	struct nvsim_alloc *na;

	nvsim_fault_inject_free();
	mutex_lock(&nvsim_allocs_lock);
	na = idr_find(&nvsim_handles, handle);
	if (na && na->owner == owner) {
		idr_remove(&nvsim_handles, handle);
		na->rm_ref = false;
	} else {
		na = NULL;
	}
	mutex_unlock(&nvsim_allocs_lock);
	if (!na) {
		nvsim_inc(ioctl_rejected);
		return -ENOENT;
	}
	nvsim_alloc_put(&na->at);
	return 0;
}

/* The client's file closes: RM frees whatever it still holds. */
void nvsim_rm_free_owner(void *owner)
{
	for (;;) {
		struct nvsim_alloc *na;
		int id;

		mutex_lock(&nvsim_allocs_lock);
		idr_for_each_entry(&nvsim_handles, na, id)
			if (na->owner == owner)
				break;
		if (na) {
			idr_remove(&nvsim_handles, na->handle);
			na->rm_ref = false;
		}
		mutex_unlock(&nvsim_allocs_lock);
		if (!na)
			return;
		nvsim_alloc_put(&na->at);
	}
}

struct nvsim_alloc *nvsim_alloc_find_locked(u32 handle)
{
	lockdep_assert_held(&nvsim_allocs_lock);
	return idr_find(&nvsim_handles, handle);
}

int nvsim_alloc_state_locked(nv_alloc_t *at)
{
	struct nvsim_alloc *na;

	lockdep_assert_held(&nvsim_allocs_lock);
	list_for_each_entry(na, &nvsim_allocs, node)
		if (&na->at == at)
			return 1;
	list_for_each_entry(na, &nvsim_graveyard, node)
		if (&na->at == at)
			return 2;
	return 0;
}

/* Chunks of live allocations, for the double-ownership check. */
int nvsim_allocs_collect_locked(struct nvsim_owner *owners, int max)
{
	struct nvsim_alloc *na;
	int n = 0;

	lockdep_assert_held(&nvsim_allocs_lock);
	list_for_each_entry(na, &nvsim_allocs, node) {
		nv_alloc_t *at = &na->at;
		unsigned int chunks = nvsim_alloc_chunks(at);
		unsigned int i;

		for (i = 0; i < chunks; i++) {
			if (n == max)
				return -ENOSPC;
			owners[n++] = (struct nvsim_owner) {
				.pfn = at->page_table[i << at->order].phys_addr >> PAGE_SHIFT,
				.npages = 1UL << at->order,
				.kind = NVSIM_OWNER_ALLOC,
				.id = na->handle,
				.index = i,
			};
		}
	}
	return n;
}

/*
 * One line per allocation. The raw nv_alloc_t pointer is printed on
 * purpose: tests match it against what probes on nvsim's functions saw.
 */
void nvsim_allocs_show(struct seq_file *m)
{
	struct nvsim_alloc *na;

	mutex_lock(&nvsim_allocs_lock);
	list_for_each_entry(na, &nvsim_allocs, node)
		seq_printf(m, "handle=%u at=%px pages=%u order=%u chunks=%u usage=%lld pool=%u contig=%u coherent=%u first_pfn=0x%llx dead=0\n",
			   na->handle, &na->at, na->at.num_pages, na->at.order,
			   nvsim_alloc_chunks(&na->at), atomic64_read(&na->at.usage_count),
			   na->at.flags.pool, na->at.flags.contig, na->at.flags.coherent,
			   na->at.page_table[0].phys_addr >> PAGE_SHIFT);
	list_for_each_entry(na, &nvsim_graveyard, node)
		seq_printf(m, "handle=%u at=%px pages=%u order=%u usage=%lld dead=1\n",
			   na->handle, &na->at, na->at.num_pages, na->at.order,
			   atomic64_read(&na->at.usage_count));
	mutex_unlock(&nvsim_allocs_lock);
}

/* Unload: every file is closed, so only the graveyard should be left. */
void nvsim_alloc_exit(void)
{
	struct nvsim_alloc *na, *tmp;
	int id;

	idr_for_each_entry(&nvsim_handles, na, id) {
		pr_warn("nvsim: unload: handle %u still allocated, freeing it\n", na->handle);
		atomic64_set(&na->at.usage_count, 1);
		nvsim_alloc_put(&na->at);
	}
	idr_destroy(&nvsim_handles);

	list_for_each_entry_safe(na, tmp, &nvsim_graveyard, node) {
		list_del(&na->node);
		kvfree(na->at.page_table);
		kfree(na);
	}
}
