// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: mmap of system memory through the control device, the driver's
 * nv-mmap.c path (nvidia-pool.md Q4 "mmap path", Q5): one vm_insert_page()
 * per 4 KiB page, one usage_count reference per VMA, "[errno]" logged and
 * -EAGAIN returned on the first failed insert, vm_ops only after success.
 */
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "nvsim.h"

static DEFINE_SPINLOCK(nvsim_insert_fail_lock);

static void nvsim_note_insert_failure(struct page *page, int ret)
{
	nvsim_inc(vm_insert_page_failed);
	nvsim_set(last_insert_fail_rc, ret);
	nvsim_set(last_insert_fail_pfn, page_to_pfn(page));
	nvsim_set(last_insert_fail_pid, task_pid_nr(current));
	spin_lock(&nvsim_insert_fail_lock);
	strscpy(nvsim_last_insert_fail_comm, current->comm, sizeof(nvsim_last_insert_fail_comm));
	spin_unlock(&nvsim_insert_fail_lock);
}

/* Z2 happened: which page and which thread went through a freed allocation. */
static void nvsim_note_stale_mmap(const nv_alloc_mapping_context_t *ctx)
{
	const nv_alloc_t *at = ctx->alloc;

	nvsim_inc(fault_stale_mmaps);
	if (ctx->page_index < at->num_pages)
		nvsim_set(fault_stale_pfn, at->page_table[ctx->page_index].phys_addr >> PAGE_SHIFT);
	nvsim_set(fault_stale_pid, task_pid_nr(current));
}

/* A VMA is copied (fork) or split: one more reference on the allocation. */
static void PROBE_POINT nvidia_vma_open(struct vm_area_struct *vma)
{
	nv_alloc_t *at = vma->vm_private_data;

	nvsim_inc(vma_opens);
	if (at)
		atomic64_inc(&at->usage_count);
}

/*
 * nv_alloc_release(): the last reference going away in a VMA close is not
 * freed under mmap_lock; it is put back to 1 and parked on the file's free
 * list, which the file's release frees.
 */
static inline bool nv_alloc_release(nv_linux_file_private_t *nvlfp, nv_alloc_t *at)
{
	if (!atomic64_dec_and_test(&at->usage_count))
		return false;
	atomic64_inc(&at->usage_count);
	spin_lock(&nvlfp->free_list_lock);
	at->next = nvlfp->free_list;
	nvlfp->free_list = at;
	spin_unlock(&nvlfp->free_list_lock);
	return true;
}

static void PROBE_POINT nvidia_vma_release(struct vm_area_struct *vma)
{
	nv_alloc_t *at = vma->vm_private_data;
	nv_linux_file_private_t *nvlfp = vma->vm_file->private_data;

	nvsim_inc(vma_releases);
	if (at && nv_alloc_release(nvlfp, at))
		nvsim_inc(allocs_deferred_free);
}

static const struct vm_operations_struct nv_vm_ops = {
	.open = nvidia_vma_open,
	.close = nvidia_vma_release,
};

/* The file closes: free what its VMAs left on the free list. */
void nvsim_ctl_free_deferred(nv_linux_file_private_t *nvlfp)
{
	nv_alloc_t *at;

	for (;;) {
		spin_lock(&nvlfp->free_list_lock);
		at = nvlfp->free_list;
		if (at)
			nvlfp->free_list = at->next;
		spin_unlock(&nvlfp->free_list_lock);
		if (!at)
			return;
		at->next = NULL;
		nvsim_alloc_put(at);
	}
}

/* Inlined in every shipped build: no symbol, no probe. */
static __always_inline int nvidia_mmap_sysmem(struct vm_area_struct *vma, nv_alloc_t *at,
					      NvU64 page_index, NvU64 pages)
{
	unsigned long start = vma->vm_start;
	NvU64 j;
	int ret;

	atomic64_inc(&at->usage_count);

	for (j = page_index; j < page_index + pages; j++) {
		struct page *page;

		j = array_index_nospec(j, page_index + pages);
		page = pfn_to_page(at->page_table[j].phys_addr >> PAGE_SHIFT);

		nvsim_inc(vm_insert_page_calls);
		ret = vm_insert_page(vma, start, page);
		if (ret) {
			nvsim_note_insert_failure(page, ret);
			atomic64_dec(&at->usage_count);
			pr_err("NVRM: Userspace mapping creation failed [%d]!\n", ret);
			return -EAGAIN;
		}
		start += PAGE_SIZE;
	}
	return 0;
}

/*
 * nvidia_mmap_numa (nv-mmap.c:507-536): on coherent-NUMA systems (GH200,
 * GB200) GPU memory is onlined as kernel pages and mapped page by page from
 * the mapping context's page_array, inside nvidia_mmap_helper, while
 * vma->vm_private_data is still the helper's vm_priv: NULL. No allocation
 * and no pool is behind these pages. A failure is -EAGAIN without the
 * NVRM line.
 */
