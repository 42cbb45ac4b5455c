// SPDX-License-Identifier: GPL-2.0
/* KUnit: the NVIDIA struct layout parameter checks (module/layout.c). */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "../module/layout.c"
#include "suites.h"

#define WHY_LEN 128

/* 595.45.04 on 6.12 (pahole; shared/reference/nvidia-pool.md Q3). */
static const struct pt_nv_layout nv_595_612 = {
	.alloc_size = 112, .alloc_usage_count = 16, .alloc_usage_size = 8,
	.alloc_pool_bit = 25 * 8 + 3,
	.alloc_num_pages = 32, .alloc_order = 36, .alloc_page_table = 48,
	.pte_size = 16, .pte_phys_addr = 0, .pte_virt_addr = 8,
	.pool_size = 168, .pool_clean_list = 0, .pool_dirty_list = 16, .pool_node_id = 136,
	.pool_order = 140, .pool_lock = 152, .pool_shrinker = -1,
	.entry_virt_addr = 0, .entry_list_node = 8,
	.max_page_order = 10,
};

struct layout_case {
	const char *desc;
	struct pt_nv_layout l;
};

static struct pt_nv_layout nv_595_61(void)
{
	struct pt_nv_layout l = nv_595_612;

	l.pool_size = 232;
	l.pool_shrinker = 168;	/* embedded struct shrinker before 6.7 */
	return l;
}

/* 590.44.01: usage_count still an atomic_t, flags at 20/21, pool bit 21.3. */
static struct pt_nv_layout nv_590_44(void)
{
	struct pt_nv_layout l = nv_595_612;

	l.alloc_size = 104;
	l.alloc_usage_count = 16;
	l.alloc_usage_size = 4;
	l.alloc_pool_bit = 21 * 8 + 3;
	l.alloc_num_pages = 28;
	l.alloc_order = 32;
	l.alloc_page_table = 40;
	return l;
}

static void expect_layout_ok(struct kunit *test, const struct pt_nv_layout *l)
{
	char why[WHY_LEN] = "";

	KUNIT_EXPECT_EQ_MSG(test, pt_nv_layout_check(l, why, sizeof(why)), 0, "why: %s", why);
}

static void layout_accepts_595_on_6_12(struct kunit *test)
{
	expect_layout_ok(test, &nv_595_612);
}

static void layout_accepts_595_on_6_1_with_embedded_shrinker(struct kunit *test)
{
	struct pt_nv_layout l = nv_595_61();

	expect_layout_ok(test, &l);
}

static void layout_accepts_590_44_01(struct kunit *test)
{
	struct pt_nv_layout l = nv_590_44();

	expect_layout_ok(test, &l);
}

/* Boundaries that must still pass, one field changed from the 595 layout. */
struct field_case {
	const char *desc;
	size_t off;		/* offsetof(struct pt_nv_layout, field) */
	int value;
	const char *why;	/* refusals: text the reason must contain */
};

#define F(field) offsetof(struct pt_nv_layout, field)

static const struct field_case accepted[] = {
	{ "pool bit unknown", F(alloc_pool_bit), -1 },
	{ "pool bit 0 (not a checked field)", F(alloc_pool_bit), 0 },
	{ "pool bit in the last byte", F(alloc_pool_bit), 112 * 8 - 1 },
	{ "pool bit just past usage_count", F(alloc_pool_bit), 24 * 8 },
	{ "max page order 0", F(max_page_order), 0 },
	{ "max page order 15", F(max_page_order), 15 },
	{ "page_table in the last 8 bytes", F(alloc_page_table), 104 },
	{ "pte size 24 (570.133.20)", F(pte_size), 24 },
	{ "pte size 64", F(pte_size), 64 },
	{ "shrinker in the last 8 bytes", F(pool_shrinker), 160 },
	{ "entry list_node after a hole", F(entry_list_node), 16 },
	{ "struct of 4096 bytes", F(pool_size), 4096 },
};

static void field_case_desc(const struct field_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s = %d", c->desc, c->value);
}

KUNIT_ARRAY_PARAM(accepted, accepted, field_case_desc);

static void layout_with(struct pt_nv_layout *l, const struct field_case *c)
{
	*l = nv_595_612;
	*(int *)((char *)l + c->off) = c->value;
}

static void layout_accepts_boundary_values(struct kunit *test)
{
	struct pt_nv_layout l;

	layout_with(&l, test->param_value);
	expect_layout_ok(test, &l);
}

