// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail command: the diagnosis classes of the kernel's network page_pool
 * (profile pagepool). A pool page's records carry the pool in token and its
 * serial in alloc_seq ({Q}); each class names the thread to blame from the
 * records that show it, and says what no record shows.
 */
#include <string.h>
#include "findings.h"

/* A page of a page_pool: it entered or re-entered a pool as only they do. */
static int pp_page(const struct pt_view *v, unsigned long long pfn,
		   unsigned long long seq)
{
	size_t i;

	for (i = 0; i < v->n && v->r[i]->seq <= seq; i++) {
		const struct pagetrail_record *r = v->r[i];

		if (r->role == PT_ROLE_ADMIT && r->pfn == pfn &&
		    (r->cause == PT_CAUSE_FRESH || r->cause == PT_CAUSE_CACHE ||
		     r->cause == PT_CAUSE_RING))
			return 1;
	}
	return 0;
}

/* What follows on the same page, once: its consequences, not new causes. */
static void claim_later(struct pt_analysis *an, struct pt_finding *f,
			const struct pt_view *v,
			const struct pagetrail_record *from)
{
	const struct pagetrail_record *r;
	size_t i;
	int cited = 0;

	for (i = 0; i < an->nanom; i++) {
		struct pt_anom *x = &an->anom[i];

		if (x->claimed || x->rec.seq <= from->seq ||
		    x->rec.pfn != from->pfn)
			continue;
		x->claimed = 1;
		r = view_rec(v, x->rec.seq);
		if (!cited++)
			step(f, PT_OBSERVED, r ? r : &x->rec,
			     "afterwards: {K} on {P} ({r} by {T}, {F} -> {S})");
	}
}

/* Every class ends alike: r explained, what follows cited once. */
static int conclude(struct pt_analysis *an, struct pt_finding *f,
		    const struct pt_view *v, const struct pagetrail_record *r)
{
	claim(an, r, r->seq, r->seq);
	claim_later(an, f, v, r);
	finish(f, v, NULL);
	return 1;
}

/* The take that handed the page to its holder before record r. */
static const struct pagetrail_record *
holder_take(const struct pt_view *v, const struct pagetrail_record *r)
{
	return last_before(v, PT_ROLE_ASSIGN, r->pfn, r->seq);
}

static int rule_double_recycle(struct pt_analysis *an, const struct pt_view *v,
			       const struct pagetrail_record *r)
{
	const struct pagetrail_record *first, *tk;
	struct pt_finding *f;

	if (r->role != PT_ROLE_ADMIT || !has(r, AN(DOUBLE_ADMIT)))
		return 0;
	first = last_before(v, PT_ROLE_ADMIT, r->pfn, r->seq);
	tk = holder_take(v, r);
	f = new_finding(an, "PP_DOUBLE_RECYCLE", "PP.double-recycle",
			"page recycled twice into its pool", r);
	if (tk && (!first || tk->seq < first->seq))
		step(f, PT_OBSERVED, tk,
		     "{Q} handed {P} out to {T} (refcount {R})");
	if (first)
		step(f, PT_OBSERVED, first,
		     "{T} recycled {P} into {Q} ({C}): {F} -> {S}");
	step(f, PT_OBSERVED, r,
	     "{T} recycled {P} into {Q} again ({C}) while it was {F}, no take between: {K}");
	step(f, PT_DERIVED, r,
	     "the pool now lists the page twice: two later takes hand one page to two holders, and each one's put recycles it under the other");
	step(f, PT_UNKNOWN, r,
	     "why {T} put a page it no longer held: its kernel stack is the lead");
	return conclude(an, f, v, r);
}