static int nvidia_mmap_numa(struct vm_area_struct *vma,
			    const nv_alloc_mapping_context_t *mmap_context)
{
	unsigned long start = vma->vm_start;
	NvU64 i, pages = vma_pages(vma);

	if (pages > mmap_context->num_pages)
		return -ERANGE;
	nvsim_inc(numa_mmaps);
	for (i = 0; i < pages; i++) {
		struct page *page = pfn_to_page(mmap_context->page_array[i] >> PAGE_SHIFT);
		int ret;

		nvsim_inc(vm_insert_page_calls);
		nvsim_inc(numa_inserts);
		ret = vm_insert_page(vma, start, page);
		if (ret) {
			nvsim_note_insert_failure(page, ret);
			return -EAGAIN;
		}
		start += PAGE_SIZE;
	}
	return 0;
}

/* NVSIM_MAP_NUMA: device pages for this fd's context, freed at close. */
int nvsim_numa_context_init(nv_alloc_mapping_context_t *ctx, NvU64 pages)
{
	NvU64 i;

	ctx->page_array = kvcalloc(pages, sizeof(*ctx->page_array), GFP_KERNEL);
	if (!ctx->page_array)
		return -ENOMEM;
	for (i = 0; i < pages; i++) {
		struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!page) {
			ctx->num_pages = i;
			nvsim_numa_context_free(ctx);
			return -ENOMEM;
		}
		ctx->page_array[i] = page_to_phys(page);
	}
	ctx->num_pages = pages;
	nvsim_add(numa_pages, pages);
	return 0;
}

void nvsim_numa_context_free(nv_alloc_mapping_context_t *ctx)
{
	NvU64 i;

	if (!ctx->page_array)
		return;
	/* A VMA still mapping one holds its own reference. */
	for (i = 0; i < ctx->num_pages; i++)
		put_page(pfn_to_page(ctx->page_array[i] >> PAGE_SHIFT));
	nvsim_sub(numa_pages, ctx->num_pages);
	kvfree(ctx->page_array);
	ctx->page_array = NULL;
	ctx->num_pages = 0;
}

int PROBE_POINT nvidia_mmap_helper(nv_state_t *nv, nv_linux_file_private_t *nvlfp,
				   nvidia_stack_t *sp, struct vm_area_struct *vma,
				   void *vm_priv)
{
	const nv_alloc_mapping_context_t *mmap_context;
	NvU64 page_index, pages;
	nv_alloc_t *at;
	int ret;

	if (!nvlfp)
		return -EINVAL;

	/* Only RM-validated mappings: the map ioctl set up this context. */
	mmap_context = &nvlfp->mmap_context;
	if (!mmap_context->valid) {
		pr_err_ratelimited("NVRM: VM: invalid mmap\n");
		return -EINVAL;
	}
	if (vma->vm_pgoff != 0)
		return -EINVAL;

	vma->vm_private_data = vm_priv;

	/* A coherent-NUMA GPU's memory: vm_private_data stays vm_priv (NULL). */
	if (mmap_context->page_array) {
		ret = nvidia_mmap_numa(vma, mmap_context);
		if (ret)
			return ret;
		nv_vm_flags_set(vma, VM_SHARED | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_ops = &nv_vm_ops;
		return 0;
	}

	/* nvsim has only the control device, which maps system memory. */
	if (!(nv->flags & NV_FLAG_CONTROL))
		return -ENXIO;

	at = mmap_context->alloc;
	page_index = mmap_context->page_index;
	pages = vma_pages(vma);
	if (page_index + pages > at->num_pages)
		return -ERANGE;

	/*
	 * nv_encode_caching(): cached needs no change; uncached is not
	 * modelled (no set_memory_uc on the kernel side), so both map WB.
	 */
	vma->vm_private_data = at;
	ret = nvidia_mmap_sysmem(vma, at, page_index, pages);
	if (ret)
		return ret;

	/* VM_MIXEDMAP came from vm_insert_page; VM_SHARED avoids COW. */
	nv_vm_flags_set(vma, VM_SHARED);
	nv_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &nv_vm_ops;
	return 0;
}

int PROBE_POINT nvidia_mmap(struct file *file, struct vm_area_struct *vma)
{
	nv_linux_file_private_t *nvlfp = file->private_data;
	nvidia_stack_t *sp;
	int state = 1;
	int status;

	nvsim_inc(mmaps);
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp) {
		pr_err("NVRM: Unable to allocate altstack for mmap\n");
		nvsim_inc(mmaps_failed);
		return -ENOMEM;
	}

	/*
	 * nvsim's guard, not the driver's: a context whose allocation is
	 * neither live nor in the graveyard would be a real use-after-free,
	 * so it is refused. The lock also keeps a racing free out.
	 */
	mutex_lock(&nvsim_allocs_lock);
	if (nvlfp->mmap_context.valid && !nvlfp->mmap_context.page_array)
		state = nvsim_alloc_state_locked(nvlfp->mmap_context.alloc);
	if (state == 0) {
		nvsim_inc(mmaps_refused);
		status = -EINVAL;
	} else {
		if (state == 2)
			nvsim_note_stale_mmap(&nvlfp->mmap_context);
		status = nvidia_mmap_helper(&nvsim_ctl_state, nvlfp, sp, vma, NULL);
	}
	mutex_unlock(&nvsim_allocs_lock);

	kfree(sp);
	if (status)
		nvsim_inc(mmaps_failed);
	return status;
}
