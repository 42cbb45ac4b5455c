// SPDX-License-Identifier: GPL-2.0
/* KUnit: which addresses a handler may read (module/memsafe.c, F15). */

#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../module/memsafe.c"
#include "suites.h"

static void memsafe_accepts_kmalloc_and_vmalloc(struct kunit *test)
{
	void *k = kunit_kmalloc(test, 64, GFP_KERNEL);
	void *v = vmalloc(2 * PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_TRUE(test, pt_ram_readable((unsigned long)k, 64));
	/* Across the page boundary: both pages are RAM. */
	KUNIT_EXPECT_TRUE(test,
			  pt_ram_readable((unsigned long)v + PAGE_SIZE - 4, 8));
	vfree(v);
}

/* What ioremap gives: vmalloc space with no RAM page behind it. */
static void memsafe_refuses_vmalloc_space_without_ram(struct kunit *test)
{
	struct page *zero = ZERO_PAGE(0);
	void *v = vmalloc(PAGE_SIZE);
	void *r;

	KUNIT_ASSERT_NOT_NULL(test, v);
	/* RAM at the start, the guard page after the area at the end. */
	KUNIT_EXPECT_FALSE(
		test, pt_ram_readable((unsigned long)v + PAGE_SIZE - 4, 8));
	KUNIT_EXPECT_TRUE(test,
			  pt_ram_readable((unsigned long)v + PAGE_SIZE - 8, 8));
	vfree(v);
	KUNIT_EXPECT_FALSE(test, pt_ram_readable((unsigned long)v, 8));

	/* A reserved page mapped into vmalloc space stands in for a BAR. */
	KUNIT_ASSERT_TRUE(test, PageReserved(zero));
	r = vmap(&zero, 1, VM_MAP, PAGE_KERNEL_RO);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_FALSE(test, pt_ram_readable((unsigned long)r, 8));
	vunmap(r);
}

static void memsafe_refuses_empty_and_wrapping_ranges(struct kunit *test)
{
	int x = 0;

	KUNIT_EXPECT_FALSE(test, pt_ram_readable((unsigned long)&x, 0));
	KUNIT_EXPECT_FALSE(test, pt_ram_readable(ULONG_MAX - 3, 8));
}

static struct kunit_case memsafe_cases[] = {
	KUNIT_CASE(memsafe_accepts_kmalloc_and_vmalloc),
	KUNIT_CASE(memsafe_refuses_vmalloc_space_without_ram),
	KUNIT_CASE(memsafe_refuses_empty_and_wrapping_ranges),
	{}
};

struct kunit_suite pt_memsafe_suite = {
	.name = "pagetrail_memsafe",
	.test_cases = memsafe_cases,
};
