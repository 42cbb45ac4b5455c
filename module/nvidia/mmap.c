// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail NVIDIA profile, mapping: nvidia_mmap, nvidia_mmap_helper,
 * vm_insert_page and the VMA callbacks, where a failed mmap's return chain
 * starts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/ptrace.h>
#include <pagetrail/hitcount.h>
#include "nvidia.h"

/* --- mapping: nvidia_mmap, nvidia_mmap_helper, vm_insert_page ----------- */

/*
 * The allocation behind a VMA the driver mapped (0: none, device memory).
 * Every caller has the VMA from the kernel, alive for the call: read
 * directly.
 */
static unsigned long nv_vma_alloc(unsigned long vma)
{
	return (unsigned long)READ_ONCE(
		((struct vm_area_struct *)vma)->vm_private_data);
}

int nv_mmap_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_MMAP);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 1);
	return 0;
}

void nv_mmap_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
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

int nv_mmap_helper_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	d->f = pt_frame_push(PT_CTX_MMAP_HELPER);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 3);
	return 0;
}

void nv_mmap_helper_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_frame *outer;

	pt_frame_pop(d->f);
	outer = pt_frame_find(PT_CTX_MMAP);
	if (outer)
		outer->inner_ret = regs_return_value(regs);
}

/* What an mmap helper call hashes once for the inserts of all its pages. */
struct nv_helper_memo {
	unsigned long at;
	u64 token;
};

static u64 nv_helper_token(struct pt_frame *helper, unsigned long at)
{
	struct nv_helper_memo m;

	if (!pt_frame_memo_load(helper, &m) || m.at != at) {
		m.at = at;
		m.token = pt_token(at);
		pt_frame_memo_store(helper, &m);
	}
	return m.token;
}

/* Driver inserts (inside nvidia_mmap_helper) and any insert of a tracked page. */
int nv_insert_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_insert_data *d = data;
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 2);
	u64 pfn = page_to_pfn(page);

	pt_frame_find2(PT_CTX_MMAP_HELPER, &d->helper, PT_CTX_MMAP, &d->mmap);
	if (!d->helper && !pt_tracker_maybe_tracked(pfn))
		return 1;
	d->vma = regs_get_kernel_argument(regs, 0);
	/*
	 * nvidia_mmap_numa (coherent NUMA systems, GH200) inserts device
	 * memory from the same helper, with no allocation behind the VMA:
	 * not pool pages, so counted apart and not tracked.
	 */
	d->at = nv_vma_alloc(d->vma);
	if (d->helper && !d->at) {
		atomic64_inc(&nv_stats.inserts_unowned);
		return 1;
	}
	memset(&d->obs, 0, sizeof(d->obs));
	d->obs.role = PT_ROLE_INSERT;
	d->obs.pfn = pfn;
	/* The refcount the kernel is about to check, before the insert. */
	pt_sample_struct_page(page, &d->obs);
	return 0;
}

void nv_insert_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_insert_data *d = data;
	struct pt_frame *mmap = d->mmap;

	d->obs.ret = regs_return_value(regs);
	if (!d->helper) {
		pt_observe(&d->obs);
		return;
	}
	d->obs.token = nv_helper_token(d->helper, d->at);
	d->obs.owner_known = true;
	pt_hit_inc(nv_hits, NV_HIT_INSERTS);
	if (d->obs.ret)
		atomic64_inc(&nv_stats.insert_failed);
	if (mmap) {
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

	if (at && nv_layout.alloc_usage_size == sizeof(usage64))
		nv_read(at + nv_layout.alloc_usage_count, &usage64,
			sizeof(usage64));
	else if (at)
		nv_read(at + nv_layout.alloc_usage_count, &usage32,
			sizeof(usage32));
	obs.token = pt_token(at);
	obs.aux = nv_layout.alloc_usage_size == sizeof(usage64) ? (u32)usage64 :
								  (u32)usage32;
	pt_observe_event(&obs);
}

int nv_vma_open_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	nv_vma_event(regs, PT_CAUSE_VMA_OPEN);
	return 0;
}

int nv_vma_release_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	nv_vma_event(regs, PT_CAUSE_VMA_CLOSE);
	return 0;
}
