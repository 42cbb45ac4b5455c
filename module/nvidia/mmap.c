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
#include <pagetrail/hold.h>
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

/*
 * The page table that maps @va of @mm, read without a lock: the thread
 * that asks is inside vm_insert_page()'s caller, which holds the mmap lock
 * for the whole call, so no table on the way goes away before it returns.
 * NULL where no page table reaches @va yet (the insert would allocate one)
 * or a huge mapping covers it.
 */
static pte_t *nv_user_pte_table(struct mm_struct *mm, unsigned long va)
{
	pgd_t *pgd = pgd_offset(mm, va);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pmd_t pmdval;

	if (pgd_none(READ_ONCE(*pgd)) || pgd_bad(READ_ONCE(*pgd)))
		return NULL;
	p4d = p4d_offset(pgd, va);
	if (p4d_none(READ_ONCE(*p4d)) || p4d_bad(READ_ONCE(*p4d)))
		return NULL;
	pud = pud_offset(p4d, va);
	if (pud_none(READ_ONCE(*pud)) || pud_bad(READ_ONCE(*pud)))
		return NULL;
	pmd = pmd_offset(pud, va);
	pmdval = READ_ONCE(*pmd);
	if (pmd_none(pmdval) || pmd_bad(pmdval))
		return NULL;
	return pte_offset_kernel(pmd, va & PMD_MASK);
}

/*
 * The page-table entry at @va of @mm, for a helper call @h. The table
 * found stays for the rest of the call (the mmap lock, as above): the
 * next pages' lookups, and the read back of each held insert, reuse it.
 */
static bool nv_helper_pte(struct nv_helper_data *h, struct mm_struct *mm,
			  unsigned long va, pte_t *pte)
{
	if (!h->table || h->table_mm != mm || h->table_va != (va & PMD_MASK)) {
		h->table = nv_user_pte_table(mm, va);
		if (!h->table)
			return false;
		h->table_mm = mm;
		h->table_va = va & PMD_MASK;
	}
	*pte = ptep_get(h->table + pte_index(va));
	return true;
}

/*
 * Whether vm_insert_page() will map @obs's page at @va: every check it
 * makes before mapping passes now (the sampled page has a reference and
 * is no anonymous, slab or typed page; @va is inside the VMA; a page table
 * is there, its entry empty). The mmap lock the caller holds keeps the
 * VMA and the table as they are; only the page's references can still
 * fall to zero before the kernel counts them, which the page table shows
 * afterwards (nv_insert_settle()).
 */
static bool nv_insert_will_map(struct nv_helper_data *h,
			       struct vm_area_struct *vma, unsigned long va,
			       const struct pt_obs *obs)
{
	pte_t pte;

	if (!obs->sampled || obs->refcount <= 0 ||
	    (obs->page_flags & (PT_PF_ANON | PT_PF_SLAB | PT_PF_TYPED)))
		return false;
	if (va < vma->vm_start || va >= vma->vm_end)
		return false;
	return nv_helper_pte(h, vma->vm_mm, va, &pte) && pte_none(pte);
}

/*
 * A driver insert, done: counted on its mmap call, then held by the helper
 * call (hold.h: no other CPU can reach the page through this VMA before
 * the mmap returns).
 */
static void nv_insert_observed(struct pt_obs *obs, struct pt_frame *helper,
			       struct pt_frame *mmap)
{
	pt_hit_inc(nv_hits, NV_HIT_INSERTS);
	if (obs->ret)
		atomic64_inc(&nv_stats.insert_failed);
	if (mmap) {
		mmap->count++;
		if (obs->ret && !mmap->failed++) {
			mmap->fail_ret = obs->ret;
			mmap->fail_pfn = obs->pfn;
		}
	}
	pt_hold_observe(helper, obs);
}

/*
 * The insert the helper holds, staged now that its call is over: mapped
 * if the page table holds its page. Every other check had passed at its
 * entry (nv_insert_will_map()), so a page not mapped is one whose last
 * reference went in between: the kernel's -EINVAL.
 */
static void nv_insert_settle(struct nv_helper_data *h, struct pt_frame *mmap)
{
	pte_t pte;

	if (!h->holding)
		return;
	h->holding = false;
	if (!nv_helper_pte(h, h->held_mm, h->held_va, &pte) ||
	    !pte_present(pte) || pte_pfn(pte) != h->held.pfn) {
		h->held.ret = -EINVAL;
		atomic64_inc(&nv_stats.inserts_lost_ref);
	}
	nv_insert_observed(&h->held, h->f, mmap);
}

int nv_mmap_helper_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_helper_data *d = data;

	d->holding = false;
	d->table = NULL;
	d->f = pt_frame_push(PT_CTX_MMAP_HELPER);
	if (!d->f)
		return 1;
	d->f->obj = regs_get_kernel_argument(regs, 3);
	d->f->call = d;
	return 0;
}

void nv_mmap_helper_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_helper_data *d = data;
	struct pt_frame *outer;

	/* The helper's own frame is innermost: nvidia_mmap's is outside it. */
	outer = pt_frame_find(PT_CTX_MMAP);
	nv_insert_settle(d, outer);
	pt_hold_flush(d->f);
	pt_frame_pop(d->f);
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

/*
 * Driver inserts (inside nvidia_mmap_helper) and any insert of a tracked
 * page. A driver insert whose every check passes is observed whole at its
 * entry, without a return probe (one in three of the driver path's hits):
 * the helper holds it and stages it at its next insert or its return,
 * where the page table says whether the page was mapped.
 */
int nv_insert_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_insert_data *d = data;
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 2);
	u64 pfn = page_to_pfn(page);
	struct nv_helper_data *h;
	struct pt_obs *obs;
	unsigned long va;

	pt_frame_find2(PT_CTX_MMAP_HELPER, &d->helper, PT_CTX_MMAP, &d->mmap);
	if (!d->helper && !pt_tracker_maybe_tracked(pfn))
		return 1;
	h = d->helper ? d->helper->call : NULL;
	/* In call order: the insert before this one is over. */
	if (h)
		nv_insert_settle(h, d->mmap);
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
	/*
	 * Inside a helper call, written where the call holds it (settled
	 * above, so free): an insert held whole is copied no more here.
	 */
	obs = h ? &h->held : &d->obs;
	memset(obs, 0, sizeof(*obs));
	obs->role = PT_ROLE_INSERT;
	obs->pfn = pfn;
	/* The refcount the kernel is about to check, before the insert. */
	pt_sample_struct_page(page, obs);
	if (!d->helper)
		return 0;
	obs->token = nv_helper_token(d->helper, d->at);
	obs->owner_known = true;
	va = regs_get_kernel_argument(regs, 1);
	if (!h ||
	    !nv_insert_will_map(h, (struct vm_area_struct *)d->vma, va, obs)) {
		/* Seen at its return: the kernel's own answer. */
		if (obs != &d->obs)
			d->obs = *obs;
		return 0;
	}
	h->held_mm = ((struct vm_area_struct *)d->vma)->vm_mm;
	h->held_va = va;
	h->holding = true;
	return PT_ENTRY_SEEN;
}

void nv_insert_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_insert_data *d = data;

	d->obs.ret = regs_return_value(regs);
	if (!d->helper) {
		pt_observe(&d->obs);
		return;
	}
	nv_insert_observed(&d->obs, d->helper, d->mmap);
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
