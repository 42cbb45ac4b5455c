/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: NVIDIA struct layouts handed in as parameters, and their checks. */
#ifndef PAGETRAIL_LAYOUT_H
#define PAGETRAIL_LAYOUT_H

#include <linux/types.h>

/* Byte offsets (bits for alloc_pool_bit); -1 means "not given". */
struct pt_nv_layout {
	int alloc_size;
	int alloc_usage_count;
	int alloc_usage_size; /* 4: atomic_t (590.44.01), 8: atomic64_t (590.48.01+) */
	int alloc_pool_bit; /* bit offset of flags.pool; -1: unknown */
	int alloc_num_pages;
	int alloc_order;
	int alloc_page_table; /* flat nvidia_pte_t array (575+) */
	int pte_size;
	int pte_phys_addr;
	int pte_virt_addr;
	int pool_size;
	int pool_clean_list;
	int pool_dirty_list;
	int pool_node_id;
	int pool_order;
	int pool_lock;
	int pool_shrinker; /* embedded struct shrinker (< 6.7); -1: none */
	int entry_virt_addr;
	int entry_list_node;
	int max_page_order; /* NV_MAX_PAGE_ORDER: sysmem_page_pools' second dimension */
};

int pt_nv_layout_check(const struct pt_nv_layout *l, char *why, size_t len);

#endif /* PAGETRAIL_LAYOUT_H */
