// SPDX-License-Identifier: GPL-2.0
/* KUnit: the page state machine (module/rules.c), every role from every state. */

#include <kunit/test.h>
#include <linux/errno.h>

#include "../module/rules.c"
#include "suites.h"

/*
 * One row of a transition table: the observation and what must follow.
 * Where the result is not recorded, the tracker applies nothing, so @want.to
 * is only compared when @want.record is set.
 */
struct rule_row {
	u8 from;
	struct pt_rule_input in;
	struct pt_rule_result want;
};

#define NOT_SAMPLED (-1)	/* refcount 0, but not sampled: must be ignored */

#define ROWX(from_, role_, cause_, ref_, ret_, mism_, drv_, to_, rec_, gap_, gen_, an_, fgt_, \
	     reuse_) \
	{									\
		.from = PT_ST_##from_,						\
		.in = {								\
			.role = PT_ROLE_##role_,				\
			.cause = PT_CAUSE_##cause_,				\
			.sampled = (ref_) >= 0,					\
			.refcount = (ref_) < 0 ? 0 : (ref_),			\
			.ret = (ret_),						\
			.owner_mismatch = (mism_),				\
			.by_driver = (drv_),					\
		},								\
		.want = {							\
			.to = PT_ST_##to_,					\
			.record = (rec_),					\
			.gap = (gap_),						\
			.new_generation = (gen_),				\
			.anomalies = (an_),					\
			.forget = (fgt_),					\
			.reused_elsewhere = (reuse_),				\
		},								\
	}
#define ROW(from_, role_, cause_, ref_, ret_, mism_, to_, rec_, gap_, gen_, an_) \
	ROWX(from_, role_, cause_, ref_, ret_, mism_, false, to_, rec_, gap_, gen_, an_, false, false)

#define BAD(x) BIT(PT_AN_##x)
#define GAP true
#define NO_GAP false

/* Admission: always to POOLED_DIRTY, always a new generation. */
#define ADMIT(from, ref, gap, an) \
	ROW(from, ADMIT, NONE, ref, 0, false, POOLED_DIRTY, true, gap, true, an)
#define SCRUB(from, gap, an) \
	ROW(from, SCRUB, NONE, NOT_SAMPLED, 0, false, POOLED_CLEAN, true, gap, false, an)
#define SCRUB_REPEAT(from) \
	ROW(from, SCRUB, NONE, NOT_SAMPLED, 0, false, from, false, false, false, 0)
#define TAKE(from, cause, ref, gap, an) \
	ROW(from, TAKE, cause, ref, 0, false, TAKEN, true, gap, false, an)
#define ASSIGN(from, cause, gap, an) \
	ROW(from, ASSIGN, cause, NOT_SAMPLED, 0, false, ASSIGNED, true, gap, false, an)
#define RECLAIM(from, cause, gap, an) \
	ROW(from, RECLAIM, cause, NOT_SAMPLED, 0, false, RECLAIMING, true, gap, false, an)
#define RECLAIM_REPEAT(from) \
	ROW(from, RECLAIM, SHRINKER, NOT_SAMPLED, 0, false, from, false, false, false, 0)
#define FREE(from, cause, gap, an) \
	ROW(from, FREE, cause, NOT_SAMPLED, 0, false, FREED, true, gap, false, an)
#define FREE_IGNORED(from, cause) \
	ROW(from, FREE, cause, NOT_SAMPLED, 0, false, from, false, false, false, 0)
#define RELEASE(from) \
	ROW(from, RELEASE, NONE, 1, 0, false, RELEASED, true, false, false, 0)
#define RELEASE_IGNORED(from) ROW(from, RELEASE, NONE, 1, 0, false, from, false, false, false, 0)
/* The walk names its own allocation; another one owns the chunk now (F7). */
#define RELEASE_OTHER_OWNER(from) \
	ROW(from, RELEASE, NONE, 1, 0, true, from, false, false, false, 0)
/* Recorded once, then the entry is dropped: the page lives elsewhere (F3). */
#define ALLOC_FORGOTTEN(from, cause) \
	ROWX(from, ALLOC, cause, NOT_SAMPLED, 0, false, false, from, true, false, false, 0, true, true)
#define ALLOC(from, cause, to, gap, an) \
	ROW(from, ALLOC, cause, NOT_SAMPLED, 0, false, to, true, gap, false, an)
#define ALLOC_IGNORED(from, cause) \
	ROW(from, ALLOC, cause, NOT_SAMPLED, 0, false, from, false, false, false, 0)
/* Driver inserts (inside the driver's mmap). */
#define INSERT(from, ref, ret, mism, to, gap, an) \
	ROWX(from, INSERT, NONE, ref, ret, mism, true, to, true, gap, false, an, false, false)
/* Inserts by another mapper of a tracked pfn. */
#define INSERT_FOREIGN(from, ref, ret, to, rec, gap, an, fgt) \
	ROWX(from, INSERT, NONE, ref, ret, false, false, to, rec, gap, false, an, fgt, false)
#define KEEP(from, role) ROW(from, role, NONE, NOT_SAMPLED, 0, false, from, true, false, false, 0)

static void rule_row_desc(const struct rule_row *r, char *desc)
{
	char ref[12] = "n/a";

	if (r->in.sampled)
		snprintf(ref, sizeof(ref), "%d", r->in.refcount);
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s from %s cause=%s ref=%s ret=%d%s%s",
		 pt_role_name(r->in.role), pt_state_name(r->from), pt_cause_name(r->in.cause),
		 ref, r->in.ret, r->in.owner_mismatch ? " other-owner" : "",
		 r->in.role == PT_ROLE_INSERT && !r->in.by_driver ? " other-mapper" : "");
}

static void rule_expect(struct kunit *test, const struct rule_row *r)
{
	struct pt_rule_result got;

	pt_rule_apply(r->from, &r->in, &got);
	KUNIT_EXPECT_EQ_MSG(test, got.record, r->want.record, "record");
	if (r->want.record)
		KUNIT_EXPECT_STREQ_MSG(test, pt_state_name(got.to), pt_state_name(r->want.to),
				       "to (state %u)", got.to);
	KUNIT_EXPECT_EQ_MSG(test, got.gap, r->want.gap, "gap");
	KUNIT_EXPECT_EQ_MSG(test, got.new_generation, r->want.new_generation, "new_generation");
	KUNIT_EXPECT_EQ_MSG(test, got.forget, r->want.forget, "forget");
	KUNIT_EXPECT_EQ_MSG(test, got.reused_elsewhere, r->want.reused_elsewhere,
			    "reused_elsewhere");
	KUNIT_EXPECT_EQ_MSG(test, got.anomalies, r->want.anomalies,
			    "anomalies: first got %s, want %s",
			    pt_anomaly_name(pt_first_anomaly(got.anomalies)),
			    pt_anomaly_name(pt_first_anomaly(r->want.anomalies)));
}

