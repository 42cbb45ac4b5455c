// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the pool scrubber. It runs on the pool's own kthread and clears
 * dirty chunks one at a time with no lock held. The order of steps is the
 * driver's and tracers rely on it: at each unlock from this function,
 * clean_list.next is the chunk it has just scrubbed (or the list is
 * unchanged on the first pass), and the chunk being cleared is on neither
 * list but still counted in pages_owned.
 */
#include <linux/list.h>
#include "nvsim.h"

void PROBE_POINT nv_mem_pool_worker(void *arg)
{
	nv_page_pool_t *mem_pool = arg;
	struct nvsim_pool_aux *aux = nvsim_pool_aux(mem_pool);
	nv_page_pool_entry_t *entry = NULL;

	nvsim_inc(scrubber_runs);
	for (;;) {
		os_acquire_mutex(mem_pool->lock);
		/* The chunk scrubbed last pass: saves taking the lock again. */
		if (entry) {
			list_add(&entry->list_node, &mem_pool->clean_list);
			aux->inflight = NULL;
			nvsim_inc(chunks_scrubbed);
		}

		entry = list_first_entry_or_null(&mem_pool->dirty_list, nv_page_pool_entry_t,
						 list_node);
		if (!entry) {
			os_release_mutex(mem_pool->lock);
			break;
		}
		list_del(&entry->list_node);
		aux->inflight = entry;
		os_release_mutex(mem_pool->lock);

		nv_mem_pool_clear_page(entry->virt_addr, mem_pool->order);
	}
}
