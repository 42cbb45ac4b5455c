// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the pools' NUMA-aware shrinkers. Units are chunks, as in the
 * driver (an order-9 pool reports one object per 2 MiB); count answers
 * only for the pool's own node; scan takes dirty chunks first, then clean
 * ones, onto a private list and frees them after dropping the lock.
 */
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/shrinker.h>
#include "nvsim.h"

/* Inlined in the driver, as nv_mem_pool_get_from_shrinker(). */
static __always_inline nv_page_pool_t *nvsim_pool_of(struct shrinker *shrinker)
{
#ifdef NV_SHRINKER_ALLOC_PRESENT
	return shrinker->private_data;
#else
	return container_of(shrinker, nv_page_pool_t, _shrinker);
#endif
}

unsigned long PROBE_POINT nv_mem_pool_shrinker_count(struct shrinker *shrinker,
						     struct shrink_control *sc)
{
	nv_page_pool_t *mem_pool = nvsim_pool_of(shrinker);
	unsigned long pages_owned = 0;

	nvsim_inc(shrinker_counts);
	if (sc->nid == mem_pool->node_id) {
		if (os_acquire_mutex(mem_pool->lock) != NV_OK)
			return 0;
		/* the chunk the scrubber is clearing counts too */
		pages_owned = mem_pool->pages_owned;
		os_release_mutex(mem_pool->lock);
	}
	return pages_owned ? pages_owned : SHRINK_EMPTY;
}

unsigned long PROBE_POINT nv_mem_pool_shrinker_scan(struct shrinker *shrinker,
						    struct shrink_control *sc)
{
	nv_page_pool_t *mem_pool = nvsim_pool_of(shrinker);
	unsigned long remaining, freed;
	LIST_HEAD(reclaim_list);

	nvsim_inc(shrinker_scans);
	if (sc->nid != mem_pool->node_id)
		return SHRINK_STOP;

	if (os_acquire_mutex(mem_pool->lock) != NV_OK)
		return SHRINK_STOP;
	remaining = nv_mem_pool_move_pages(&reclaim_list, &mem_pool->dirty_list, sc->nr_to_scan);
	remaining = nv_mem_pool_move_pages(&reclaim_list, &mem_pool->clean_list, remaining);
	freed = sc->nr_to_scan - remaining;
	mem_pool->pages_owned -= freed;
	nvsim_add(chunks_transit, freed);
	os_release_mutex(mem_pool->lock);

	nv_mem_pool_free_page_list(&reclaim_list, mem_pool->order);
	nvsim_sub(chunks_transit, freed);
	nvsim_add(chunks_reclaimed, freed);

	return freed ? freed : SHRINK_STOP;
}

struct shrinker *nv_mem_pool_shrinker_alloc(nv_page_pool_t *mem_pool)
{
#ifdef NV_SHRINKER_ALLOC_PRESENT
	return shrinker_alloc(SHRINKER_NUMA_AWARE, "nv-sysmem-alloc-node-%d-order-%u",
			      mem_pool->node_id, mem_pool->order);
#else
	return &mem_pool->_shrinker;
#endif
}

void nv_mem_pool_shrinker_register(nv_page_pool_t *mem_pool, struct shrinker *shrinker)
{
#ifdef NV_SHRINKER_ALLOC_PRESENT
	shrinker->private_data = mem_pool;
	shrinker_register(shrinker);
#else
	shrinker->flags |= SHRINKER_NUMA_AWARE;
	if (register_shrinker(shrinker, "nv-sysmem-alloc-node-%d-order-%u",
			      mem_pool->node_id, mem_pool->order))
		pr_warn("nvsim: shrinker for node %d order %u not registered\n",
			mem_pool->node_id, mem_pool->order);
#endif
}

void nv_mem_pool_shrinker_free(nv_page_pool_t *mem_pool)
{
	if (!mem_pool->shrinker)
		return;
#ifdef NV_SHRINKER_ALLOC_PRESENT
	shrinker_free(mem_pool->shrinker);
#else
	unregister_shrinker(mem_pool->shrinker);
#endif
}
