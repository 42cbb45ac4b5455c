// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: sample a struct page. Only struct page fields are read, never
 * page contents, and only for pfns that have a struct page, so sampling a
 * page that was freed or reused is harmless (R1 asks for exactly that).
 */
#include <linux/mm.h>
#include <linux/memory_hotplug.h>
#include <linux/page-flags.h>
#include <linux/atomic.h>
#include <pagetrail/pagesample.h>
#include <pagetrail/tracker.h>
#include "compat.h"

/*
 * A pool page should hold exactly one reference when it is admitted or
 * taken; more is ADMIT_EXTRA_REF / TAKE_ALIASED. A lockless page-cache
 * lookup may hold a speculative reference on a recycled page for a few
 * instructions (folio_try_get, then put): read again a few times, bounded,
 * before reporting more than one, and count the extra references that went.
 */
#define PT_RESAMPLES 4
#define PT_RESAMPLE_SPINS 64

static atomic64_t pt_refs_transient = ATOMIC64_INIT(0);

u64 pt_sample_transient_refs(void)
{
	return atomic64_read(&pt_refs_transient);
}

static int pt_settled_refcount(struct page *page, int count)
{
	unsigned int i, spin;

	for (i = 0; i < PT_RESAMPLES && count > 1; i++) {
		for (spin = 0; spin < PT_RESAMPLE_SPINS; spin++)
			cpu_relax();
		/* Racy by design, as below: this reads a moving count. */
		count = data_race(page_count(page));
	}
	if (count <= 1)
		atomic64_inc(&pt_refs_transient);
	return count;
}

void pt_sample_no_page(u64 pfn, struct pt_obs *obs)
{
	obs->sampled = true;
	obs->page_flags = PT_PF_INVALID;
	obs->refcount = -1;
	obs->head_pfn = pfn;
}

void pt_sample_struct_page(struct page *page, struct pt_obs *obs)
{
	struct page *head;
	u32 flags = 0;

	obs->sampled = true;
	/*
	 * Racy by design: the page may change under us; we report what we
	 * saw. The head is read once and the rest follows from it: a page
	 * whose head is another is a tail (fake heads included), a compound
	 * page is a head or a tail, and the count is the head's (what
	 * page_count() and PageTail() would each look up again).
	 */
	head = data_race(compound_head(page));
	/* Racy too: a count moving under us is what a sample shows. */
	obs->refcount = data_race(page_ref_count(head));
	if (obs->refcount > 1 &&
	    (obs->role == PT_ROLE_ADMIT || obs->role == PT_ROLE_TAKE))
		obs->refcount = pt_settled_refcount(page, obs->refcount);
	/* Racy too: the mapcount as it was at this instant. */
	obs->mapcount = data_race(pt_page_mapcount(page));
	obs->head_pfn = page_to_pfn(head);
	if (head != page)
		flags |= PT_PF_TAIL;
	else if (PageHead(page))
		flags |= PT_PF_HEAD;
	if (flags & (PT_PF_HEAD | PT_PF_TAIL)) {
		flags |= PT_PF_COMPOUND;
		obs->compound_order = compound_order(head);
	}
	if (PageBuddy(page))
		flags |= PT_PF_BUDDY;
	if (page_has_type(page))
		flags |= PT_PF_TYPED;
	if (pt_page_is_slab(page))
		flags |= PT_PF_SLAB;
	if (PageAnon(page))
		flags |= PT_PF_ANON;
	if (PageReserved(page))
		flags |= PT_PF_RESERVED;
	obs->page_flags = flags;
}