static const struct field_case refused[] = {
	/* Out of range, before any offset is looked at. */
	{ "max page order", F(max_page_order), -1, "nv_max_page_order=-1" },
	{ "max page order", F(max_page_order), 16, "nv_max_page_order=16" },
	/* nv_alloc_t */
	{ "alloc size unset", F(alloc_size), -1, "nv_alloc_t size -1" },
	{ "alloc size", F(alloc_size), 0, "nv_alloc_t size 0" },
	{ "alloc size", F(alloc_size), 4097, "nv_alloc_t size 4097" },
	{ "usage_count unset", F(alloc_usage_count), -1, "nv_alloc_usage_count is not set" },
	{ "usage_count misaligned", F(alloc_usage_count), 12, "nv_alloc_usage_count=12" },
	{ "usage_count outside", F(alloc_usage_count), 112, "nv_alloc_usage_count=112" },
	{ "usage size unset", F(alloc_usage_size), -1, "nv_alloc_usage_size=-1" },
	{ "usage size", F(alloc_usage_size), 2, "nv_alloc_usage_size=2" },
	{ "usage size", F(alloc_usage_size), 16, "nv_alloc_usage_size=16" },
	{ "num_pages unset", F(alloc_num_pages), -1, "nv_alloc_num_pages is not set" },
	{ "num_pages misaligned", F(alloc_num_pages), 34, "nv_alloc_num_pages=34" },
	{ "num_pages outside", F(alloc_num_pages), 112, "nv_alloc_num_pages=112" },
	{ "num_pages on usage_count", F(alloc_num_pages), 20, "nv_alloc_num_pages=20" },
	{ "order unset", F(alloc_order), -1, "nv_alloc_order is not set" },
	{ "order misaligned", F(alloc_order), 37, "nv_alloc_order=37" },
	{ "order outside", F(alloc_order), 112, "nv_alloc_order=112" },
	{ "order on num_pages", F(alloc_order), 32, "nv_alloc_order=32" },
	{ "page_table unset", F(alloc_page_table), -1, "nv_alloc_page_table is not set" },
	{ "page_table misaligned", F(alloc_page_table), 44, "nv_alloc_page_table=44" },
	{ "page_table outside", F(alloc_page_table), 112, "nv_alloc_page_table=112" },
	{ "page_table on order", F(alloc_page_table), 32, "nv_alloc_page_table=32" },
	{ "usage_count on page_table", F(alloc_usage_count), 48, "nv_alloc_usage_count=48" },
	{ "pool bit outside", F(alloc_pool_bit), 112 * 8, "nv_alloc_pool_bit=896" },
	{ "pool bit in usage_count", F(alloc_pool_bit), 16 * 8 + 3, "nv_alloc_pool_bit=131" },
	{ "pool bit in num_pages", F(alloc_pool_bit), 32 * 8, "nv_alloc_pool_bit=256" },
	{ "pool bit in order", F(alloc_pool_bit), 39 * 8 + 7, "nv_alloc_pool_bit=319" },
	{ "pool bit in page_table", F(alloc_pool_bit), 55 * 8 + 7, "nv_alloc_pool_bit=447" },
	/* nvidia_pte_t */
	{ "pte size unset", F(pte_size), -1, "nv_pte_size=-1" },
	{ "pte size", F(pte_size), 8, "nv_pte_size=8" },
	{ "pte size", F(pte_size), 20, "nv_pte_size=20" },
	{ "pte size", F(pte_size), 72, "nv_pte_size=72" },
	{ "pte phys unset", F(pte_phys_addr), -1, "nv_pte_phys_addr is not set" },
	{ "pte phys misaligned", F(pte_phys_addr), 4, "nv_pte_phys_addr=4" },
	{ "pte phys outside", F(pte_phys_addr), 16, "nv_pte_phys_addr=16" },
	{ "pte phys on virt", F(pte_phys_addr), 8, "nv_pte_phys_addr=8" },
	{ "pte virt unset", F(pte_virt_addr), -1, "nv_pte_virt_addr is not set" },
	{ "pte virt misaligned", F(pte_virt_addr), 12, "nv_pte_virt_addr=12" },
	{ "pte virt outside", F(pte_virt_addr), 16, "nv_pte_virt_addr=16" },
	{ "pte virt on phys", F(pte_virt_addr), 0, "nv_pte_virt_addr=0" },
	/* nv_page_pool_t */
	{ "pool size unset", F(pool_size), -1, "nv_page_pool_t size -1" },
	{ "pool size", F(pool_size), 0, "nv_page_pool_t size 0" },
	{ "pool size", F(pool_size), 4097, "nv_page_pool_t size 4097" },
	{ "pool size too small", F(pool_size), 156, "nv_pool_lock=152" },
	{ "clean_list unset", F(pool_clean_list), -1, "nv_pool_clean_list is not set" },
	{ "clean_list misaligned", F(pool_clean_list), 4, "nv_pool_clean_list=4" },
	{ "clean_list outside", F(pool_clean_list), 160, "nv_pool_clean_list=160" },
	{ "clean_list on dirty_list", F(pool_clean_list), 8, "nv_pool_clean_list=8" },
	{ "dirty_list unset", F(pool_dirty_list), -1, "nv_pool_dirty_list is not set" },
	{ "dirty_list misaligned", F(pool_dirty_list), 20, "nv_pool_dirty_list=20" },
	{ "dirty_list outside", F(pool_dirty_list), 160, "nv_pool_dirty_list=160" },
	{ "dirty_list on clean_list", F(pool_dirty_list), 0, "nv_pool_dirty_list=0" },
	{ "node_id unset", F(pool_node_id), -1, "nv_pool_node_id is not set" },
	{ "node_id misaligned", F(pool_node_id), 138, "nv_pool_node_id=138" },
	{ "node_id outside", F(pool_node_id), 168, "nv_pool_node_id=168" },
	{ "node_id on order", F(pool_node_id), 140, "nv_pool_node_id=140" },
	{ "order unset", F(pool_order), -1, "nv_pool_order is not set" },
	{ "order misaligned", F(pool_order), 141, "nv_pool_order=141" },
	{ "order outside", F(pool_order), 168, "nv_pool_order=168" },
	{ "order on lock", F(pool_order), 156, "nv_pool_order=156" },
	{ "lock unset", F(pool_lock), -1, "nv_pool_lock is not set" },
	{ "lock misaligned", F(pool_lock), 148, "nv_pool_lock=148" },
	{ "lock outside", F(pool_lock), 168, "nv_pool_lock=168" },
	{ "lock on dirty_list", F(pool_lock), 24, "nv_pool_lock=24" },
	{ "shrinker misaligned", F(pool_shrinker), 164, "nv_pool_shrinker=164" },
	{ "shrinker outside", F(pool_shrinker), 168, "nv_pool_shrinker=168" },
	{ "shrinker on lock", F(pool_shrinker), 152, "nv_pool_shrinker=152" },
	/* nv_page_pool_entry_t */
	{ "entry virt unset", F(entry_virt_addr), -1, "nv_entry_virt_addr is not set" },
	{ "entry virt misaligned", F(entry_virt_addr), 4, "nv_entry_virt_addr=4" },
	{ "entry virt on list_node", F(entry_virt_addr), 8, "nv_entry_virt_addr=8" },
	{ "entry list_node unset", F(entry_list_node), -1, "nv_entry_list_node is not set" },
	{ "entry list_node misaligned", F(entry_list_node), 12, "nv_entry_list_node=12" },
	{ "entry list_node on virt", F(entry_list_node), 0, "nv_entry_list_node=0" },
	/* Offsets whose off + size wraps an int (F13): must not pass. */
	{ "pte virt near INT_MAX", F(pte_virt_addr), 2147483640, "nv_pte_virt_addr=2147483640" },
	{ "num_pages near INT_MAX", F(alloc_num_pages), 2147483644, "nv_alloc_num_pages=2147483644" },
	{ "page_table near INT_MAX", F(alloc_page_table), 2147483640, "nv_alloc_page_table=2147483640" },
	{ "pool lock near INT_MAX", F(pool_lock), 2147483640, "nv_pool_lock=2147483640" },
	{ "entry virt near INT_MAX", F(entry_virt_addr), 2147483640, "nv_entry_virt_addr=2147483640" },
	{ "entry list_node near INT_MAX", F(entry_list_node), 2147483632, "nv_entry_list_node=2147483632" },
};

