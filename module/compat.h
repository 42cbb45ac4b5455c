/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: every kernel-version difference (6.1 .. 6.12 and later) lives here. */
#ifndef PAGETRAIL_COMPAT_H
#define PAGETRAIL_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/kprobes.h>

#define PT_KERNEL(a, b, c) KERNEL_VERSION(a, b, c)
#define PT_KERNEL_CODE LINUX_VERSION_CODE

#if PT_KERNEL_CODE < PT_KERNEL(6, 1, 0)
#error "pagetrail needs Linux 6.1 or later (kretprobe entry data on rethook, folio page refs)"
#endif
#if !defined(CONFIG_KPROBES) || !defined(CONFIG_KRETPROBES)
#error "pagetrail needs CONFIG_KPROBES and CONFIG_KRETPROBES"
#endif
#if !defined(CONFIG_TRACEPOINTS) || !defined(CONFIG_DEBUG_FS)
#error "pagetrail needs CONFIG_TRACEPOINTS and CONFIG_DEBUG_FS"
#endif

/* __assign_str() lost its source argument in 6.10. */
#if PT_KERNEL_CODE >= PT_KERNEL(6, 10, 0)
#define pt_assign_str(dst, src) __assign_str(dst)
#else
#define pt_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * fprobe with entry data and the (entry_ip, ret_ip, pt_regs, data) handler
 * signature exists from 6.5 until 6.14 switched the handlers to ftrace_regs.
 */
#if defined(CONFIG_FPROBE) && PT_KERNEL_CODE >= PT_KERNEL(6, 5, 0) && \
	PT_KERNEL_CODE < PT_KERNEL(6, 14, 0)
#define PT_HAVE_FPROBE 1
#else
#define PT_HAVE_FPROBE 0
#endif

/* The shrinker's private_data replaced container_of() in 6.7. */
#if PT_KERNEL_CODE >= PT_KERNEL(6, 7, 0)
#define PT_SHRINKER_HAS_PRIVATE_DATA 1
#else
#define PT_SHRINKER_HAS_PRIVATE_DATA 0
#endif

/*
 * The NVIDIA driver sizes sysmem_page_pools with NV_MAX_PAGE_ORDER:
 * MAX_PAGE_ORDER from 6.8, MAX_ORDER - 1 on 6.4-6.7 (MAX_ORDER became
 * inclusive there, the driver still subtracts one), MAX_ORDER - 1 before.
 */
#if defined(MAX_PAGE_ORDER)
#define PT_NV_MAX_PAGE_ORDER MAX_PAGE_ORDER
#else
#define PT_NV_MAX_PAGE_ORDER (MAX_ORDER - 1)
#endif

/* Mapcount of one page; typed pages (buddy, slab on 6.12) reuse the field. */
static inline int pt_page_mapcount(struct page *page)
{
	if (page_has_type(page))
		return 0;
	return atomic_read(&page->_mapcount) + 1;
}

static inline bool pt_page_is_slab(struct page *page)
{
	return PageSlab(page);
}

#endif /* PAGETRAIL_COMPAT_H */
