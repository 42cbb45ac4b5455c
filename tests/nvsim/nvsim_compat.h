/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvsim: every kernel-version difference between 6.1 and 6.12 in one place,
 * decided the way the NVIDIA driver's conftest decides it.
 */
#ifndef NVSIM_COMPAT_H
#define NVSIM_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/shrinker.h>

/*
 * NV_MAX_PAGE_ORDER as nv-linux.h computes it: MAX_PAGE_ORDER from 6.8,
 * MAX_ORDER - 1 before (which is 9 on 6.4..6.7, where MAX_ORDER had
 * already become inclusive; the driver keeps that off-by-one, so do we).
 */
#if defined(MAX_PAGE_ORDER)
#define NV_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#else
#define NV_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/* shrinker_alloc()/shrinker_register()/->private_data arrived in 6.7. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define NV_SHRINKER_ALLOC_PRESENT
#endif

/* vm_flags became read-only behind vm_flags_set() in 6.3. */
static inline void nv_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

#endif /* NVSIM_COMPAT_H */