static int rule_foreign_free(struct pt_analysis *an, const struct pt_view *v,
			     const struct pagetrail_record *r)
{
	const struct pagetrail_record *tk, *reuse;
	struct pt_finding *f;

	if (r->role != PT_ROLE_FREE || r->cause != PT_CAUSE_FOREIGN ||
	    !has(r, AN(FREE_WHILE_ASSIGNED) | AN(FREE_WHILE_POOLED)))
		return 0;
	tk = holder_take(v, r);
	f = new_finding(an, "PP_FOREIGN_FREE", "PP.put-page-of-pool-page",
			"pool page freed to the buddy allocator behind the pool's back",
			r);
	if (tk)
		step(f, PT_OBSERVED, tk,
		     "{Q} handed {P} out to {T} (refcount {R})");
	step(f, PT_OBSERVED, r,
	     "{T} returned {P} to the buddy allocator while it was {F}, outside the pool (cause {C}): {K}");
	if (r->rflags & PT_RF_SAMPLED)
		step(f, PT_OBSERVED, r,
		     "its page flags at that free: {X} (pp: it still carried the pool's signature)");
	step(f, PT_DERIVED, r,
	     "a holder dropped the reference the pool counts on with put_page() instead of the pool's put: the pool still counts the page in flight (its destroy will wait for it), and the buddy allocator may hand it to anyone (the esp class, CVE-2024-26953)");
	reuse = first_after(v, PT_ROLE_TAKE, r->pfn, r->seq);
	if (!reuse)
		reuse = first_after(v, PT_ROLE_ADMIT, r->pfn, r->seq);
	if (reuse)
		step(f, PT_OBSERVED, reuse,
		     "then {T} {r} {P} ({C}) with refcount {R}: {K}");
	return conclude(an, f, v, r);
}

static int rule_wrong_pool(struct pt_analysis *an, const struct pt_view *v,
			   const struct pagetrail_record *r)
{
	const struct pagetrail_record *tk;
	struct pt_finding *f;

	if (r->role != PT_ROLE_ADMIT || !has(r, AN(ADMIT_WRONG_POOL)))
		return 0;
	tk = holder_take(v, r);
	f = new_finding(an, "PP_WRONG_POOL", "PP.recycle-into-another-pool",
			"page recycled into a pool that is not its own", r);
	if (tk)
		step(f, PT_OBSERVED, tk,
		     "{Q} handed {P} out to {T}: the page is {Q}'s");
	else
		step(f, PT_UNKNOWN, r,
		     "which pool handed {P} out: its take was not recorded");
	step(f, PT_OBSERVED, r,
	     "{T} recycled {P} into {Q} ({C}): {K}");
	step(f, PT_DERIVED, r,
	     "the first pool counts the page in flight for ever (its destroy stalls), the second hands out a page it never held and releases one more than it holds");
	return conclude(an, f, v, r);
}

/* The destroy of the pool record r names, before r. */
static const struct pagetrail_record *pool_destroy(const struct pt_view *v,
						   const struct pagetrail_record *r)
{
	size_t i;

	for (i = v->n; i-- > 0;)
		if (v->r[i]->seq < r->seq && v->r[i]->role == PT_ROLE_POOL &&
		    v->r[i]->cause == PT_CAUSE_DESTROY &&
		    v->r[i]->token == r->token &&
		    v->r[i]->alloc_seq == r->alloc_seq)
			return v->r[i];
	return NULL;
}

static int rule_stranded(struct pt_analysis *an, const struct pt_view *v,
			 const struct pagetrail_record *r)
{
	const struct pagetrail_record *d;
	struct pt_finding *f;

	if (r->role != PT_ROLE_ADMIT || !has(r, AN(CACHE_AFTER_DESTROY)))
		return 0;
	d = pool_destroy(v, r);
	f = new_finding(an, "PP_STRANDED", "PP.direct-recycle-after-destroy",
			"page recycled into the cache of a destroyed pool", r);
	if (d)
		step(f, PT_OBSERVED, d,
		     "{T} destroyed {Q}: {N} pages still in flight");
	else
		step(f, PT_DERIVED, r,
		     "{Q}'s teardown had begun (its destroy count was set when the put ran)");
	step(f, PT_OBSERVED, r,
	     "{T} recycled {P} straight into {Q}'s cache (allow_direct or NAPI-local): {K}");
	step(f, PT_DERIVED, r,
	     "nothing takes from a destroyed pool's cache again: the page stays counted in flight, and the pool's release retries until the kernel prints 'stalled pool shutdown'");
	return conclude(an, f, v, r);
}

