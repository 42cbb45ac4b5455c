// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail NVIDIA profile, allocations: nv_alloc_system_pages, the contig
 * and coherent paths, nv_alloc_set_page per chunk, nv_free_system_pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/ptrace.h>
#include <pagetrail/hold.h>
#include "nvidia.h"

/* --- allocation: nv_alloc_system_pages, nv_alloc_set_page --------------- */

/*
 * nv_alloc_set_page(at, chunk, va) fills page_table[chunk << order ...];
 * once it returned, the first of those entries must hold @va.
 */
static bool nv_pte_holds(struct nv_alloc_view *av, u32 first, unsigned long va,
			 unsigned long at)
{
	unsigned long pte_va, phys;

	if (!nv_pte_virt(av, first, &pte_va) ||
	    !nv_read_ulong(av->page_table +
				   (unsigned long)first * nv_layout.pte_size +
				   nv_layout.pte_phys_addr,
			   &phys))
		return false;
	if (pte_va != va || !virt_addr_valid((void *)pte_va) ||
	    phys != __pa(pte_va)) {
		nv_decode_error("nvidia_pte_t after nv_alloc_set_page", at);
		return false;
	}
	return true;
}

/* The entry a chunk observed at entry left to check: written by now. */
static bool nv_pte_check_due(struct pt_frame *alloc, struct nv_alloc_view *av)
{
	if (!(alloc->flags & NV_ALLOC_PTE_CHECK_DUE))
		return true;
	alloc->flags &= ~NV_ALLOC_PTE_CHECK_DUE;
	return nv_pte_holds(av, alloc->check_idx, alloc->check_va, alloc->obj);
}

/*
 * An allocation call returns: the last check left is done now, if the call
 * succeeded (a failing one may already have undone its page table).
 */
static void nv_pte_check_at_return(struct pt_frame *alloc, bool ok)
{
	struct nv_alloc_view av;
	bool fresh;

	if (!(alloc->flags & NV_ALLOC_PTE_CHECK_DUE))
		return;
	if (!ok) {
		alloc->flags &= ~NV_ALLOC_PTE_CHECK_DUE;
		return;
	}
	if (nv_alloc_view_in(alloc, alloc->obj, &av, &fresh))
		nv_pte_check_due(alloc, &av);
}

int nv_alloc_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	unsigned long at = regs_get_kernel_argument(regs, 1);

	struct pt_frame *outer = pt_frame_find(PT_CTX_ALLOC);

	d->f = pt_frame_push(PT_CTX_ALLOC);
	if (!d->f)
		return 1;
	d->f->obj = at;
	d->f->token = pt_token(at);
	/* nv_alloc_contig_pages -> nv_alloc_system_pages is one allocation. */
	if (outer && outer->obj == at)
		d->f->alloc_seq = outer->alloc_seq;
	else
		d->f->alloc_seq = nv_alloc_number();
	return 0;
}

/*
 * nv_alloc_set_page inlined: the chunks past those the pool gave (the
 * ALLOC frame counted them at the take's return) are fresh; say so here.
 */
void nv_alloc_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN,
			      .cause = PT_CAUSE_FRESH,
			      .create = true };

	/* Its chunks' assignments, before anything its return says. */
	pt_hold_flush(d->f);
	nv_pte_check_at_return(d->f, regs_return_value(regs) == 0);
	if ((nv_fallbacks & NV_FB_SET_PAGE) && regs_return_value(regs) == 0) {
		obs.alloc_seq = d->f->alloc_seq;
		/* The take inlined too: what the pool gave is known by state. */
		if ((nv_fallbacks & NV_FB_POOL_TAKE) &&
		    (nv_fallbacks & NV_FB_MOVE_PAGES)) {
			nv_take_by_state(d->f->obj, d->f, 0, U32_MAX);
		} else {
			if (nv_fallbacks & NV_FB_POOL_TAKE) {
				obs.cause = PT_CAUSE_POOL;
				nv_walk_alloc_range(d->f->obj, 0, d->f->count,
						    &obs, true);
				obs.cause = PT_CAUSE_FRESH;
			}
			nv_walk_alloc_range(d->f->obj, d->f->count, U32_MAX,
					    &obs, true);
		}
	}
	pt_frame_pop(d->f);
}

/* nv_alloc_coherent_pages inlined: its chunks, once the contig call is done. */
void nv_contig_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN,
			      .cause = PT_CAUSE_FRESH,
			      .create = true };

	pt_hold_flush(d->f);
	nv_pte_check_at_return(d->f, regs_return_value(regs) == 0);
	if ((nv_fallbacks & NV_FB_COHERENT) && regs_return_value(regs) == 0) {
		/* Chunks nv_alloc_set_page already named are skipped (same owner). */
		obs.alloc_seq = d->f->alloc_seq;
		nv_walk_alloc_chunks(d->f->obj, &obs, true);
	}
	pt_frame_pop(d->f);
}

int nv_coherent_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_coherent_data *d = data;

	d->at = regs_get_kernel_argument(regs, 1);
	return 0;
}

/* The coherent path fills page_table itself, without nv_alloc_set_page. */
void nv_coherent_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_coherent_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN,
			      .cause = PT_CAUSE_FRESH,
			      .create = true };
	struct pt_frame *alloc = pt_frame_find(PT_CTX_ALLOC);

	if (regs_return_value(regs) != 0) /* NV_OK */
		return;
	obs.alloc_seq = alloc && alloc->obj == d->at ? alloc->alloc_seq : 0;
	nv_walk_alloc_chunks(d->at, &obs, true);
}

void nv_frame_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_frame_data *d = data;

	pt_frame_pop(d->f);
}

