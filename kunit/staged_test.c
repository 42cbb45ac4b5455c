// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: record first's 64-byte slot (include/pagetrail/staged.h). An
 * observation packed and unpacked again is the same observation, field by
 * field, at the edges of the compact form and past them (two slots).
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <pagetrail/staged.h>
#include <pagetrail/stage.h>

#include "suites.h"

/* Every field away from zero, every flag set. */
static struct pt_obs staged_full_obs(void)
{
	return (struct pt_obs){
		.pfn = 0x123456789aULL,
		.token = 0xfedcba9876543210ULL,
		.pool_refs = -7,
		.head_pfn = 0x1234567800ULL,
		.alloc_seq = 0xdeadbeef,
		.index = 513,
		.aux = 0x80000001,
		.ret = -EAGAIN,
		.inner_ret = -EINVAL,
		.refcount = 0,
		.mapcount = -1,
		.page_flags = PT_PF_HEAD | PT_PF_COMPOUND | PT_PF_PP,
		.role = PT_ROLE_INSERT,
		.cause = 3,
		.order = 9,
		.compound_order = 18,
		.sampled = true,
		.sampled_pool_refs = true,
		.owner_known = true,
		.create = true,
		.tracked_only = true,
		.pooled_only = true,
		.unsure = true,
		.owner_dying = true,
		.event_anomaly = PT_AN_MAX - 1,
	};
}

/* Pack @in into two fresh slots, unpack, compare; returns slots used. */
static unsigned int staged_round_trip(struct kunit *test,
				      const struct pt_obs *in, u8 kind,
				      bool stacked)
{
	struct pt_slot slots[2];
	struct pt_obs out;
	unsigned int used;

	memset(slots, 0xa5, sizeof(slots));
	used = pt_slot_pack(&slots[0], &slots[1], in, kind, stacked);
	KUNIT_EXPECT_EQ(test, pt_slot_type(&slots[0]), kind);
	KUNIT_EXPECT_EQ(test, !!(slots[0].obs.bits & PT_SLOT_STACKED), stacked);
	if (used == 2)
		KUNIT_EXPECT_EQ(test, pt_slot_type(&slots[1]), PT_SLOT_WIDE);
	pt_slot_unpack(&slots[0], &slots[1], &out);
	KUNIT_EXPECT_EQ(test, out.pfn, in->pfn);
	KUNIT_EXPECT_EQ(test, out.token, in->token);
	KUNIT_EXPECT_EQ(test, out.pool_refs, in->pool_refs);
	KUNIT_EXPECT_EQ(test, out.head_pfn, in->head_pfn);
	KUNIT_EXPECT_EQ(test, out.alloc_seq, in->alloc_seq);
	KUNIT_EXPECT_EQ(test, out.index, in->index);
	KUNIT_EXPECT_EQ(test, out.aux, in->aux);
	KUNIT_EXPECT_EQ(test, out.ret, in->ret);
	KUNIT_EXPECT_EQ(test, out.inner_ret, in->inner_ret);
	KUNIT_EXPECT_EQ(test, out.refcount, in->refcount);
	KUNIT_EXPECT_EQ(test, out.mapcount, in->mapcount);
	KUNIT_EXPECT_EQ(test, out.page_flags, in->page_flags);
	KUNIT_EXPECT_EQ(test, out.role, in->role);
	KUNIT_EXPECT_EQ(test, out.cause, in->cause);
	KUNIT_EXPECT_EQ(test, out.order, in->order);
	KUNIT_EXPECT_EQ(test, out.compound_order, in->compound_order);
	KUNIT_EXPECT_EQ(test, out.event_anomaly, in->event_anomaly);
	KUNIT_EXPECT_EQ(test, out.sampled, in->sampled);
	KUNIT_EXPECT_EQ(test, out.sampled_pool_refs, in->sampled_pool_refs);
	KUNIT_EXPECT_EQ(test, out.owner_known, in->owner_known);
	KUNIT_EXPECT_EQ(test, out.create, in->create);
	KUNIT_EXPECT_EQ(test, out.tracked_only, in->tracked_only);
	KUNIT_EXPECT_EQ(test, out.pooled_only, in->pooled_only);
	KUNIT_EXPECT_EQ(test, out.unsure, in->unsure);
	KUNIT_EXPECT_EQ(test, out.owner_dying, in->owner_dying);
	return used;
}

