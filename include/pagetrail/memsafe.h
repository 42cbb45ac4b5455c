/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: which kernel addresses a probe handler may read. */
#ifndef PAGETRAIL_MEMSAFE_H
#define PAGETRAIL_MEMSAFE_H

#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/types.h>

/* Some of [addr, addr + len) is vmalloc space: is every page of it RAM? */
bool pt_vmalloc_ram_readable(unsigned long addr, size_t len);

/*
 * Whether [addr, addr + len) may be read without side effects: RAM, not
 * MMIO mapped into vmalloc space. Inline: every driver field read asks,
 * and nearly all are in the linear map, where the answer is one compare.
 */
static inline bool pt_ram_readable(unsigned long addr, size_t len)
{
	unsigned long last = addr + len - 1;

	if (unlikely(!len || last < addr))
		return false;
	if (likely(!is_vmalloc_addr((void *)addr) &&
		   !is_vmalloc_addr((void *)last)))
		return true;
	return pt_vmalloc_ram_readable(addr, len);
}

#endif /* PAGETRAIL_MEMSAFE_H */
