// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the per-(node, order) system-memory pools of driver 590.44.01+
 * (nvidia-pool.md Q4): creation per NVreg_EnableSystemMemoryPools, the
 * pool take, admission, list moves and frees, destruction at unload.
 * Every list and pages_owned change happens under the pool lock; entries
 * leave on caller-private lists and only the remover frees them.
 */
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include "nvsim.h"
#ifndef NVSIM_INLINE_HELPERS
#include "nvsim_helpers.h"	/* the out-of-line definitions */
#endif
#ifndef NVSIM_STATIC_POOL
#include "nvsim_pool_io.h"	/* the out-of-line take and admission */
#endif

/*
 * Bit (page size >> 12) enables the pool of that page size: the default
 * 0x211 means orders 0, 4 and 9 on 4 KiB pages. Perms 0 like the driver's
 * registry parameters: set it at load, it is not in sysfs.
 */
unsigned int NVreg_EnableSystemMemoryPools = 0x211;
module_param(NVreg_EnableSystemMemoryPools, uint, 0);
MODULE_PARM_DESC(NVreg_EnableSystemMemoryPools, "page sizes (bit = size >> 12) that get a pool");

nv_page_pool_t *sysmem_page_pools[MAX_NUMNODES][NV_MAX_PAGE_ORDER + 1];

static struct nvsim_pool_aux *nvsim_aux;

struct nvsim_pool_aux *nvsim_pool_aux(const nv_page_pool_t *mem_pool)
{
	return &nvsim_aux[mem_pool->node_id * (NV_MAX_PAGE_ORDER + 1) + mem_pool->order];
}

int nvsim_pool_aux_init(void)
{
	nvsim_aux = kcalloc(nr_node_ids * (NV_MAX_PAGE_ORDER + 1), sizeof(*nvsim_aux),
			    GFP_KERNEL);
	return nvsim_aux ? 0 : -ENOMEM;
}

void nvsim_pool_aux_exit(void)
{
	kfree(nvsim_aux);
	nvsim_aux = NULL;
}

static unsigned long nvsim_list_count(const struct list_head *head)
{
	const struct list_head *pos;
	unsigned long n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/*
 * Unload or init failure only: dirty list, stop the scrubber, clean list.
 * Static from 610.x (NVSIM_DESTROY_FN).
 */
NVSIM_DESTROY_FN void nv_mem_pool_destroy(nv_page_pool_t *mem_pool)
{
	/* The driver would dereference a NULL lock here on init failure. */
	if (mem_pool->lock) {
		os_acquire_mutex(mem_pool->lock);
		nvsim_add(chunks_destroyed, nvsim_list_count(&mem_pool->dirty_list));
		nv_mem_pool_free_page_list(&mem_pool->dirty_list, mem_pool->order);
		os_release_mutex(mem_pool->lock);
	}

	/* Waits for a running pass, which parks its entry on the clean list. */
	nv_kthread_q_stop(&mem_pool->scrubber_queue);

	if (mem_pool->lock) {
		os_acquire_mutex(mem_pool->lock);
		nvsim_add(chunks_destroyed, nvsim_list_count(&mem_pool->clean_list));
		nv_mem_pool_free_page_list(&mem_pool->clean_list, mem_pool->order);
		os_release_mutex(mem_pool->lock);
	}

	nv_mem_pool_shrinker_free(mem_pool);
	if (mem_pool->lock)
		os_free_mutex(mem_pool->lock);
	kfree(mem_pool);
}

nv_page_pool_t * PROBE_POINT nv_mem_pool_init(int node_id, unsigned int order)
{
	nv_page_pool_t *mem_pool;
	struct shrinker *shrinker;

	mem_pool = kzalloc(sizeof(*mem_pool), GFP_KERNEL);
	if (!mem_pool)
		return NULL;
	mem_pool->node_id = node_id;
	mem_pool->order = order;
	INIT_LIST_HEAD(&mem_pool->clean_list);
	INIT_LIST_HEAD(&mem_pool->dirty_list);

	if (os_alloc_mutex(&mem_pool->lock) != NV_OK) {
		pr_warn("nvsim: pool node %d order %u: no mutex\n", node_id, order);
		goto failed;
	}
	if (nv_kthread_q_init_on_node(&mem_pool->scrubber_queue, "nv_mem_pool_scrubber_queue",
				      node_id))
		goto failed;
	nv_kthread_q_item_init(&mem_pool->scrubber_queue_item, nv_mem_pool_worker, mem_pool);

	shrinker = nv_mem_pool_shrinker_alloc(mem_pool);
	if (!shrinker) {
		pr_warn("nvsim: pool node %d order %u: no shrinker\n", node_id, order);
		goto failed;
	}
	shrinker->count_objects = nv_mem_pool_shrinker_count;
	shrinker->scan_objects = nv_mem_pool_shrinker_scan;
	shrinker->seeks = 1;
	nv_mem_pool_shrinker_register(mem_pool, shrinker);
	mem_pool->shrinker = shrinker;
	return mem_pool;

failed:
	nv_mem_pool_destroy(mem_pool);
	return NULL;
}

NV_STATUS nv_init_page_pools(void)
{
	unsigned int order;
	int node_id;

	for_each_node(node_id) {
		for (order = 0; order <= NV_MAX_PAGE_ORDER; order++) {
			unsigned long page_size = PAGE_SIZE << order;

			if (!(NVreg_EnableSystemMemoryPools &
			      (page_size >> NV_ENABLE_SYSTEM_MEMORY_POOLS_SHIFT)))
				continue;
			sysmem_page_pools[node_id][order] = nv_mem_pool_init(node_id, order);
			if (!sysmem_page_pools[node_id][order])
				return NV_ERR_NO_MEMORY;
		}
	}
	return NV_OK;
}

void nv_destroy_page_pools(void)
{
	unsigned int order;
	int node_id;

	for_each_node(node_id) {
		for (order = 0; order <= NV_MAX_PAGE_ORDER; order++) {
			if (!sysmem_page_pools[node_id][order])
				continue;
			nv_mem_pool_destroy(sysmem_page_pools[node_id][order]);
			sysmem_page_pools[node_id][order] = NULL;
		}
	}
}

/* Let every scrubber finish what is queued: the next take finds clean chunks. */
int nvsim_drain_pools(void)
{
	nv_page_pool_t *mem_pool;
	unsigned int order;
	int node_id, n = 0;

	for_each_nvsim_pool(node_id, order, mem_pool) {
		nv_kthread_q_flush(&mem_pool->scrubber_queue);
		n++;
	}
	return n;
}

/*
 * Reclaim every pool through its own shrinker scan, scrubbers flushed
 * first, so that the next take finds no pooled chunk at all (drain only
 * finishes the scrubbing; what is clean stays pooled).
 */
int nvsim_empty_pools(void)
{
	nv_page_pool_t *mem_pool;
	unsigned int order;
	int node_id, n = 0;

	for_each_nvsim_pool(node_id, order, mem_pool) {
		struct shrink_control sc = { .gfp_mask = GFP_KERNEL, .nid = node_id };

		nv_kthread_q_flush(&mem_pool->scrubber_queue);
		do {
			sc.nr_to_scan = max(READ_ONCE(mem_pool->pages_owned), 1UL);
		} while (nv_mem_pool_shrinker_scan(mem_pool->shrinker, &sc) != SHRINK_STOP);
		n++;
	}
	return n;
}