static int rule_aliased_take(struct pt_analysis *an, const struct pt_view *v,
			     const struct pagetrail_record *r)
{
	const struct pagetrail_record *adm, *holder;
	struct pt_finding *f;

	if (r->role != PT_ROLE_TAKE || !has(r, AN(TAKE_ALIASED)))
		return 0;
	adm = last_before(v, PT_ROLE_ADMIT, r->pfn, r->seq);
	holder = adm ? last_before(v, PT_ROLE_ASSIGN, r->pfn, adm->seq) : NULL;
	f = new_finding(an, "PP_ALIASED_TAKE", "PP.reference-kept-on-pooled-page",
			"pool handed out a page someone else still references",
			holder ? holder : r);
	if (holder)
		step(f, PT_OBSERVED, holder, "{Q} handed {P} out to {T}");
	if (adm)
		step(f, PT_OBSERVED, adm,
		     "{T} recycled {P} into {Q} ({C}) with refcount {R}: the pool's page again");
	step(f, PT_OBSERVED, r,
	     "{Q} handed {P} out to {T} with refcount {R}, not 1: {K}");
	step(f, PT_DERIVED, holder ? holder : r,
	     "a reference was taken (get_page) on the page after it went back to the pool: its new holder shares it with whoever kept that reference");
	step(f, PT_UNKNOWN, r,
	     "who took the extra reference: get_page() is not traced; the last holder before the recycle is named");
	return conclude(an, f, v, r);
}

static int rule_release_unheld(struct pt_analysis *an, const struct pt_view *v,
			       const struct pagetrail_record *r)
{
	const struct pagetrail_record *prev;
	struct pt_finding *f;

	if (r->role != PT_ROLE_RELEASE || !has(r, AN(RELEASE_UNHELD)))
		return 0;
	prev = last_before(v, 0, r->pfn, r->seq);
	f = new_finding(an, "PP_RELEASE_UNHELD", "PP.release-of-page-let-go",
			"pool let go of a page it no longer held", r);
	if (prev)
		step(f, PT_OBSERVED, prev, "before: {r} ({C}) of {P} by {T}, -> {S}");
	step(f, PT_OBSERVED, r,
	     "{T} made {Q} let go of {P} while it was {F}: {K}");
	step(f, PT_DERIVED, r,
	     "the pool's release count now runs ahead of its holds: its in-flight count goes negative at destroy (the kernel's 'Negative inflight' warning)");
	return conclude(an, f, v, r);
}

/*
 * Seen at the next fragment hand-out: the puts themselves are inlined into
 * their callers, so the page's holder is the lead, not a proven culprit.
 */
static int frag_over_release(struct pt_analysis *an, const struct pt_view *v,
			     const struct pagetrail_record *r)
{
	const struct pagetrail_record *holder = holder_take(v, r);
	struct pt_finding *f;

	f = new_finding(an, "PP_OVER_RELEASE", "PP.fragment-over-release",
			"more fragment references dropped than were handed out",
			holder ? holder : r);
	if (holder)
		step(f, PT_OBSERVED, holder,
		     "{Q} handed {P} out to {T} as its fragment page");
	step(f, PT_OBSERVED, r,
	     "at {T}'s next fragment hand-out {P} had {N} references left for the drain: more fragments put back than {Q} handed out: {K}");
	step(f, PT_DERIVED, r,
	     "the drain takes the count below zero (the pool's WARN), the page is never recycled nor released: it stays in flight and the pool's destroy stalls");
	step(f, PT_UNKNOWN, r,
	     "which put was one too many: a fragment put that is not the last is inlined into its caller, unseen; the thread the page was handed to is named");
	return conclude(an, f, v, r);
}

static int rule_over_release(struct pt_analysis *an, const struct pt_view *v,
			     const struct pagetrail_record *r)
{
	struct pt_finding *f;

	if (!has(r, AN(POOL_REF_UNDERFLOW)))
		return 0;
	if (r->cause == PT_CAUSE_FRAG)
		return frag_over_release(an, v, r);
	f = new_finding(an, "PP_OVER_RELEASE", "PP.fragment-over-release",
			"more fragment references dropped than were handed out",
			r);
	step(f, PT_OBSERVED, r,
	     "{T} dropped a fragment reference of {P} ({r}) when {Q} counted {N}: {K}");
	step(f, PT_DERIVED, r,
	     "a fragment was released twice, or by a holder that never had it");
	return conclude(an, f, v, r);
}

int pt_rule_pagepool(struct pt_analysis *an, const struct pt_view *v,
		     const struct pagetrail_record *r)
{
	if (!pp_page(v, r->pfn, r->seq))
		return 0;
	return rule_double_recycle(an, v, r) || rule_wrong_pool(an, v, r) ||
	       rule_stranded(an, v, r) || rule_over_release(an, v, r) ||
	       rule_foreign_free(an, v, r) || rule_aliased_take(an, v, r) ||
	       rule_release_unheld(an, v, r);
}