int nv_set_page_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_set_page_data *d = data;

	d->at = regs_get_kernel_argument(regs, 0);
	d->idx = regs_get_kernel_argument(regs, 1);
	d->va = regs_get_kernel_argument(regs, 2);
	return 0;
}

#define NV_VA_SET_PAGE "chunk virtual address passed to nv_alloc_set_page"

/*
 * One chunk of nv_alloc_set_page assigned: at its return (@written), or at
 * its entry where no fallback needs the page-table entry it writes.
 */
static void nv_set_page_observe(struct nv_set_page_data *d, bool written)
{
	struct nv_alloc_view av;
	struct pt_obs obs = { .role = PT_ROLE_ASSIGN, .create = true };
	struct pt_frame *alloc, *take, *mine;
	bool fresh;
	u32 first;

	pt_frame_find2(PT_CTX_ALLOC, &alloc, PT_CTX_TAKE, &take);
	/* The allocation call this chunk belongs to, if seen. */
	mine = alloc && alloc->obj == d->at ? alloc : NULL;
	if (!nv_alloc_view_in(mine, d->at, &av, &fresh))
		return;
	first = d->idx << av.order;
	if (first >= av.num_pages) {
		nv_decode_error("nv_alloc_set_page chunk index", d->at);
		return;
	}
	if (!written && mine && !nv_pte_check_due(mine, &av))
		return;
	/*
	 * The page-table offsets and entry size, at the first chunk and the
	 * first past it of each allocation call: they do not change between
	 * its chunks. At entry the chunk's own entry is not written yet: it
	 * is checked at the next chunk or at the call's return (a call seen
	 * without its frame, begun before attach, is not checked).
	 */
	if (fresh || (first && !(mine->flags & NV_ALLOC_STRIDE_CHECKED))) {
		if (written) {
			if (!nv_pte_holds(&av, first, d->va, d->at))
				return;
		} else if (mine) {
			mine->check_idx = first;
			mine->check_va = d->va;
			mine->flags |= NV_ALLOC_PTE_CHECK_DUE;
		}
		if (mine && first)
			mine->flags |= NV_ALLOC_STRIDE_CHECKED;
	}
	/* Only nv_alloc_system_pages calls it: no frame, it began before attach. */
	obs.unsure = !alloc || (take && (take->flags & NV_TAKE_UNSURE));
	if (nv_fallbacks & NV_FB_POOL_TAKE) {
		/* The take inlined: pooled chunks come first in page_table. */
		if (!(nv_fallbacks & NV_FB_MOVE_PAGES)) {
			obs.cause = mine && d->idx < mine->count ?
					    PT_CAUSE_POOL :
					    PT_CAUSE_FRESH;
		} else if (mine) {
			nv_take_by_state(d->at, mine, d->idx, 1);
			return; /* it assigned the chunk, as taken or fresh */
		} else {
			obs.cause = PT_CAUSE_FRESH;
		}
	} else {
		/* move_pages inlined: the take is seen here, its list is not. */
		if (take && (nv_fallbacks & NV_FB_MOVE_PAGES))
			nv_take_by_walk(d->at, take, d->idx, 1);
		obs.cause = take ? PT_CAUSE_POOL : PT_CAUSE_FRESH;
	}
	obs.token = mine ? mine->token : pt_token(d->at);
	obs.alloc_seq = mine ? mine->alloc_seq : 0;
	obs.index = first;
	obs.order = av.order;
	/* Held by the allocation call: it is not handed out before it returns. */
	if (!nv_decode_chunk(&obs, d->va, true, NV_VA_SET_PAGE))
		pt_hold_observe(mine, &obs);
}

void nv_set_page_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	nv_set_page_observe(data, true);
}

/*
 * Where no fallback walks the entries nv_alloc_set_page writes (the take
 * and move_pages out of line), its entry says all: no return probe, which
 * costs more than the handler (profile.c chooses).
 */
int nv_set_page_observe_entry(struct pt_probe *p, struct pt_regs *regs,
			      void *data)
{
	struct nv_set_page_data d;

	nv_set_page_entry(p, regs, &d);
	nv_set_page_observe(&d, false);
	return 0;
}

/* --- release: nv_free_system_pages -------------------------------------- */

int nv_release_entry(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_release_data *d = data;

	d->at = regs_get_kernel_argument(regs, 0);
	d->f = pt_frame_push(PT_CTX_RELEASE);
	if (!d->f)
		return 1;
	d->f->obj = d->at;
	d->f->token = pt_token(d->at);
	return 0;
}

/* nv_free_system_pages: where 610.x admits to the pool in its own body. */
int nv_release_system_entry(struct pt_probe *p, struct pt_regs *regs,
			    void *data)
{
	struct nv_release_data *d = data;

	if (nv_release_entry(p, regs, data))
		return 1;
	if (nv_fallbacks & NV_FB_POOL_ADMIT)
		nv_admit_at_release(d->f, d->at);
	return 0;
}

/*
 * Chunks the allocation still owns here were neither pooled nor freed:
 * someone else holds them. After an admission the walk is skipped: those
 * chunks have been on the dirty list with the lock dropped, and another
 * thread may own one already.
 */
void nv_release_ret(struct pt_probe *p, struct pt_regs *regs, void *data)
{
	struct nv_release_data *d = data;
	struct pt_obs obs = { .role = PT_ROLE_RELEASE };

	/* An expected admission: as after one, chunks may be others' now. */
	if (!(d->f->flags & (NV_RELEASE_ADMITTED | NV_RELEASE_ADMIT_EXPECTED)))
		nv_walk_alloc_chunks(d->at, &obs, true);
	nv_admit_end(d->f);
	pt_frame_pop(d->f);
}
