// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: may a handler read this address? Driver objects live in the
 * linear map (kmalloc) or, for kvzalloc'd page tables, in vmalloc space,
 * and so do a GPU's ioremapped registers (BAR0). A nofault read does not
 * fault on MMIO: it can stall on PCIe or have side effects. So an address
 * in vmalloc space is read only when RAM backs both ends of the range
 * (code-review F15); other addresses are left to copy_from_kernel_nofault().
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include <pagetrail/memsafe.h>

bool pt_vmalloc_ram_readable(unsigned long addr, size_t len)
{
	unsigned long ends[2] = { addr, addr + len - 1 };
	unsigned int i;

	if (!len || ends[1] < addr)
		return false;
	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		struct page *page;

		/* Both ends on one page: one walk (the usual 8-byte read). */
		if (i && PFN_DOWN(ends[1]) == PFN_DOWN(ends[0]))
			break;
		if (!is_vmalloc_addr((void *)ends[i]))
			continue;
		page = vmalloc_to_page((void *)ends[i]);
		if (!page || !pfn_valid(page_to_pfn(page)) ||
		    PageReserved(page))
			return false;
	}
	return true;
}