static void rules_table_row(struct kunit *test)
{
	rule_expect(test, test->param_value);
}

static const struct rule_row admit_rows[] = {
	ADMIT(UNTRACKED, 1, GAP, 0),
	ADMIT(ASSIGNED, 1, NO_GAP, 0),
	ADMIT(MAPPED, 1, NO_GAP, 0),
	ADMIT(POOLED_DIRTY, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	ADMIT(POOLED_CLEAN, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	ADMIT(POOLED, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	ADMIT(TAKEN, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	ADMIT(RECLAIMING, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	ADMIT(FREED, 1, NO_GAP, BAD(ADMIT_FREED)),
	ADMIT(RELEASED, 1, GAP, 0),
	/* The refcount the page has when it is admitted. */
	ADMIT(ASSIGNED, 0, NO_GAP, BAD(ADMIT_FREED)),
	ADMIT(ASSIGNED, 2, NO_GAP, BAD(ADMIT_EXTRA_REF)),
	ADMIT(MAPPED, 3, NO_GAP, BAD(ADMIT_EXTRA_REF)),
	ADMIT(UNTRACKED, 0, GAP, BAD(ADMIT_FREED)),
	ADMIT(FREED, 0, NO_GAP, BAD(ADMIT_FREED)),
	ADMIT(FREED, 2, NO_GAP, BAD(ADMIT_FREED) | BAD(ADMIT_EXTRA_REF)),
	ADMIT(POOLED_DIRTY, 0, NO_GAP, BAD(DOUBLE_ADMIT) | BAD(ADMIT_FREED)),
	ADMIT(POOLED_CLEAN, 2, NO_GAP, BAD(DOUBLE_ADMIT) | BAD(ADMIT_EXTRA_REF)),
	ADMIT(ASSIGNED, NOT_SAMPLED, NO_GAP, 0),
};

static const struct rule_row scrub_rows[] = {
	SCRUB(UNTRACKED, GAP, 0),
	SCRUB(ASSIGNED, NO_GAP, BAD(SCRUB_UNPOOLED)),
	SCRUB(MAPPED, NO_GAP, BAD(SCRUB_UNPOOLED)),
	SCRUB(POOLED_DIRTY, NO_GAP, 0),
	SCRUB_REPEAT(POOLED_CLEAN),	/* an old clean head, seen again */
	SCRUB(POOLED, NO_GAP, 0),
	SCRUB(TAKEN, NO_GAP, BAD(SCRUB_UNPOOLED)),
	SCRUB(RECLAIMING, NO_GAP, BAD(SCRUB_UNPOOLED)),
	SCRUB(FREED, NO_GAP, BAD(SCRUB_UNPOOLED)),
	SCRUB(RELEASED, NO_GAP, BAD(SCRUB_UNPOOLED)),
};

static const struct rule_row take_rows[] = {
	TAKE(UNTRACKED, CLEAN, 1, GAP, 0),
	TAKE(UNTRACKED, DIRTY, 1, GAP, 0),
	TAKE(ASSIGNED, CLEAN, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(ASSIGNED, DIRTY, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(MAPPED, CLEAN, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(MAPPED, DIRTY, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(POOLED_DIRTY, DIRTY, 1, NO_GAP, 0),
	TAKE(POOLED_DIRTY, CLEAN, 1, GAP, 0),	/* the scrub was not seen */
	TAKE(POOLED_CLEAN, CLEAN, 1, NO_GAP, 0),
	/* move_pages inlined: the list is not seen, the pool state says enough. */
	TAKE(POOLED_CLEAN, NONE, 1, NO_GAP, 0),
	TAKE(POOLED_DIRTY, NONE, 1, NO_GAP, 0),
	TAKE(POOLED_CLEAN, DIRTY, 1, GAP, 0),	/* a re-admission was not seen */
	TAKE(POOLED, CLEAN, 1, NO_GAP, 0),
	TAKE(POOLED, DIRTY, 1, NO_GAP, 0),
	TAKE(POOLED, NONE, 1, NO_GAP, 0),
	TAKE(TAKEN, CLEAN, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(TAKEN, DIRTY, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(RECLAIMING, CLEAN, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(RECLAIMING, DIRTY, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(FREED, CLEAN, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(FREED, DIRTY, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(RELEASED, CLEAN, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(RELEASED, DIRTY, 1, NO_GAP, BAD(TAKE_UNPOOLED)),
	/* The refcount the page has when the pool hands it out. */
	TAKE(POOLED_CLEAN, CLEAN, 0, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(POOLED_CLEAN, CLEAN, 2, NO_GAP, BAD(TAKE_ALIASED)),
	TAKE(POOLED_DIRTY, DIRTY, 0, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(FREED, DIRTY, 0, NO_GAP, BAD(TAKE_UNPOOLED)),
	TAKE(ASSIGNED, CLEAN, 2, NO_GAP, BAD(TAKE_UNPOOLED) | BAD(TAKE_ALIASED)),
	TAKE(POOLED_CLEAN, CLEAN, NOT_SAMPLED, NO_GAP, 0),
};

static const struct rule_row assign_rows[] = {
	ASSIGN(UNTRACKED, FRESH, NO_GAP, 0),
	ASSIGN(UNTRACKED, POOL, GAP, 0),	/* admission and take not seen */
	ASSIGN(ASSIGNED, FRESH, NO_GAP, BAD(ASSIGN_WHILE_OWNED)),
	ASSIGN(ASSIGNED, POOL, NO_GAP, BAD(ASSIGN_WHILE_OWNED)),
	ASSIGN(MAPPED, FRESH, NO_GAP, BAD(ASSIGN_WHILE_OWNED)),
	ASSIGN(MAPPED, POOL, NO_GAP, BAD(ASSIGN_WHILE_OWNED)),
	ASSIGN(POOLED_DIRTY, FRESH, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ASSIGN(POOLED_DIRTY, POOL, GAP, 0),	/* the take was not seen */
	ASSIGN(POOLED_CLEAN, FRESH, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ASSIGN(POOLED_CLEAN, POOL, GAP, 0),
	ASSIGN(POOLED, FRESH, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ASSIGN(POOLED, POOL, GAP, 0),
	ASSIGN(TAKEN, FRESH, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ASSIGN(TAKEN, POOL, NO_GAP, 0),
	ASSIGN(RECLAIMING, FRESH, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ASSIGN(RECLAIMING, POOL, NO_GAP, BAD(TAKE_UNPOOLED)),
	ASSIGN(FREED, FRESH, NO_GAP, 0),
	ASSIGN(FREED, POOL, NO_GAP, BAD(TAKE_UNPOOLED)),
	ASSIGN(RELEASED, FRESH, GAP, 0),	/* the final free was not seen */
	ASSIGN(RELEASED, POOL, NO_GAP, BAD(TAKE_UNPOOLED)),
};

static const struct rule_row reclaim_rows[] = {
	RECLAIM(UNTRACKED, SHRINKER, GAP, 0),
	RECLAIM(ASSIGNED, SHRINKER, NO_GAP, BAD(RECLAIM_UNPOOLED)),
	RECLAIM(MAPPED, SHRINKER, NO_GAP, BAD(RECLAIM_UNPOOLED)),
	RECLAIM(POOLED_DIRTY, SHRINKER, NO_GAP, 0),
	RECLAIM(POOLED_CLEAN, SHRINKER, NO_GAP, 0),
	RECLAIM(POOLED, SHRINKER, NO_GAP, 0),
	RECLAIM(TAKEN, SHRINKER, NO_GAP, BAD(RECLAIM_UNPOOLED)),
	RECLAIM_REPEAT(RECLAIMING),	/* walked again by the free list */
	RECLAIM(FREED, SHRINKER, NO_GAP, BAD(RECLAIM_UNPOOLED)),
	RECLAIM(RELEASED, SHRINKER, NO_GAP, BAD(RECLAIM_UNPOOLED)),
	RECLAIM(POOLED_DIRTY, DESTROY, NO_GAP, 0),
	RECLAIM(POOLED_CLEAN, DESTROY, NO_GAP, 0),
	RECLAIM(ASSIGNED, DESTROY, NO_GAP, BAD(RECLAIM_UNPOOLED)),
};

static const struct rule_row free_rows[] = {
	FREE_IGNORED(UNTRACKED, DIRECT),
	FREE_IGNORED(UNTRACKED, REJECT),
	FREE_IGNORED(UNTRACKED, RECLAIM),
	FREE_IGNORED(UNTRACKED, FOREIGN),
	FREE(ASSIGNED, DIRECT, NO_GAP, 0),
	FREE(ASSIGNED, REJECT, GAP, 0),	/* rejected by an admission not seen */
	FREE(ASSIGNED, RECLAIM, NO_GAP, BAD(FREE_WHILE_ASSIGNED)),
	FREE(ASSIGNED, FOREIGN, NO_GAP, BAD(FREE_WHILE_ASSIGNED)),
	FREE(MAPPED, DIRECT, NO_GAP, 0),
	FREE(MAPPED, REJECT, GAP, 0),
	FREE(MAPPED, RECLAIM, NO_GAP, BAD(FREE_WHILE_ASSIGNED)),
	FREE(MAPPED, FOREIGN, NO_GAP, BAD(FREE_WHILE_ASSIGNED)),
	FREE(POOLED_DIRTY, DIRECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED_DIRTY, REJECT, NO_GAP, 0),	/* admission declined it */
	FREE(POOLED_DIRTY, RECLAIM, GAP, 0),	/* removal from the pool not seen */
	FREE(POOLED_DIRTY, FOREIGN, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED_CLEAN, DIRECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED_CLEAN, REJECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED_CLEAN, RECLAIM, GAP, 0),
	FREE(POOLED_CLEAN, FOREIGN, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED, DIRECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED, REJECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(POOLED, RECLAIM, GAP, 0),
	FREE(POOLED, FOREIGN, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(TAKEN, DIRECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(TAKEN, REJECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(TAKEN, RECLAIM, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(TAKEN, FOREIGN, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(RECLAIMING, DIRECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(RECLAIMING, REJECT, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE(RECLAIMING, RECLAIM, NO_GAP, 0),
	FREE(RECLAIMING, FOREIGN, NO_GAP, BAD(FREE_WHILE_POOLED)),
	FREE_IGNORED(FREED, DIRECT),
	FREE_IGNORED(FREED, REJECT),
	FREE_IGNORED(FREED, RECLAIM),
	FREE_IGNORED(FREED, FOREIGN),
	FREE(RELEASED, DIRECT, NO_GAP, 0),	/* the last outside holder let go */
	FREE(RELEASED, REJECT, NO_GAP, 0),
	FREE(RELEASED, RECLAIM, NO_GAP, 0),
	FREE(RELEASED, FOREIGN, NO_GAP, 0),
};

static const struct rule_row release_rows[] = {
	RELEASE_IGNORED(UNTRACKED),
	RELEASE(ASSIGNED),
	RELEASE(MAPPED),
	RELEASE_IGNORED(POOLED_DIRTY),
	RELEASE_IGNORED(POOLED_CLEAN),
	RELEASE_IGNORED(POOLED),
	RELEASE_IGNORED(TAKEN),
	RELEASE_IGNORED(RECLAIMING),
	RELEASE_IGNORED(FREED),
	RELEASE_IGNORED(RELEASED),
	RELEASE_OTHER_OWNER(ASSIGNED),
	RELEASE_OTHER_OWNER(MAPPED),
};

static const struct rule_row alloc_rows[] = {
	ALLOC_IGNORED(UNTRACKED, FRESH),
	ALLOC_IGNORED(UNTRACKED, FOREIGN),
	ALLOC(ASSIGNED, FRESH, ASSIGNED, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(ASSIGNED, FOREIGN, ASSIGNED, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(MAPPED, FRESH, MAPPED, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(MAPPED, FOREIGN, MAPPED, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(POOLED_DIRTY, FRESH, POOLED_DIRTY, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(POOLED_DIRTY, FOREIGN, POOLED_DIRTY, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(POOLED_CLEAN, FRESH, POOLED_CLEAN, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(POOLED_CLEAN, FOREIGN, POOLED_CLEAN, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(POOLED, FRESH, POOLED, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(POOLED, FOREIGN, POOLED, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(TAKEN, FRESH, TAKEN, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(TAKEN, FOREIGN, TAKEN, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(RECLAIMING, FRESH, RECLAIMING, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC(RECLAIMING, FOREIGN, RECLAIMING, NO_GAP, BAD(ALLOC_WHILE_OWNED)),
	ALLOC_IGNORED(FREED, FRESH),	/* the driver's ASSIGN follows */
	ALLOC_FORGOTTEN(FREED, FOREIGN),
	ALLOC_IGNORED(RELEASED, FRESH),	/* its ASSIGN reports the gap */
	/* Someone else got the page: its final free was never seen. */
	ALLOC(RELEASED, FOREIGN, FREED, GAP, 0),
};

static const struct rule_row insert_rows[] = {
	INSERT(UNTRACKED, 1, 0, false, MAPPED, GAP, 0),
	INSERT(ASSIGNED, 1, 0, false, MAPPED, NO_GAP, 0),
	INSERT(MAPPED, 1, 0, false, MAPPED, NO_GAP, 0),
	INSERT(POOLED_DIRTY, 1, 0, false, POOLED_DIRTY, NO_GAP, BAD(INSERT_WHILE_POOLED)),
	INSERT(POOLED_CLEAN, 1, 0, false, POOLED_CLEAN, NO_GAP, BAD(INSERT_WHILE_POOLED)),
	INSERT(POOLED, 1, 0, false, POOLED, NO_GAP, BAD(INSERT_WHILE_POOLED)),
	INSERT(TAKEN, 1, 0, false, TAKEN, NO_GAP, BAD(INSERT_WHILE_POOLED)),
	INSERT(RECLAIMING, 1, 0, false, RECLAIMING, NO_GAP, BAD(INSERT_WHILE_POOLED)),
	INSERT(FREED, 1, 0, false, FREED, NO_GAP, BAD(INSERT_AFTER_FREE)),
	INSERT(RELEASED, 1, 0, false, RELEASED, GAP, 0),
	/* A failed insert maps nothing. */
	INSERT(UNTRACKED, 1, -EBUSY, false, UNTRACKED, GAP, 0),
	INSERT(ASSIGNED, 1, -ENOMEM, false, ASSIGNED, NO_GAP, 0),
	INSERT(MAPPED, 1, -EBUSY, false, MAPPED, NO_GAP, 0),
	/* vm_insert_page() on refcount 0 fails with -EINVAL. */
	INSERT(ASSIGNED, 0, -EINVAL, false, ASSIGNED, NO_GAP, BAD(INSERT_ZERO_REF)),
	INSERT(MAPPED, 0, -EINVAL, false, MAPPED, NO_GAP, BAD(INSERT_ZERO_REF)),
	INSERT(UNTRACKED, 0, -EINVAL, false, UNTRACKED, GAP, BAD(INSERT_ZERO_REF)),
	INSERT(FREED, 0, -EINVAL, false, FREED, NO_GAP,
	       BAD(INSERT_ZERO_REF) | BAD(INSERT_AFTER_FREE)),
	INSERT(POOLED_CLEAN, 0, -EINVAL, false, POOLED_CLEAN, NO_GAP,
	       BAD(INSERT_ZERO_REF) | BAD(INSERT_WHILE_POOLED)),
	INSERT(ASSIGNED, NOT_SAMPLED, 0, false, MAPPED, NO_GAP, 0),
	/* Through the VMA of an allocation that does not own the chunk. */
	INSERT(ASSIGNED, 1, 0, true, MAPPED, NO_GAP, BAD(INSERT_WRONG_OWNER)),
	INSERT(MAPPED, 2, 0, true, MAPPED, NO_GAP, BAD(INSERT_WRONG_OWNER)),
	INSERT(UNTRACKED, 1, 0, true, MAPPED, GAP, 0),
	INSERT(POOLED_DIRTY, 1, 0, true, POOLED_DIRTY, NO_GAP, BAD(INSERT_WHILE_POOLED)),
	INSERT(FREED, 1, 0, true, FREED, NO_GAP, BAD(INSERT_AFTER_FREE)),
	/* Another mapper of a page the pool gave back: reuse, not a fault (F8). */
	INSERT_FOREIGN(FREED, 1, 0, FREED, false, NO_GAP, 0, true),
	INSERT_FOREIGN(FREED, NOT_SAMPLED, 0, FREED, false, NO_GAP, 0, true),
	/* ...unless the page it maps has no reference at all. */
	INSERT_FOREIGN(FREED, 0, -EINVAL, FREED, true, NO_GAP,
		       BAD(INSERT_AFTER_FREE) | BAD(INSERT_ZERO_REF), false),
	INSERT_FOREIGN(ASSIGNED, 1, 0, MAPPED, true, NO_GAP, 0, false),
};

/* Roles that are not page transitions (and unknown roles) change nothing. */
static const struct rule_row keep_rows[] = {
	KEEP(UNTRACKED, NONE), KEEP(ASSIGNED, NONE),
	KEEP(MAPPED, NONE), KEEP(POOLED_DIRTY, NONE),
	KEEP(POOLED_CLEAN, NONE), KEEP(POOLED, NONE),
	KEEP(TAKEN, NONE), KEEP(RECLAIMING, NONE),
	KEEP(FREED, NONE), KEEP(RELEASED, NONE),
	KEEP(UNTRACKED, MAP), KEEP(ASSIGNED, MAP),
	KEEP(MAPPED, MAP), KEEP(POOLED_DIRTY, MAP),
	KEEP(POOLED_CLEAN, MAP), KEEP(POOLED, MAP),
	KEEP(TAKEN, MAP), KEEP(RECLAIMING, MAP),
	KEEP(FREED, MAP), KEEP(RELEASED, MAP),
	KEEP(UNTRACKED, VMA), KEEP(ASSIGNED, VMA),
	KEEP(MAPPED, VMA), KEEP(POOLED_DIRTY, VMA),
	KEEP(POOLED_CLEAN, VMA), KEEP(POOLED, VMA),
	KEEP(TAKEN, VMA), KEEP(RECLAIMING, VMA),
	KEEP(FREED, VMA), KEEP(RELEASED, VMA),
	KEEP(UNTRACKED, DENY), KEEP(ASSIGNED, DENY),
	KEEP(MAPPED, DENY), KEEP(POOLED_DIRTY, DENY),
	KEEP(POOLED_CLEAN, DENY), KEEP(POOLED, DENY),
	KEEP(TAKEN, DENY), KEEP(RECLAIMING, DENY),
	KEEP(FREED, DENY), KEEP(RELEASED, DENY),
	KEEP(UNTRACKED, UNREF), KEEP(ASSIGNED, UNREF),
	KEEP(MAPPED, UNREF), KEEP(POOLED_DIRTY, UNREF),
	KEEP(POOLED_CLEAN, UNREF), KEEP(POOLED, UNREF),
	KEEP(TAKEN, UNREF), KEEP(RECLAIMING, UNREF),
	KEEP(FREED, UNREF), KEEP(RELEASED, UNREF),
	KEEP(UNTRACKED, POOL), KEEP(ASSIGNED, POOL),
	KEEP(MAPPED, POOL), KEEP(POOLED_DIRTY, POOL),
	KEEP(POOLED_CLEAN, POOL), KEEP(POOLED, POOL),
	KEEP(TAKEN, POOL), KEEP(RECLAIMING, POOL),
	KEEP(FREED, POOL), KEEP(RELEASED, POOL),
	KEEP(UNTRACKED, MAX), KEEP(ASSIGNED, MAX),
	KEEP(MAPPED, MAX), KEEP(POOLED_DIRTY, MAX),
	KEEP(POOLED_CLEAN, MAX), KEEP(POOLED, MAX),
	KEEP(TAKEN, MAX), KEEP(RECLAIMING, MAX),
	KEEP(FREED, MAX), KEEP(RELEASED, MAX),
};

/*
 * A pool with a fast cache, a shared ring and its own per-page reference
 * count (the kernel's page_pool): fresh pages enter the cache, recycles
 * name their pool, the pool counts what it lets go.
 */
#define PP(from_, role_, cause_, ref_, mism_, dying_, prefs_, to_, rec_, gap_, gen_, an_) \
	{									\
		.from = PT_ST_##from_,						\
		.in = {								\
			.role = PT_ROLE_##role_,				\
			.cause = PT_CAUSE_##cause_,				\
			.sampled = (ref_) >= 0,					\
			.refcount = (ref_) < 0 ? 0 : (ref_),			\
			.owner_mismatch = (mism_),				\
			.owner_dying = (dying_),				\
			.sampled_pool_refs = (prefs_) != NOT_SAMPLED,		\
			.pool_refs = (prefs_),					\
		},								\
		.want = {							\
			.to = PT_ST_##to_,					\
			.record = (rec_),					\
			.gap = (gap_),						\
			.new_generation = (gen_),				\
			.anomalies = (an_),					\
		},								\
	}
#define PP_FRESH(from, ref, gap, an) \
	PP(from, ADMIT, FRESH, ref, false, false, NOT_SAMPLED, POOLED_CLEAN, true, gap, true, an)
#define PP_RING(from, mism, prefs, gap, an) \
	PP(from, ADMIT, RING, 1, mism, false, prefs, POOLED_DIRTY, true, gap, true, an)
#define PP_CACHE(from, mism, dying, gap, an) \
	PP(from, ADMIT, CACHE, 1, mism, dying, NOT_SAMPLED, POOLED_CLEAN, true, gap, true, an)
#define PP_REFILL(from, rec) \
	PP(from, SCRUB, CACHE, NOT_SAMPLED, false, false, NOT_SAMPLED, POOLED_CLEAN, rec, false, false, 0)
#define PP_RELEASE(from, to, gap, an) \
	PP(from, RELEASE, REFCNT, 2, false, false, NOT_SAMPLED, to, true, gap, false, an)
#define PP_UNREF(from, prefs, an) \
	PP(from, UNREF, NONE, 1, false, false, prefs, from, true, false, false, an)

static const struct rule_row pagepool_rows[] = {
	/* the slow path's fresh pages: a first admission, into the cache */
	PP_FRESH(UNTRACKED, 1, NO_GAP, 0),
	PP_FRESH(FREED, 1, NO_GAP, 0),
	PP_FRESH(RELEASED, 1, NO_GAP, 0),
	PP_FRESH(ASSIGNED, 1, GAP, 0),
	PP_FRESH(POOLED_CLEAN, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	PP_FRESH(POOLED_DIRTY, 1, NO_GAP, BAD(DOUBLE_ADMIT)),
	PP_FRESH(UNTRACKED, 0, NO_GAP, BAD(ADMIT_FREED)),
	/* a recycle into its own pool, another pool, a pool it is already in */
	PP_RING(ASSIGNED, false, NOT_SAMPLED, NO_GAP, 0),
	PP_RING(ASSIGNED, true, NOT_SAMPLED, NO_GAP, BAD(ADMIT_WRONG_POOL)),
	PP_RING(MAPPED, true, NOT_SAMPLED, NO_GAP, BAD(ADMIT_WRONG_POOL)),
	PP_RING(POOLED_DIRTY, true, NOT_SAMPLED, NO_GAP, BAD(DOUBLE_ADMIT)),
	PP_RING(POOLED_CLEAN, false, NOT_SAMPLED, NO_GAP, BAD(DOUBLE_ADMIT)),
	PP_RING(FREED, false, NOT_SAMPLED, NO_GAP, BAD(ADMIT_FREED)),
	PP_RING(ASSIGNED, false, 1, NO_GAP, 0),
	PP_RING(ASSIGNED, false, 0, NO_GAP, BAD(POOL_REF_UNDERFLOW)),
	PP_RING(ASSIGNED, false, -3, NO_GAP, BAD(POOL_REF_UNDERFLOW)),
	/* into the cache: stranded there when the pool's teardown began */
	PP_CACHE(ASSIGNED, false, false, NO_GAP, 0),
	PP_CACHE(ASSIGNED, false, true, NO_GAP, BAD(CACHE_AFTER_DESTROY)),
	PP_CACHE(ASSIGNED, true, false, NO_GAP, BAD(ADMIT_WRONG_POOL)),
	PP_CACHE(POOLED_CLEAN, false, false, NO_GAP, BAD(DOUBLE_ADMIT)),
	PP_CACHE(UNTRACKED, false, true, GAP, BAD(CACHE_AFTER_DESTROY)),
	/* refill: ring to cache; a page seen there already is a repeat */
	PP_REFILL(POOLED_DIRTY, true),
	PP_REFILL(POOLED_CLEAN, false),
	/* the pool lets a page go: from a holder, from its own hands, twice */
	PP_RELEASE(ASSIGNED, RELEASED, NO_GAP, 0),
	PP_RELEASE(MAPPED, RELEASED, NO_GAP, 0),
	PP_RELEASE(UNTRACKED, UNTRACKED, GAP, 0),
	PP_RELEASE(FREED, FREED, NO_GAP, BAD(RELEASE_UNHELD)),
	PP_RELEASE(RELEASED, RELEASED, NO_GAP, BAD(RELEASE_UNHELD)),
	PP_RELEASE(POOLED_DIRTY, RELEASED, NO_GAP, 0),
	PP_RELEASE(POOLED_CLEAN, RELEASED, NO_GAP, 0),
	/* a fragment's holder lets go: the pool's count must stay above 0 */
	PP_UNREF(ASSIGNED, 3, 0),
	PP_UNREF(ASSIGNED, 0, BAD(POOL_REF_UNDERFLOW)),
	PP_UNREF(POOLED_CLEAN, -2, BAD(POOL_REF_UNDERFLOW)),
	PP_UNREF(ASSIGNED, NOT_SAMPLED, 0),
	/* a fragment page drained whole, handed out again in place */
	PP(ASSIGNED, ADMIT, FRAG, 1, false, false, NOT_SAMPLED, POOLED_DIRTY,
	   true, NO_GAP, true, 0),
	/* over-released fragments, seen at the next hand-out */
	PP(ASSIGNED, UNREF, FRAG, 1, false, false, -3, ASSIGNED, true, false,
	   false, BAD(POOL_REF_UNDERFLOW)),
	PP(ASSIGNED, UNREF, FRAG, 1, false, false, NOT_SAMPLED, ASSIGNED, true,
	   false, false, 0),
};

/*
 * A from-state the table cannot hold is treated as UNTRACKED and reported
 * as a gap; a gap is always worth a record, and the next state is valid.
 */
#define BROKEN(role, cause, ref, ret, to, gen) \
	ROW(MAX, role, cause, ref, ret, false, to, true, true, gen, 0)

static const struct rule_row broken_from_rows[] = {
	BROKEN(NONE, NONE, NOT_SAMPLED, 0, UNTRACKED, false),
	BROKEN(ADMIT, NONE, 1, 0, POOLED_DIRTY, true),
	BROKEN(SCRUB, NONE, NOT_SAMPLED, 0, POOLED_CLEAN, false),
	BROKEN(TAKE, CLEAN, 1, 0, TAKEN, false),
	BROKEN(ASSIGN, FRESH, NOT_SAMPLED, 0, ASSIGNED, false),
	BROKEN(RECLAIM, SHRINKER, NOT_SAMPLED, 0, RECLAIMING, false),
	BROKEN(FREE, DIRECT, NOT_SAMPLED, 0, FREED, false),
	BROKEN(RELEASE, NONE, 1, 0, UNTRACKED, false),
	BROKEN(ALLOC, FOREIGN, NOT_SAMPLED, 0, UNTRACKED, false),
	BROKEN(MAP, NONE, NOT_SAMPLED, 0, UNTRACKED, false),
	BROKEN(INSERT, NONE, 1, 0, MAPPED, false),
	BROKEN(VMA, VMA_OPEN, NOT_SAMPLED, 0, UNTRACKED, false),
	BROKEN(DENY, NONE, NOT_SAMPLED, 0, UNTRACKED, false),
};

KUNIT_ARRAY_PARAM(admit, admit_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(scrub, scrub_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(take, take_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(assign, assign_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(reclaim, reclaim_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(free, free_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(release, release_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(alloc, alloc_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(insert, insert_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(keep, keep_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(broken_from, broken_from_rows, rule_row_desc);
KUNIT_ARRAY_PARAM(pagepool, pagepool_rows, rule_row_desc);

/* Each table under its own case name, so a failure says which role broke. */
static void rules_admit_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_scrub_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_take_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_assign_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_reclaim_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_free_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_release_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_alloc_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_insert_from_every_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_non_transition_roles_keep_state(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_unknown_from_state_is_an_untracked_gap(struct kunit *test)
{
	rules_table_row(test);
}

static void rules_pool_with_cache_ring_and_own_refcount(struct kunit *test)
{
	rules_table_row(test);
}

static const struct {
	const struct rule_row *rows;
	size_t n;
} rule_tables[] = {
	{ admit_rows, ARRAY_SIZE(admit_rows) },
	{ scrub_rows, ARRAY_SIZE(scrub_rows) },
	{ take_rows, ARRAY_SIZE(take_rows) },
	{ assign_rows, ARRAY_SIZE(assign_rows) },
	{ reclaim_rows, ARRAY_SIZE(reclaim_rows) },
	{ free_rows, ARRAY_SIZE(free_rows) },
	{ release_rows, ARRAY_SIZE(release_rows) },
	{ alloc_rows, ARRAY_SIZE(alloc_rows) },
	{ insert_rows, ARRAY_SIZE(insert_rows) },
	{ keep_rows, ARRAY_SIZE(keep_rows) },
};

/* The tables above name an expectation for every role from every state. */
static void rules_tables_cover_every_role_and_state(struct kunit *test)
{
	bool seen[PT_ROLE_MAX][PT_ST_MAX] = {};
	unsigned int t, i, role, st;

	for (t = 0; t < ARRAY_SIZE(rule_tables); t++) {
		for (i = 0; i < rule_tables[t].n; i++) {
			const struct rule_row *r = &rule_tables[t].rows[i];

			if (r->in.role < PT_ROLE_MAX && r->from < PT_ST_MAX)
				seen[r->in.role][r->from] = true;
		}
	}
	for (role = 0; role < PT_ROLE_MAX; role++)
		for (st = 0; st < PT_ST_MAX; st++)
			KUNIT_EXPECT_TRUE_MSG(test, seen[role][st], "no row for %s from %s",
					      pt_role_name(role), pt_state_name(st));
}

/* Every role (and one past the last), valid state, cause, refcount, ret, owner. */
struct rule_walk {
	u8 from;
	struct pt_rule_input in;
	struct pt_rule_result res;
};

static const int walk_refs[] = { NOT_SAMPLED, 0, 1, 2 };

#define WALK_COMBOS (2 * 2 * ARRAY_SIZE(walk_refs) * PT_CAUSE_MAX * PT_ST_MAX * (PT_ROLE_MAX + 1))

static void rule_walk_apply(unsigned int idx, struct rule_walk *w)
{
	int ref;

	w->in.owner_mismatch = idx % 2;
	idx /= 2;
	w->in.ret = idx % 2 ? -EINVAL : 0;
	idx /= 2;
	ref = walk_refs[idx % ARRAY_SIZE(walk_refs)];
	idx /= ARRAY_SIZE(walk_refs);
	w->in.sampled = ref >= 0;
	w->in.refcount = ref < 0 ? 0 : ref;
	w->in.cause = idx % PT_CAUSE_MAX;
	idx /= PT_CAUSE_MAX;
	w->from = idx % PT_ST_MAX;
	w->in.role = idx / PT_ST_MAX;
	pt_rule_apply(w->from, &w->in, &w->res);
}

static void rule_walk_desc(const struct rule_walk *w, char *buf, size_t len)
{
	snprintf(buf, len, "%s from %s cause=%s sampled=%d ref=%d ret=%d mismatch=%d",
		 pt_role_name(w->in.role), pt_state_name(w->from), pt_cause_name(w->in.cause),
		 w->in.sampled, w->in.refcount, w->in.ret, w->in.owner_mismatch);
}

enum rule_invariant {
	INV_GENERATION_ONLY_ON_ADMIT,
	INV_ANOMALY_IS_RECORDED,
	INV_GAP_IS_RECORDED,
	INV_TO_IS_VALID,
};

static bool rule_invariant_holds(enum rule_invariant inv, const struct rule_walk *w)
{
	switch (inv) {
	case INV_GENERATION_ONLY_ON_ADMIT:
		return w->res.new_generation == (w->in.role == PT_ROLE_ADMIT);
	case INV_ANOMALY_IS_RECORDED:
		return !w->res.anomalies || w->res.record;
	case INV_GAP_IS_RECORDED:
		return !w->res.gap || w->res.record;
	case INV_TO_IS_VALID:
		return !w->res.record || w->res.to < PT_ST_MAX;
	}
	return false;
}

static void rule_check_invariant(struct kunit *test, enum rule_invariant inv)
{
	char first[KUNIT_PARAM_DESC_SIZE] = "";
	unsigned int idx, broken = 0;
	struct rule_walk w;

	for (idx = 0; idx < WALK_COMBOS; idx++) {
		rule_walk_apply(idx, &w);
		if (rule_invariant_holds(inv, &w))
			continue;
		if (!broken++)
			rule_walk_desc(&w, first, sizeof(first));
	}
	KUNIT_EXPECT_EQ_MSG(test, broken, 0u, "of %zu combinations; first: %s",
			    WALK_COMBOS, first);
}

static void rules_only_admission_starts_a_generation(struct kunit *test)
{
	rule_check_invariant(test, INV_GENERATION_ONLY_ON_ADMIT);
}

static void rules_anomaly_is_always_recorded(struct kunit *test)
{
	rule_check_invariant(test, INV_ANOMALY_IS_RECORDED);
}

static void rules_gap_is_always_recorded(struct kunit *test)
{
	rule_check_invariant(test, INV_GAP_IS_RECORDED);
}

static void rules_recorded_state_is_always_valid(struct kunit *test)
{
	rule_check_invariant(test, INV_TO_IS_VALID);
}

/* Stale contents of the result must not leak into the verdict. */
static void rules_result_does_not_depend_on_old_contents(struct kunit *test)
{
	struct pt_rule_input in = { .role = PT_ROLE_ASSIGN, .cause = PT_CAUSE_FRESH };
	struct pt_rule_result res;

	memset(&res, 0xa5, sizeof(res));
	pt_rule_apply(PT_ST_FREED, &in, &res);
	KUNIT_EXPECT_EQ(test, res.to, (u8)PT_ST_ASSIGNED);
	KUNIT_EXPECT_TRUE(test, res.record);
	KUNIT_EXPECT_FALSE(test, res.gap);
	KUNIT_EXPECT_FALSE(test, res.new_generation);
	KUNIT_EXPECT_EQ(test, res.anomalies, 0u);
}

static void rules_first_anomaly_of_none_is_none(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, pt_first_anomaly(0), (u8)PT_AN_NONE);
}

/* Every anomaly alone is its own first; with company, the lowest wins. */
static void rules_first_anomaly_is_lowest_raised(struct kunit *test)
{
	u32 all = GENMASK(PT_AN_MAX - 1, PT_AN_NONE + 1);
	unsigned int an;

	for (an = PT_AN_NONE + 1; an < PT_AN_MAX; an++) {
		KUNIT_EXPECT_EQ(test, pt_first_anomaly(BIT(an)), (u8)an);
		KUNIT_EXPECT_EQ(test, pt_first_anomaly(all & GENMASK(31, an)), (u8)an);
	}
	KUNIT_EXPECT_EQ(test, pt_first_anomaly(BAD(FREE_WHILE_POOLED) | BAD(ADMIT_FREED)),
			(u8)PT_AN_FREE_WHILE_POOLED);
}

struct state_class {
	u8 state;
	bool pooled;
	bool owned;
};

static const struct state_class state_classes[] = {
	{ PT_ST_UNTRACKED, false, false },
	{ PT_ST_ASSIGNED, false, true },
	{ PT_ST_MAPPED, false, true },
	{ PT_ST_POOLED_DIRTY, true, false },
	{ PT_ST_POOLED_CLEAN, true, false },
	{ PT_ST_POOLED, true, false },
	{ PT_ST_TAKEN, true, false },
	{ PT_ST_RECLAIMING, true, false },
	{ PT_ST_FREED, false, false },
	{ PT_ST_RELEASED, false, false },
	{ PT_ST_MAX, false, false },
};

static void state_class_desc(const struct state_class *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", pt_state_name(c->state));
}

KUNIT_ARRAY_PARAM(state_class, state_classes, state_class_desc);

static void rules_state_is_pool_or_allocation_owned(struct kunit *test)
{
	const struct state_class *c = test->param_value;

	KUNIT_EXPECT_EQ(test, pt_state_pooled(c->state), c->pooled);
	KUNIT_EXPECT_EQ(test, pt_state_owned(c->state), c->owned);
}

/* Names end up in debugfs and in the decoder: one per value, no holes. */
static void rules_every_enum_value_has_a_unique_name(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < PT_ROLE_MAX; i++) {
		KUNIT_EXPECT_STRNEQ(test, pt_role_name(i), "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, pt_role_name(i), pt_role_name(j));
	}
	for (i = 0; i < PT_ST_MAX; i++) {
		KUNIT_EXPECT_STRNEQ(test, pt_state_name(i), "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, pt_state_name(i), pt_state_name(j));
	}
	for (i = 0; i < PT_AN_MAX; i++) {
		KUNIT_EXPECT_STRNEQ(test, pt_anomaly_name(i), "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, pt_anomaly_name(i), pt_anomaly_name(j));
	}
	for (i = 0; i < PT_CAUSE_MAX; i++) {
		KUNIT_EXPECT_STRNEQ(test, pt_cause_name(i), "unknown");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, pt_cause_name(i), pt_cause_name(j));
	}
}

static void rules_out_of_range_names_are_unknown(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, pt_role_name(PT_ROLE_MAX), "unknown");
	KUNIT_EXPECT_STREQ(test, pt_role_name(255), "unknown");
	KUNIT_EXPECT_STREQ(test, pt_state_name(PT_ST_MAX), "unknown");
	KUNIT_EXPECT_STREQ(test, pt_anomaly_name(PT_AN_MAX), "unknown");
	KUNIT_EXPECT_STREQ(test, pt_cause_name(PT_CAUSE_MAX), "unknown");
}

/*
 * A call in flight since before attach (no outer frame) sees part of the
 * story: every anomaly it would raise becomes a gap, except a refcount of
 * 0 at insert, which is a fault whatever came before (issue 10, item 7).
 */
static void rules_unsure_context_turns_anomalies_into_gaps(struct kunit *test)
{
	static const struct { u8 from; u8 role; u8 cause; } cases[] = {
		{ PT_ST_POOLED_DIRTY, PT_ROLE_ADMIT, PT_CAUSE_NONE },
		{ PT_ST_ASSIGNED, PT_ROLE_FREE, PT_CAUSE_FOREIGN },
		{ PT_ST_POOLED_CLEAN, PT_ROLE_ASSIGN, PT_CAUSE_FRESH },
		{ PT_ST_ASSIGNED, PT_ROLE_TAKE, PT_CAUSE_CLEAN },
	};
	struct pt_rule_input in = { .sampled = true, .refcount = 1 };
	struct pt_rule_result sure, unsure;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		in.role = cases[i].role;
		in.cause = cases[i].cause;
		in.unsure = false;
		pt_rule_apply(cases[i].from, &in, &sure);
		KUNIT_EXPECT_NE_MSG(test, sure.anomalies, 0, "case %u", i);
		in.unsure = true;
		pt_rule_apply(cases[i].from, &in, &unsure);
		KUNIT_EXPECT_EQ_MSG(test, unsure.anomalies, 0, "case %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, unsure.gap, "case %u", i);
		KUNIT_EXPECT_TRUE_MSG(test, unsure.record, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, unsure.to, sure.to, "case %u", i);
	}
	in = (struct pt_rule_input){ .role = PT_ROLE_INSERT, .sampled = true,
				     .refcount = 0, .ret = -EINVAL,
				     .by_driver = true, .unsure = true };
	pt_rule_apply(PT_ST_FREED, &in, &unsure);
	KUNIT_EXPECT_EQ(test, unsure.anomalies, (u32)BIT(PT_AN_INSERT_ZERO_REF));
}

/* A walk of an allocation meets chunks it already saw assigned: no record. */
static void rules_assign_again_to_the_same_owner_is_a_repeat(struct kunit *test)
{
	struct pt_rule_input in = { .role = PT_ROLE_ASSIGN,
				    .cause = PT_CAUSE_FRESH,
				    .same_owner = true };
	struct pt_rule_result r;

	pt_rule_apply(PT_ST_ASSIGNED, &in, &r);
	KUNIT_EXPECT_FALSE(test, r.record);
	KUNIT_EXPECT_EQ(test, r.anomalies, 0u);
	in.same_owner = false;
	pt_rule_apply(PT_ST_ASSIGNED, &in, &r);
	KUNIT_EXPECT_EQ(test, r.anomalies, (u32)BIT(PT_AN_ASSIGN_WHILE_OWNED));
}

/* move_pages inlined: the list of a take is the one the chunk was on. */
static void rules_take_of_an_unseen_list_names_the_chunks_list(struct kunit *test)
{
	struct pt_rule_input in = { .role = PT_ROLE_TAKE,
				    .cause = PT_CAUSE_NONE };
	struct pt_rule_result r;

	pt_rule_apply(PT_ST_POOLED_CLEAN, &in, &r);
	KUNIT_EXPECT_EQ(test, r.cause, (u8)PT_CAUSE_CLEAN);
	pt_rule_apply(PT_ST_POOLED_DIRTY, &in, &r);
	KUNIT_EXPECT_EQ(test, r.cause, (u8)PT_CAUSE_DIRTY);
	/* Pooled without a list (never scrubbed or seen) stays unknown. */
	pt_rule_apply(PT_ST_POOLED, &in, &r);
	KUNIT_EXPECT_EQ(test, r.cause, (u8)PT_CAUSE_NONE);
	/* A list that was seen is never overridden. */
	in.cause = PT_CAUSE_DIRTY;
	pt_rule_apply(PT_ST_POOLED_CLEAN, &in, &r);
	KUNIT_EXPECT_EQ(test, r.cause, (u8)PT_CAUSE_DIRTY);
	KUNIT_EXPECT_TRUE(test, r.gap);
}

static struct kunit_case pt_rules_cases[] = {
	KUNIT_CASE(rules_take_of_an_unseen_list_names_the_chunks_list),
	KUNIT_CASE(rules_unsure_context_turns_anomalies_into_gaps),
	KUNIT_CASE(rules_assign_again_to_the_same_owner_is_a_repeat),
	KUNIT_CASE_PARAM(rules_admit_from_every_state, admit_gen_params),
	KUNIT_CASE_PARAM(rules_scrub_from_every_state, scrub_gen_params),
	KUNIT_CASE_PARAM(rules_take_from_every_state, take_gen_params),
	KUNIT_CASE_PARAM(rules_assign_from_every_state, assign_gen_params),
	KUNIT_CASE_PARAM(rules_reclaim_from_every_state, reclaim_gen_params),
	KUNIT_CASE_PARAM(rules_free_from_every_state, free_gen_params),
	KUNIT_CASE_PARAM(rules_release_from_every_state, release_gen_params),
	KUNIT_CASE_PARAM(rules_alloc_from_every_state, alloc_gen_params),
	KUNIT_CASE_PARAM(rules_insert_from_every_state, insert_gen_params),
	KUNIT_CASE_PARAM(rules_non_transition_roles_keep_state, keep_gen_params),
	KUNIT_CASE_PARAM(rules_unknown_from_state_is_an_untracked_gap, broken_from_gen_params),
	KUNIT_CASE_PARAM(rules_pool_with_cache_ring_and_own_refcount, pagepool_gen_params),
	KUNIT_CASE(rules_tables_cover_every_role_and_state),
	KUNIT_CASE(rules_only_admission_starts_a_generation),
	KUNIT_CASE(rules_anomaly_is_always_recorded),
	KUNIT_CASE(rules_gap_is_always_recorded),
	KUNIT_CASE(rules_recorded_state_is_always_valid),
	KUNIT_CASE(rules_result_does_not_depend_on_old_contents),
	KUNIT_CASE(rules_first_anomaly_of_none_is_none),
	KUNIT_CASE(rules_first_anomaly_is_lowest_raised),
	KUNIT_CASE_PARAM(rules_state_is_pool_or_allocation_owned, state_class_gen_params),
	KUNIT_CASE(rules_every_enum_value_has_a_unique_name),
	KUNIT_CASE(rules_out_of_range_names_are_unknown),
	{}
};

struct kunit_suite pt_rules_suite = {
	.name = "pagetrail_rules",
	.test_cases = pt_rules_cases,
};
