/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver's three static list helpers: nv_alloc_set_page (nv-vm.c:285),
 * nv_mem_pool_move_pages and nv_mem_pool_free_page_list. GCC -O2 keeps them
 * out of line (the default build: PROBE_POINT, defined once, in pool.c);
 * clang -O2 and GCC -O3 builds inline them into every caller and no symbol
 * is left. NVSIM_INLINE_HELPERS=1 builds that variant: every file that
 * calls them gets a plain static copy the compiler inlines
 * (scripts/build-modules puts it in OUT/ko/inline/nvsim.ko).
 */
#ifndef NVSIM_HELPERS_H
#define NVSIM_HELPERS_H

#include <linux/io.h>
#include <linux/list.h>
#include <linux/slab.h>
#include "nvsim.h"

#ifdef NVSIM_INLINE_HELPERS
/* Forced: a kernel built for size (-Os, the sanitizer kernels) keeps them. */
#define NVSIM_HELPER static __always_inline
#else
#define NVSIM_HELPER PROBE_POINT
#endif

/* Describe chunk page_idx: one page_table entry per 4 KiB page in it. */
NVSIM_HELPER void nv_alloc_set_page(nv_alloc_t *at, unsigned int page_idx,
				    unsigned long virt_addr)
{
	unsigned long phys_addr = virt_to_phys((void *)virt_addr);
	unsigned int per_chunk = 1U << at->order;
	unsigned int base = page_idx * per_chunk;
	unsigned int n = min(at->num_pages - base, per_chunk);
	unsigned int i;

	for (i = 0; i < n; i++) {
		at->page_table[base + i].virt_addr = virt_addr + i * PAGE_SIZE;
		at->page_table[base + i].phys_addr = phys_addr + i * PAGE_SIZE;
	}
	nvsim_inc(set_page_calls);
	nvsim_inc(chunks_live);
}

/* Move up to max entries from the head of src onto dst; returns how many were left to move. */
NVSIM_HELPER unsigned long nv_mem_pool_move_pages(struct list_head *dst_list,
						  struct list_head *src_list,
						  unsigned long max_entries_to_move)
{
	while (max_entries_to_move > 0) {
		nv_page_pool_entry_t *entry;

		entry = list_first_entry_or_null(src_list, nv_page_pool_entry_t, list_node);
		if (!entry)
			break;
		list_del(&entry->list_node);
		list_add(&entry->list_node, dst_list);
		max_entries_to_move--;
	}
	return max_entries_to_move;
}

/* Free every chunk on the list back to the buddy allocator. */
NVSIM_HELPER void nv_mem_pool_free_page_list(struct list_head *free_list, unsigned int order)
{
	nv_page_pool_entry_t *entry;

	while ((entry = list_first_entry_or_null(free_list, nv_page_pool_entry_t, list_node))) {
		list_del(&entry->list_node);
		/* A chunk foreign_put already freed must not be freed twice. */
		if (!nvsim_fault_consume(entry->virt_addr, order)) {
			free_pages(entry->virt_addr, order);
			nvsim_chunk_freed(order);
		}
		kfree(entry);
	}
}

#endif /* NVSIM_HELPERS_H */
