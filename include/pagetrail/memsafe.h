/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: which kernel addresses a probe handler may read. */
#ifndef PAGETRAIL_MEMSAFE_H
#define PAGETRAIL_MEMSAFE_H

#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <linux/types.h>

/* Some of [addr, addr + len) is vmalloc space: is every page of it RAM? */
bool pt_vmalloc_ram_readable(unsigned long addr, size_t len);

/*
 * is_vmalloc_addr(), inline where its range is plain arithmetic (x86-64:
 * no pointer tags): it is asked twice a driver field read, and out of line
 * the call costs more than the compare.
 */
static inline bool pt_in_vmalloc(unsigned long addr)
{
#ifdef CONFIG_X86_64
	return addr >= VMALLOC_START && addr < VMALLOC_END;
#else
	return is_vmalloc_addr((void *)addr);
#endif
}

/*
 * Whether [addr, addr + len) may be read without side effects: RAM, not
 * MMIO mapped into vmalloc space. Inline: every driver field read asks,
 * and nearly all are in the linear map, where the answer is two compares.
 */
static inline bool pt_ram_readable(unsigned long addr, size_t len)
{
	unsigned long last = addr + len - 1;

	if (unlikely(!len || last < addr))
		return false;
	if (likely(!pt_in_vmalloc(addr) && !pt_in_vmalloc(last)))
		return true;
	return pt_vmalloc_ram_readable(addr, len);
}

#endif /* PAGETRAIL_MEMSAFE_H */
