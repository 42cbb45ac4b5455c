// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: system-memory allocation and free as the driver's nv-vm.c does it
 * (595.45.04 behaviour, nvidia-pool.md Q1/Q4): gfp mask, the pool gate,
 * take from the pool first, fresh chunks from the buddy allocator, one
 * reference per chunk on the compound head, page_table filled per 4 KiB.
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/topology.h>
#include "nvsim.h"
#ifdef NVSIM_STATIC_POOL
#include "nvsim_pool_io.h"	/* static here, in their callers' file */
#endif

/* The control device; the driver passes nv_state_t for it too. */
nv_state_t nvsim_ctl_state = {
	.flags = NV_FLAG_CONTROL,
	.minor_number = 255,
};

/* The driver keeps gfp masks in an unsigned int; say so to sparse. */
#define NV_GFP(flags) ((__force unsigned int)(flags))

static PROBE_POINT unsigned int nv_compute_gfp_mask(nv_state_t *nv, nv_alloc_t *at)
{
	unsigned int gfp_mask = NV_GFP(GFP_KERNEL | __GFP_NOWARN);

	/* No device here: DMA32 only when the test asks for it. */
	if (to_nvsim_alloc(at)->force_dma32)
		gfp_mask |= NV_GFP(GFP_DMA32);
	gfp_mask |= NV_GFP(__GFP_RETRY_MAYFAIL);
	if (at->flags.zeroed)
		gfp_mask |= NV_GFP(__GFP_ZERO);
	if (at->flags.node)
		gfp_mask |= NV_GFP(__GFP_THISNODE);
	/* vm_insert_page() needs compound pages for order > 0 chunks. */
	if (at->order > 0)
		gfp_mask |= NV_GFP(__GFP_COMP);
	return gfp_mask;
}

/* Chunk heads with virt_addr != 0: the driver's notion of "allocated". */
unsigned int nvsim_alloc_chunks(const nv_alloc_t *at)
{
	unsigned int per_chunk = 1U << at->order;
	unsigned int chunks = DIV_ROUND_UP(at->num_pages, per_chunk);
	unsigned int i;

	for (i = 0; i < chunks; i++)
		if (!at->page_table[i * per_chunk].virt_addr)
			break;
	return i;
}

static unsigned long nvsim_fresh_chunk(nv_alloc_t *at, unsigned int gfp_mask)
{
	unsigned long virt_addr = 0;

	if (nvsim_fault_fresh_fail())
		return 0;
	if (at->flags.node) {
		struct page *page = alloc_pages_node(at->node_id, (__force gfp_t)gfp_mask, at->order);

		if (page)
			virt_addr = (unsigned long)page_address(page);
	} else {
		virt_addr = __get_free_pages((__force gfp_t)gfp_mask, at->order);
	}
	if (virt_addr) {
		nvsim_inc(chunks_fresh);
		nvsim_add(pages_fresh, 1UL << at->order);
	}
	return virt_addr;
}

/*
 * foreign_put containment: a chunk it broke is never freed or admitted.
 * Done before the driver's free path, which has nothing of the kind, so
 * that the path a tracer sees is the driver's own from its first line.
 */
void nvsim_contain_before_free(nv_alloc_t *at)
{
	nvsim_sub(chunks_live, nvsim_fault_contain(at));
}

NV_STATUS PROBE_POINT nv_alloc_system_pages(nv_state_t *nv, nv_alloc_t *at)
{
	unsigned int gfp_mask = nv_compute_gfp_mask(nv, at);
	unsigned int per_chunk = 1U << at->order;
	unsigned int chunks = DIV_ROUND_UP(at->num_pages, per_chunk);
	/* The buddy allocator tries the CPU's node first; so does the pool. */
	int preferred_node = at->flags.node ? at->node_id : numa_mem_id();
	nv_page_pool_t *page_pool = nv_mem_pool_get(preferred_node, at->order);
	unsigned int from_pool = 0;
	unsigned int i;

	/*
	 * The pool gate (nv-vm.c:981-983): remembered in flags.pool, so the
	 * free path admits to the pool exactly what was allowed to come from it.
	 */
	at->flags.pool = !(gfp_mask & NV_GFP(GFP_DMA32)) && at->flags.zeroed &&
			 (at->cache_type == NV_MEMORY_CACHED || num_online_nodes() <= 1);

	if (page_pool && at->flags.pool)
		from_pool = nv_mem_pool_alloc_pages(page_pool, at);
	to_nvsim_alloc(at)->pool_chunks = from_pool;

	for (i = from_pool; i < chunks; i++) {
		unsigned long virt_addr = nvsim_fresh_chunk(at, gfp_mask);

		if (!virt_addr)
			goto failed;
		nv_alloc_set_page(at, i, virt_addr);
	}
	/*
	 * Not modelled: set_memory_decrypted (no CC guest) and set_memory_uc
	 * for uncached allocations; mappings stay write-back.
	 */
	return NV_OK;

failed:
	pr_warn_ratelimited("nvsim: %s: chunk %u/%u of order %u failed\n", __func__, i,
			    chunks, at->order);
	nvsim_contain_before_free(at);
	nv_free_system_pages(at);
	return NV_ERR_NO_MEMORY;
}

