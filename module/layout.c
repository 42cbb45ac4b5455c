// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: sanity rules for the NVIDIA layout parameters. Wrong offsets
 * would make every decoded record a lie, so anything implausible is refused
 * before a single probe is planted, with the parameter that is wrong named.
 */
#include <linux/kernel.h>
#include <linux/errno.h>
#include <pagetrail/layout.h>

struct pt_field {
	const char *name;
	int off;
	int size; /* bytes the field occupies */
	int align;
};

#define PT_MAX_STRUCT 4096

static int pt_check_fields(const char *sname, int ssize,
			   const struct pt_field *f, unsigned int n, char *why,
			   size_t len)
{
	unsigned int i, j;

	if (ssize <= 0 || ssize > PT_MAX_STRUCT) {
		snprintf(why, len, "%s size %d is outside 1..%d", sname, ssize,
			 PT_MAX_STRUCT);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (f[i].off < 0) {
			snprintf(why, len, "%s is not set", f[i].name);
			return -EINVAL;
		}
		/* No sums of untrusted ints below: -fno-strict-overflow wraps. */
		if (f[i].off > ssize - f[i].size) {
			snprintf(why, len,
				 "%s=%d (+%d) lies outside %s (size %d)",
				 f[i].name, f[i].off, f[i].size, sname, ssize);
			return -EINVAL;
		}
		if (f[i].off % f[i].align) {
			snprintf(why, len, "%s=%d is not %d-byte aligned",
				 f[i].name, f[i].off, f[i].align);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (f[i].off < f[j].off + f[j].size &&
			    f[j].off < f[i].off + f[i].size) {
				snprintf(why, len, "%s=%d overlaps %s=%d",
					 f[i].name, f[i].off, f[j].name,
					 f[j].off);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int pt_check_alloc(const struct pt_nv_layout *l, char *why, size_t len)
{
	const struct pt_field f[] = {
		{ "nv_alloc_usage_count", l->alloc_usage_count,
		  l->alloc_usage_size, l->alloc_usage_size },
		{ "nv_alloc_num_pages", l->alloc_num_pages, 4, 4 },
		{ "nv_alloc_order", l->alloc_order, 4, 4 },
		{ "nv_alloc_page_table", l->alloc_page_table, 8, 8 },
	};
	int bit = l->alloc_pool_bit;
	unsigned int i;
	int ret;

	if (l->alloc_usage_size != 4 && l->alloc_usage_size != 8) {
		snprintf(
			why, len,
			"nv_alloc_usage_size=%d is neither 4 (atomic_t) nor 8 (atomic64_t)",
			l->alloc_usage_size);
		return -EINVAL;
	}
	ret = pt_check_fields("nv_alloc_t", l->alloc_size, f, ARRAY_SIZE(f),
			      why, len);
	if (ret || bit < 0)
		return ret;
	if (bit >= l->alloc_size * 8) {
		snprintf(why, len,
			 "nv_alloc_pool_bit=%d lies outside nv_alloc_t", bit);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		if (bit >= f[i].off * 8 && bit < (f[i].off + f[i].size) * 8) {
			snprintf(why, len,
				 "nv_alloc_pool_bit=%d falls inside %s", bit,
				 f[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

static int pt_check_pte(const struct pt_nv_layout *l, char *why, size_t len)
{
	const struct pt_field f[] = {
		{ "nv_pte_phys_addr", l->pte_phys_addr, 8, 8 },
		{ "nv_pte_virt_addr", l->pte_virt_addr, 8, 8 },
	};

	if (l->pte_size < 16 || l->pte_size > 64 || l->pte_size % 8) {
		snprintf(why, len,
			 "nv_pte_size=%d is not a multiple of 8 in 16..64",
			 l->pte_size);
		return -EINVAL;
	}
	return pt_check_fields("nvidia_pte_t", l->pte_size, f, ARRAY_SIZE(f),
			       why, len);
}

static int pt_check_pool(const struct pt_nv_layout *l, char *why, size_t len)
{
	struct pt_field f[] = {
		{ "nv_pool_clean_list", l->pool_clean_list, 16, 8 },
		{ "nv_pool_dirty_list", l->pool_dirty_list, 16, 8 },
		{ "nv_pool_node_id", l->pool_node_id, 4, 4 },
		{ "nv_pool_order", l->pool_order, 4, 4 },
		{ "nv_pool_lock", l->pool_lock, 8, 8 },
		{ "nv_pool_shrinker", l->pool_shrinker, 8, 8 },
	};
	unsigned int n = ARRAY_SIZE(f);

	if (l->pool_shrinker < 0)
		n--; /* private_data kernels embed no shrinker */
	return pt_check_fields("nv_page_pool_t", l->pool_size, f, n, why, len);
}

static int pt_check_entry(const struct pt_nv_layout *l, char *why, size_t len)
{
	const struct pt_field f[] = {
		{ "nv_entry_virt_addr", l->entry_virt_addr, 8, 8 },
		{ "nv_entry_list_node", l->entry_list_node, 16, 8 },
	};
	int end;

	if (l->entry_virt_addr < 0 || l->entry_list_node < 0) {
		snprintf(why, len, "%s is not set",
			 l->entry_virt_addr < 0 ? f[0].name : f[1].name);
		return -EINVAL;
	}
	if (l->entry_virt_addr >= PT_MAX_STRUCT ||
	    l->entry_list_node >= PT_MAX_STRUCT) {
		snprintf(why, len, "%s=%d lies beyond %d bytes",
			 l->entry_virt_addr >= PT_MAX_STRUCT ? f[0].name :
							       f[1].name,
			 l->entry_virt_addr >= PT_MAX_STRUCT ?
				 l->entry_virt_addr :
				 l->entry_list_node,
			 PT_MAX_STRUCT);
		return -EINVAL;
	}
	end = max(l->entry_virt_addr + 8, l->entry_list_node + 16);
	return pt_check_fields("nv_page_pool_entry_t", end, f, ARRAY_SIZE(f),
			       why, len);
}

/* 0 when @l is plausible; else -EINVAL and @why names the wrong parameter. */
int pt_nv_layout_check(const struct pt_nv_layout *l, char *why, size_t len)
{
	int ret;

	if (l->max_page_order < 0 || l->max_page_order > 15) {
		snprintf(why, len, "nv_max_page_order=%d is outside 0..15",
			 l->max_page_order);
		return -EINVAL;
	}
	ret = pt_check_alloc(l, why, len);
	if (!ret)
		ret = pt_check_pte(l, why, len);
	if (!ret)
		ret = pt_check_pool(l, why, len);
	if (!ret)
		ret = pt_check_entry(l, why, len);
	return ret;
}