static void staged_compact_keeps_every_field(struct kunit *test)
{
	struct pt_obs o = staged_full_obs();
	struct pt_obs zero = {};

	KUNIT_EXPECT_EQ(test, staged_round_trip(test, &o, PT_STAGE_PAGE, true),
			1);
	KUNIT_EXPECT_EQ(
		test, staged_round_trip(test, &zero, PT_STAGE_EVENT, false), 1);
	/* The edges of the compact form: still one slot. */
	o.head_pfn = o.pfn - U32_MAX;
	o.pool_refs = S32_MIN;
	o.page_flags = U16_MAX;
	KUNIT_EXPECT_EQ(test,
			staged_round_trip(test, &o, PT_STAGE_HELD_PAGE, false),
			1);
	o.pool_refs = S32_MAX;
	KUNIT_EXPECT_EQ(test,
			staged_round_trip(test, &o, PT_STAGE_ASSIGN_AFTER_TAKE,
					  true),
			1);
	/* Not sampled: head_pfn 0 below a pfn under 2^32. */
	o = staged_full_obs();
	o.pfn = 0xfffff000;
	o.head_pfn = 0;
	KUNIT_EXPECT_EQ(test, staged_round_trip(test, &o, PT_STAGE_PAGE, false),
			1);
}

static void staged_wide_keeps_what_does_not_fit(struct kunit *test)
{
	struct pt_obs o = staged_full_obs();

	/* A head above the page (a torn sample) or 2^32 pages below it. */
	o.head_pfn = o.pfn + 1;
	KUNIT_EXPECT_EQ(test, staged_round_trip(test, &o, PT_STAGE_PAGE, true),
			2);
	o.head_pfn = o.pfn - U32_MAX - 1;
	KUNIT_EXPECT_EQ(test, staged_round_trip(test, &o, PT_STAGE_PAGE, false),
			2);
	/* page_pool's fragment bias: a count past 32 bits, either sign. */
	o = staged_full_obs();
	o.pool_refs = (s64)S32_MAX + 1;
	KUNIT_EXPECT_EQ(
		test,
		staged_round_trip(test, &o, PT_STAGE_TAKE_OR_FRESH, false), 2);
	o.pool_refs = LONG_MIN;
	KUNIT_EXPECT_EQ(test, staged_round_trip(test, &o, PT_STAGE_PAGE, false),
			2);
	o = staged_full_obs();
	o.page_flags = U16_MAX + 1;
	KUNIT_EXPECT_EQ(test, staged_round_trip(test, &o, PT_STAGE_PAGE, false),
			2);
}

/* A head slot's fields end before the type byte every slot shares. */
static void staged_head_leaves_the_type(struct kunit *test)
{
	struct pt_slot s;

	memset(&s, 0xff, sizeof(s));
	s.obs.type = PT_SLOT_HEAD;
	/* The whole struct, padding too, as a compiler may store it. */
	s.head = (struct pt_slot_head){ .who.ts_ns = 1, .epoch = 2 };
	KUNIT_EXPECT_EQ(test, pt_slot_type(&s), PT_SLOT_HEAD);
	s.wide = (struct pt_slot_wide){ .head_pfn = 3 };
	KUNIT_EXPECT_EQ(test, pt_slot_type(&s), PT_SLOT_HEAD);
}

static struct kunit_case pt_staged_cases[] = {
	KUNIT_CASE(staged_compact_keeps_every_field),
	KUNIT_CASE(staged_wide_keeps_what_does_not_fit),
	KUNIT_CASE(staged_head_leaves_the_type),
	{}
};

struct kunit_suite pt_staged_suite = {
	.name = "pagetrail_staged",
	.test_cases = pt_staged_cases,
};
