/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool take and admission, nv_mem_pool_alloc_pages and
 * nv_mem_pool_free_pages. Global and out of line in 590.44.01-595.x (the
 * default build: PROBE_POINT, defined once, in pool.c). 610.x made them
 * static (nvidia-610.md D1, D2); each has one caller, which GCC -O2, -O3
 * and clang inline them into. NVSIM_STATIC_POOL=1 builds that linkage:
 * alloc.c, where their callers are, gets them as plain static functions
 * (scripts/build-modules puts it in OUT/ko/610/nvsim.ko).
 */
#ifndef NVSIM_POOL_IO_H
#define NVSIM_POOL_IO_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "nvsim.h"

/* Pool take: returns how many chunks of at (from index 0) it filled. */
NVSIM_POOL_FN unsigned int nv_mem_pool_alloc_pages(nv_page_pool_t *mem_pool, nv_alloc_t *at)
{
	unsigned int wanted = DIV_ROUND_UP(at->num_pages, 1U << at->order);
	unsigned long remaining = wanted;
	unsigned int taken, taken_clean;
	nv_page_pool_entry_t *entry;
	unsigned int i = 0;
	LIST_HEAD(clean_pages);
	LIST_HEAD(dirty_pages);

	if (!NV_MAY_SLEEP()) {
		pr_warn_once("nvsim: pool take where it cannot sleep: fresh pages instead\n");
		return 0;
	}

	if (os_acquire_mutex(mem_pool->lock) != NV_OK)
		return 0;
	remaining = nv_mem_pool_move_pages(&clean_pages, &mem_pool->clean_list, remaining);
	taken_clean = wanted - remaining;
	remaining = nv_mem_pool_move_pages(&dirty_pages, &mem_pool->dirty_list, remaining);
	taken = wanted - remaining;
	mem_pool->pages_owned -= taken;
	nvsim_add(chunks_transit, taken);
	os_release_mutex(mem_pool->lock);

	while ((entry = list_first_entry_or_null(&clean_pages, nv_page_pool_entry_t,
						 list_node))) {
		nv_alloc_set_page(at, i++, entry->virt_addr);
		list_del(&entry->list_node);
		kfree(entry);
	}

	/* Not scrubbed yet: the caller clears it, synchronously, unlocked. */
	while ((entry = list_first_entry_or_null(&dirty_pages, nv_page_pool_entry_t,
						 list_node))) {
		if (!nvsim_fault_is_faulted(entry->virt_addr))
			nv_mem_pool_clear_page(entry->virt_addr, mem_pool->order);
		nv_alloc_set_page(at, i++, entry->virt_addr);
		list_del(&entry->list_node);
		kfree(entry);
	}

	nvsim_sub(chunks_transit, taken);
	nvsim_add(chunks_taken_clean, taken_clean);
	nvsim_add(chunks_taken_dirty, taken - taken_clean);
	return taken;
}

/*
 * Admission of at's chunks: wrong-node chunks and chunks that get no entry
 * go straight back to the buddy allocator, the rest onto the dirty list.
 * No page_count() check, as in the driver: that is the point of the pool's
 * ownership contract, and of fault_pinned_admit.
 */
NVSIM_POOL_FN NV_STATUS nv_mem_pool_free_pages(nv_page_pool_t *mem_pool, nv_alloc_t *at)
{
	unsigned int per_chunk = 1U << at->order;
	unsigned int chunks = DIV_ROUND_UP(at->num_pages, per_chunk);
	nv_page_pool_entry_t *entry;
	unsigned int added = 0;
	bool queue_worker;
	LIST_HEAD(freed_pages);
	unsigned int i;

	if (!NV_MAY_SLEEP()) {
		pr_warn_once("nvsim: pool admission where it cannot sleep: freed instead\n");
		nvsim_inc(admit_refused);
		return NV_ERR_INVALID_ARGUMENT;
	}

	for (i = 0; i < chunks; i++) {
		nvidia_pte_t *pte = &at->page_table[i * per_chunk];
		struct page *page;

		if (!pte->virt_addr)
			break;

		page = pfn_to_page(pte->phys_addr >> PAGE_SHIFT);
		if (page_to_nid(page) != mem_pool->node_id) {
			free_pages(pte->virt_addr, mem_pool->order);
			nvsim_inc(chunks_rejected);
			nvsim_chunk_freed(mem_pool->order);
			continue;
		}

		entry = kzalloc(sizeof(*entry), GFP_KERNEL);
		if (!entry) {
			free_pages(pte->virt_addr, mem_pool->order);
			nvsim_inc(chunks_rejected);
			nvsim_chunk_freed(mem_pool->order);
			continue;
		}
		entry->virt_addr = pte->virt_addr;
		list_add(&entry->list_node, &freed_pages);
		added++;
	}

	if (!added)
		return NV_OK;

	nvsim_add(chunks_transit, added);
	os_acquire_mutex(mem_pool->lock);
	/* A non-empty dirty list means the scrubber is already queued. */
	queue_worker = list_empty(&mem_pool->dirty_list);
	list_splice_init(&freed_pages, &mem_pool->dirty_list);
	mem_pool->pages_owned += added;
	nvsim_sub(chunks_transit, added);
	os_release_mutex(mem_pool->lock);
	nvsim_add(chunks_admitted, added);

	if (queue_worker)
		nv_mem_pool_queue_worker(mem_pool);
	/* The chunks are poolable from the unlock on (fault_release_race). */
	nvsim_fault_release_race(mem_pool, at);
	return NV_OK;
}

#endif /* NVSIM_POOL_IO_H */