void PROBE_POINT nv_free_system_pages(nv_alloc_t *at)
{
	nv_page_pool_t *page_pool = NULL;
	unsigned int per_chunk = 1U << at->order;
	bool refused = false;
	unsigned int chunks;
	unsigned int i;

	nvsim_sub(chunks_live, nvsim_alloc_chunks(at));

	/* Low on memory, chunks may come from several nodes: go by the first. */
	if (at->page_table[0].virt_addr) {
		struct page *page = pfn_to_page(at->page_table[0].phys_addr >> PAGE_SHIFT);

		page_pool = nv_mem_pool_get(page_to_nid(page), at->order);
	}

	if (at->flags.pool && page_pool) {
		if (nv_mem_pool_free_pages(page_pool, at) == NV_OK)
			return;
		/* Only fails where it cannot sleep, before touching anything. */
		refused = true;
		nvsim_set(admit_refused_pfn, at->page_table[0].phys_addr >> PAGE_SHIFT);
	}

	chunks = DIV_ROUND_UP(at->num_pages, per_chunk);
	for (i = 0; i < chunks; i++) {
		unsigned long virt_addr = at->page_table[i * per_chunk].virt_addr;

		if (!virt_addr)
			break;
		free_pages(virt_addr, at->order);
		nvsim_chunk_freed(at->order);
		if (refused)
			nvsim_inc(admit_refused_chunks);
	}
}

/*
 * Z1: the Xen dom0 / vGPU-host path. swiotlb-xen and old dma-direct give
 * nv_alloc_coherent_pages() one high-order block WITHOUT __GFP_COMP, so
 * only the head page holds a reference and every tail page reads
 * page_count() == 0. nvsim takes it only with fault_noncomp set.
 */
static INLINABLE_POINT NV_STATUS nv_alloc_coherent_pages(nv_state_t *nv, nv_alloc_t *at)
{
	unsigned int gfp_mask = nv_compute_gfp_mask(nv, at) & ~NV_GFP(__GFP_COMP);
	unsigned long virt_addr;
	unsigned int i;

	virt_addr = __get_free_pages((__force gfp_t)gfp_mask, at->order);
	if (!virt_addr) {
		pr_warn_ratelimited("nvsim: %s: order %u failed\n", __func__, at->order);
		return NV_ERR_NO_MEMORY;
	}
	for (i = 0; i < at->num_pages; i++) {
		at->page_table[i].virt_addr = virt_addr + i * PAGE_SIZE;
		at->page_table[i].phys_addr = virt_to_phys((void *)at->page_table[i].virt_addr);
	}
	at->flags.coherent = NV_TRUE;

	nvsim_inc(chunks_fresh);
	nvsim_add(pages_fresh, 1UL << at->order);
	nvsim_inc(chunks_live);
	nvsim_inc(fault_noncomp_allocs);
	nvsim_set(fault_noncomp_pfn, page_to_pfn(virt_to_page((void *)virt_addr)));
	nvsim_set(fault_noncomp_pid, task_pid_nr(current));
	return NV_OK;
}

NV_STATUS PROBE_POINT nv_alloc_contig_pages(nv_state_t *nv, nv_alloc_t *at)
{
	/* One chunk covering the whole allocation. */
	at->order = get_order((unsigned long)at->num_pages * PAGE_SIZE);

	if (fault_noncomp)
		return nv_alloc_coherent_pages(nv, at);

	if (nv_alloc_system_pages(nv, at) != NV_OK)
		return NV_ERR_NO_MEMORY;
	return NV_OK;
}

void PROBE_POINT nv_free_contig_pages(nv_alloc_t *at)
{
	if (at->flags.coherent) {
		/* nv_free_coherent_pages(), inlined here as in the driver */
		free_pages(at->page_table[0].virt_addr, at->order);
		nvsim_dec(chunks_live);
		nvsim_chunk_freed(at->order);
		return;
	}
	nv_free_system_pages(at);
}