KUNIT_ARRAY_PARAM(refused, refused, field_case_desc);

static void layout_refuses_wrong_value_naming_it(struct kunit *test)
{
	const struct field_case *c = test->param_value;
	struct pt_nv_layout l;
	char why[WHY_LEN] = "";

	layout_with(&l, c);
	KUNIT_EXPECT_EQ(test, pt_nv_layout_check(&l, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, c->why), "why: '%s', want '%s'", why, c->why);
}

/* The 6.1 layout's embedded shrinker is checked like any other field. */
static void layout_refuses_6_1_shrinker_outside_the_pool(struct kunit *test)
{
	struct pt_nv_layout l = nv_595_61();
	char why[WHY_LEN] = "";

	l.pool_shrinker = 232;
	KUNIT_EXPECT_EQ(test, pt_nv_layout_check(&l, why, sizeof(why)), -EINVAL);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(why, "nv_pool_shrinker=232"), "why: %s", why);
}

/* A short message buffer gets a terminated prefix and nothing beyond. */
static void layout_reason_is_truncated_safely(struct kunit *test)
{
	struct pt_nv_layout l = nv_595_612;
	char why[8 + 8];

	memset(why, 0x5a, sizeof(why));
	l.pool_lock = 148;
	KUNIT_EXPECT_EQ(test, pt_nv_layout_check(&l, why, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, strnlen(why, 8), 7);
	KUNIT_EXPECT_NULL(test, memchr_inv(why + 8, 0x5a, 8));
}

static struct kunit_case pt_layout_cases[] = {
	KUNIT_CASE(layout_accepts_595_on_6_12),
	KUNIT_CASE(layout_accepts_595_on_6_1_with_embedded_shrinker),
	KUNIT_CASE(layout_accepts_590_44_01),
	KUNIT_CASE_PARAM(layout_accepts_boundary_values, accepted_gen_params),
	KUNIT_CASE_PARAM(layout_refuses_wrong_value_naming_it, refused_gen_params),
	KUNIT_CASE(layout_refuses_6_1_shrinker_outside_the_pool),
	KUNIT_CASE(layout_reason_is_truncated_safely),
	{}
};

struct kunit_suite pt_layout_suite = {
	.name = "pagetrail_layout",
	.test_cases = pt_layout_cases,
};
