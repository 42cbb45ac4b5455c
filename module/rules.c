// SPDX-License-Identifier: GPL-2.0
/* pagetrail: transition rules of the page state machine and anomaly detection. */

#include <linux/kernel.h>
#include <linux/bits.h>
#include <pagetrail/rules.h>

#define AN(x) BIT(PT_AN_##x)

bool pt_state_pooled(u8 state)
{
	return state == PT_ST_POOLED_DIRTY || state == PT_ST_POOLED_CLEAN ||
	       state == PT_ST_POOLED || state == PT_ST_TAKEN ||
	       state == PT_ST_RECLAIMING;
}

bool pt_state_owned(u8 state)
{
	return state == PT_ST_ASSIGNED || state == PT_ST_MAPPED;
}

/*
 * A pool that takes fresh pages from the buddy allocator into its cache
 * (page_pool's slow path): the page's first admission, not a gap.
 */
static void admit_fresh(u8 from, const struct pt_rule_input *in,
			struct pt_rule_result *r)
{
	r->to = PT_ST_POOLED_CLEAN;
	r->new_generation = true;
	if (pt_state_pooled(from))
		r->anomalies |= AN(DOUBLE_ADMIT);
	else if (pt_state_owned(from))
		r->gap = true; /* its free was not seen */
	if (in->sampled && in->refcount == 0)
		r->anomalies |= AN(ADMIT_FREED);
}

static void admit(u8 from, const struct pt_rule_input *in,
		  struct pt_rule_result *r)
{
	if (in->cause == PT_CAUSE_FRESH) {
		admit_fresh(from, in, r);
		return;
	}
	r->new_generation = true;
	if (in->cause == PT_CAUSE_CACHE) {
		r->to = PT_ST_POOLED_CLEAN;
		/* Nothing takes from the cache of a pool being torn down. */
		if (in->owner_dying)
			r->anomalies |= AN(CACHE_AFTER_DESTROY);
	} else {
		r->to = PT_ST_POOLED_DIRTY;
	}
	/* A recycle names its pool: the page must be that pool's own. */
	if ((in->cause == PT_CAUSE_RING || in->cause == PT_CAUSE_CACHE) &&
	    in->owner_mismatch && pt_state_owned(from))
		r->anomalies |= AN(ADMIT_WRONG_POOL);
	if (in->sampled_pool_refs && in->pool_refs <= 0)
		r->anomalies |= AN(POOL_REF_UNDERFLOW);
	if (from == PT_ST_UNTRACKED || from == PT_ST_RELEASED)
		r->gap = true;
	else if (pt_state_pooled(from))
		r->anomalies |= AN(DOUBLE_ADMIT);
	else if (from == PT_ST_FREED)
		r->anomalies |= AN(ADMIT_FREED);

	if (in->sampled && in->refcount == 0 && from != PT_ST_FREED)
		r->anomalies |= AN(ADMIT_FREED);
	else if (in->sampled && in->refcount > 1)
		r->anomalies |= AN(ADMIT_EXTRA_REF);
}

static void scrub(u8 from, struct pt_rule_result *r)
{
	r->to = PT_ST_POOLED_CLEAN;
	if (from == PT_ST_POOLED_CLEAN)
		r->record = false; /* an old clean head, seen again */
	else if (from == PT_ST_UNTRACKED)
		r->gap = true;
	else if (from != PT_ST_POOLED_DIRTY && from != PT_ST_POOLED)
		r->anomalies |= AN(SCRUB_UNPOOLED);
}

static void take(u8 from, const struct pt_rule_input *in,
		 struct pt_rule_result *r)
{
	r->to = PT_ST_TAKEN;
	if (in->cause == PT_CAUSE_NONE && from == PT_ST_POOLED_CLEAN)
		r->cause = PT_CAUSE_CLEAN;
	else if (in->cause == PT_CAUSE_NONE && from == PT_ST_POOLED_DIRTY)
		r->cause = PT_CAUSE_DIRTY;
	switch (from) {
	case PT_ST_POOLED:
		break;
	/* cause NONE: the list it came from was not observed (inlined). */
	case PT_ST_POOLED_CLEAN:
		r->gap = in->cause != PT_CAUSE_CLEAN && in->cause != PT_CAUSE_NONE;
		break;
	case PT_ST_POOLED_DIRTY:
		/* Taken clean: the scrub that made it clean was not seen. */
		r->gap = in->cause != PT_CAUSE_DIRTY && in->cause != PT_CAUSE_NONE;
		break;
	case PT_ST_UNTRACKED:
		r->gap = true;
		break;
	default:
		r->anomalies |= AN(TAKE_UNPOOLED);
		break;
	}
	if (in->sampled && in->refcount == 0)
		r->anomalies |= AN(TAKE_UNPOOLED);
	else if (in->sampled && in->refcount > 1)
		r->anomalies |= AN(TAKE_ALIASED);
}

