/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: read a page's refcount, mapcount and compound state without side effects. */
#ifndef PAGETRAIL_PAGESAMPLE_H
#define PAGETRAIL_PAGESAMPLE_H

#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/types.h>

struct page;
struct pt_obs;

/* A page the kernel itself handed over (a probed function's argument). */
void pt_sample_struct_page(struct page *page, struct pt_obs *obs);
/* A pfn with no online struct page: said so in @obs. */
void pt_sample_no_page(u64 pfn, struct pt_obs *obs);

/* Inline: every chunk a walk visits is sampled. */
static inline void pt_sample_page(u64 pfn, struct pt_obs *obs)
{
	/*
	 * pfn_valid() is also true for offline sections and ZONE_DEVICE, whose
	 * memmap may be poisoned: compound_head() of that is a wild pointer.
	 */
	struct page *page = pfn_to_online_page(pfn);

	if (unlikely(!page))
		pt_sample_no_page(pfn, obs);
	else
		pt_sample_struct_page(page, obs);
}
/* Extra references at admission or take that were gone when read again. */
u64 pt_sample_transient_refs(void);

/* The pfn behind a linear-map address; false for anything else. */
static inline u64 pt_virt_to_pfn(unsigned long va, bool *ok)
{
	*ok = va && virt_addr_valid((void *)va);
	return *ok ? PHYS_PFN(__pa(va)) : 0;
}

/*
 * The pfn of @va (into @pfn) and its page sampled into @obs, in one
 * lookup, where @va is the linear-map address of an online page (a
 * driver's chunk nearly always): the online page found for the pfn maps
 * back to @va, which is what virt_addr_valid() and then
 * pfn_to_online_page() establish with two section lookups. False, nothing
 * written, for anything else: the caller takes the general path. x86-64
 * only, where the linear map is @va - PAGE_OFFSET (elsewhere __pa() of an
 * unchecked address may BUG under CONFIG_DEBUG_VIRTUAL).
 */
static inline bool pt_sample_linear(unsigned long va, u64 *pfn,
				    struct pt_obs *obs)
{
#ifdef CONFIG_X86_64
	struct page *page;

	if (unlikely(va < PAGE_OFFSET))
		return false;
	page = pfn_to_online_page((va - PAGE_OFFSET) >> PAGE_SHIFT);
	if (unlikely(!page || page_address(page) != (void *)(va & PAGE_MASK)))
		return false;
	*pfn = page_to_pfn(page);
	pt_sample_struct_page(page, obs);
	return true;
#else
	return false;
#endif
}

#endif /* PAGETRAIL_PAGESAMPLE_H */