static void assign(u8 from, const struct pt_rule_input *in,
		   struct pt_rule_result *r)
{
	r->to = PT_ST_ASSIGNED;
	if (pt_state_owned(from) && in->same_owner) {
		/* A walk of the allocation meets a chunk already seen assigned. */
		r->to = from;
		r->record = false;
		return;
	}
	if (pt_state_owned(from)) {
		r->anomalies |= AN(ASSIGN_WHILE_OWNED);
		return;
	}
	if (in->cause == PT_CAUSE_POOL) {
		if (from == PT_ST_TAKEN)
			return;
		if (from == PT_ST_UNTRACKED || from == PT_ST_POOLED_DIRTY ||
		    from == PT_ST_POOLED_CLEAN || from == PT_ST_POOLED)
			r->gap = true; /* admission or take not seen */
		else
			r->anomalies |= AN(TAKE_UNPOOLED);
		return;
	}
	/* A fresh allocation from the buddy allocator. */
	if (from == PT_ST_RELEASED)
		r->gap = true; /* the final free was not seen */
	else if (pt_state_pooled(from))
		r->anomalies |= AN(ALLOC_WHILE_OWNED);
}

static void reclaim(u8 from, struct pt_rule_result *r)
{
	r->to = PT_ST_RECLAIMING;
	if (from == PT_ST_RECLAIMING)
		r->record = false; /* walked again by the free list */
	else if (from == PT_ST_UNTRACKED)
		r->gap = true;
	else if (from != PT_ST_POOLED_DIRTY && from != PT_ST_POOLED_CLEAN &&
		 from != PT_ST_POOLED)
		r->anomalies |= AN(RECLAIM_UNPOOLED);
}

static void free_to_buddy(u8 from, const struct pt_rule_input *in,
			  struct pt_rule_result *r)
{
	r->to = PT_ST_FREED;
	switch (from) {
	case PT_ST_FREED:
	case PT_ST_UNTRACKED:
		r->record = false;
		return;
	case PT_ST_RELEASED:
		return; /* the last outside holder let go */
	case PT_ST_RECLAIMING:
		if (in->cause == PT_CAUSE_RECLAIM)
			return;
		r->anomalies |= AN(FREE_WHILE_POOLED);
		return;
	case PT_ST_POOLED_DIRTY:
		if (in->cause == PT_CAUSE_REJECT)
			return; /* admission declined it after all */
		fallthrough;
	case PT_ST_POOLED_CLEAN:
	case PT_ST_POOLED:
		if (in->cause == PT_CAUSE_RECLAIM) {
			r->gap = true; /* removal from the pool not seen */
			return;
		}
		r->anomalies |= AN(FREE_WHILE_POOLED);
		return;
	case PT_ST_TAKEN:
		r->anomalies |= AN(FREE_WHILE_POOLED);
		return;
	case PT_ST_ASSIGNED:
	case PT_ST_MAPPED:
		if (in->cause == PT_CAUSE_DIRECT)
			return;
		if (in->cause == PT_CAUSE_REJECT) {
			r->gap = true; /* its admission was not seen */
			return;
		}
		r->anomalies |= AN(FREE_WHILE_ASSIGNED);
		return;
	}
}

/*
 * The release walk runs after the driver returned: a chunk it admitted may
 * already belong to another allocation, which keeps it.
 */
static void release(u8 from, const struct pt_rule_input *in,
		    struct pt_rule_result *r)
{
	r->to = PT_ST_RELEASED;
	/*
	 * A pool that counts what it lets go (page_pool's release count),
	 * from its hands or a holder's: a page already let go or freed makes
	 * its in-flight count lie.
	 */
	if (in->cause == PT_CAUSE_REFCNT && !pt_state_owned(from)) {
		if (pt_state_pooled(from))
			return;
		r->to = from;
		if (from == PT_ST_UNTRACKED)
			r->gap = true;
		else
			r->anomalies |= AN(RELEASE_UNHELD);
		return;
	}
	if (!pt_state_owned(from) || in->owner_mismatch) {
		r->to = from;
		r->record = false;
	}
}

static void buddy_alloc(u8 from, const struct pt_rule_input *in,
			struct pt_rule_result *r)
{
	r->to = from;
	if (from == PT_ST_RELEASED && in->cause == PT_CAUSE_FOREIGN) {
		/* Its last holder's free was not seen; someone else has it now. */
		r->to = PT_ST_FREED;
		r->gap = true;
		return;
	}
	if (from == PT_ST_FREED && in->cause == PT_CAUSE_FOREIGN) {
		/*
		 * Reused outside the driver: say so once, then forget the page,
		 * so its later lives elsewhere cost nothing and record nothing.
		 */
		r->forget = true;
		r->reused_elsewhere = true;
		return;
	}
	if (from == PT_ST_FREED || from == PT_ST_UNTRACKED ||
	    from == PT_ST_RELEASED) {
		/* The driver's own fresh allocation follows as ASSIGN. */
		r->record = false;
		return;
	}
	r->anomalies |= AN(ALLOC_WHILE_OWNED);
}

static void insert(u8 from, const struct pt_rule_input *in,
		   struct pt_rule_result *r)
{
	r->to = from;
	if (from == PT_ST_FREED && !in->by_driver &&
	    !(in->sampled && in->refcount == 0)) {
		/* Another mapper (uvm, packet rings) legitimately reusing it. */
		r->record = false;
		r->forget = true;
		return;
	}
	if (from == PT_ST_FREED)
		r->anomalies |= AN(INSERT_AFTER_FREE);
	else if (pt_state_pooled(from))
		r->anomalies |= AN(INSERT_WHILE_POOLED);
	else if (from == PT_ST_UNTRACKED || from == PT_ST_RELEASED)
		r->gap = true;
	if (in->sampled && in->refcount == 0)
		r->anomalies |= AN(INSERT_ZERO_REF);
	if (in->owner_mismatch && pt_state_owned(from))
		r->anomalies |= AN(INSERT_WRONG_OWNER);
	if (in->ret == 0 && (pt_state_owned(from) || from == PT_ST_UNTRACKED))
		r->to = PT_ST_MAPPED;
}

void pt_rule_apply(u8 from, const struct pt_rule_input *in,
		   struct pt_rule_result *out)
{
	bool unknown = from >= PT_ST_MAX;

	/* A corrupt state is treated as never observed, and said so. */
	if (unknown)
		from = PT_ST_UNTRACKED;
	*out = (struct pt_rule_result){ .to = from,
					.cause = in->cause,
					.record = true };

	switch (in->role) {
	case PT_ROLE_ADMIT:
		admit(from, in, out);
		break;
	case PT_ROLE_SCRUB:
		scrub(from, out);
		break;
	case PT_ROLE_TAKE:
		take(from, in, out);
		break;
	case PT_ROLE_ASSIGN:
		assign(from, in, out);
		break;
	case PT_ROLE_RECLAIM:
		reclaim(from, out);
		break;
	case PT_ROLE_FREE:
		free_to_buddy(from, in, out);
		break;
	case PT_ROLE_RELEASE:
		release(from, in, out);
		break;
	case PT_ROLE_ALLOC:
		buddy_alloc(from, in, out);
		break;
	case PT_ROLE_INSERT:
		insert(from, in, out);
		break;
	case PT_ROLE_UNREF:
		/* One holder of several let go: the page stays where it is. */
		if (in->sampled_pool_refs && in->pool_refs <= 0)
			out->anomalies |= AN(POOL_REF_UNDERFLOW);
		break;
	default:
		/* Not a page transition (MAP, VMA, DENY): state unchanged. */
		break;
	}
	if (unknown)
		out->gap = true;
	/* Only a refcount of 0 at insert is a fault whatever came before. */
	if (in->unsure && (out->anomalies & ~AN(INSERT_ZERO_REF))) {
		out->anomalies &= AN(INSERT_ZERO_REF);
		out->gap = true;
	}
	/* An anomaly or a gap is always worth a record, even on a repeat. */
	if (out->anomalies || out->gap)
		out->record = true;
}

u8 pt_first_anomaly(u32 anomalies)
{
	return anomalies ? __ffs(anomalies) : PT_AN_NONE;
}

#define PT_NAME(s, n, d) n,
static const char *const role_names[] = { PAGETRAIL_ROLES(PT_NAME) };
static const char *const state_names[] = { PAGETRAIL_STATES(PT_NAME) };
static const char *const anomaly_names[] = { PAGETRAIL_ANOMALIES(PT_NAME) };
static const char *const cause_names[] = { PAGETRAIL_CAUSES(PT_NAME) };
#undef PT_NAME

#define NAME_OR_UNKNOWN(tbl, i) \
	((i) < ARRAY_SIZE(tbl) && (tbl)[i] ? (tbl)[i] : "unknown")

const char *pt_role_name(u8 role)
{
	return NAME_OR_UNKNOWN(role_names, role);
}

const char *pt_state_name(u8 state)
{
	return NAME_OR_UNKNOWN(state_names, state);
}

const char *pt_anomaly_name(u8 anomaly)
{
	return NAME_OR_UNKNOWN(anomaly_names, anomaly);
}

const char *pt_cause_name(u8 cause)
{
	return NAME_OR_UNKNOWN(cause_names, cause);
}
