// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail command: the diagnosis rules. Each rule starts from one
 * anomalous record, looks for the records a root cause requires, and names
 * the class only when they are all there; what remains is "undetermined",
 * with the list of what was not observed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "findings.h"

int has(const struct pagetrail_record *r, unsigned int bits)
{
	return (pt_record_kinds(r) & bits) != 0;
}

int chunk_has(const struct pagetrail_record *chunk,
		     unsigned long long pfn)
{
	unsigned int order = chunk->order > 20 ? 20 : chunk->order;

	return pfn >= chunk->pfn && pfn - chunk->pfn < (1ull << order);
}

/* --- collecting anomalies ---------------------------------------------- */

static int by_anom_seq(const void *a, const void *b)
{
	const struct pt_anom *x = a, *y = b;

	return x->rec.seq < y->rec.seq ? -1 : x->rec.seq > y->rec.seq;
}

static struct pt_anom *find_anom(struct pt_analysis *a, unsigned long long seq)
{
	size_t i;

	for (i = 0; i < a->nanom; i++)
		if (a->anom[i].rec.seq == seq)
			return &a->anom[i];
	return NULL;
}

/* Split debugfs "anomalies" into blocks, one per "anomaly=" line. */
static size_t count_blocks(const char *t)
{
	size_t n = 0;
	const char *p;

	for (p = t; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, "anomaly=", 8);
	return n;
}

static void add_file_anomalies(struct pt_analysis *a, const char *t)
{
	const char *p = t, *end;
	struct pt_anom *x, tmp;

	while ((p = strstr(p, "anomaly="))) {
		if (p != t && p[-1] != '\n') {
			p += 8;
			continue;
		}
		end = strstr(p + 8, "\nanomaly=");
		end = end ? end + 1 : p + strlen(p);
		memset(&tmp, 0, sizeof(tmp));
		/* "anomaly=N" numbers the entry; the record's fields follow it. */
		if (pt_record_from_kv(p + strcspn(p, " \n"), &tmp.rec) > 0) {
			x = find_anom(a, tmp.rec.seq);
			if (!x) {
				x = &a->anom[a->nanom++];
				*x = tmp;
			}
			x->block = p;
			x->block_len = (size_t)(end - p);
		}
		p = end;
	}
}

static int collect(struct pt_analysis *a, const struct pt_src *s)
{
	const char *t = pt_src_text(s, "anomalies");
	size_t i, max = count_blocks(t);

	for (i = 0; i < s->nrec; i++)
		max += has(&s->rec[i], ~0u & ~1u);
	a->anom = calloc(max + 1, sizeof(*a->anom));
	if (!a->anom)
		return -1;
	for (i = 0; i < s->nrec; i++) {
		if (!has(&s->rec[i], ~0u & ~1u))
			continue;
		a->anom[a->nanom].rec = s->rec[i];
		a->anom[a->nanom++].in_events = 1;
	}
	if (t)
		add_file_anomalies(a, t);
	qsort(a->anom, a->nanom, sizeof(*a->anom), by_anom_seq);
	return 0;
}

static int by_ptr_seq(const void *a, const void *b)
{
	const struct pagetrail_record *x =
		*(const struct pagetrail_record *const *)a;
	const struct pagetrail_record *y =
		*(const struct pagetrail_record *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int build_view(struct pt_view *v, const struct pt_src *s,
		      struct pt_analysis *a)
{
	size_t i;

	v->r = calloc(s->nrec + a->nanom + 1, sizeof(*v->r));
	if (!v->r)
		return -1;
	v->n = 0;
	for (i = 0; i < s->nrec; i++)
		v->r[v->n++] = &s->rec[i];
	for (i = 0; i < a->nanom; i++)
		if (!a->anom[i].in_events)
			v->r[v->n++] = &a->anom[i].rec;
	qsort(v->r, v->n, sizeof(*v->r), by_ptr_seq);
	return 0;
}

/* The record in the view with this seq (events first: stable pointers). */
const struct pagetrail_record *view_rec(const struct pt_view *v,
					unsigned long long seq)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->r[mid]->seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->n && v->r[lo]->seq == seq ? v->r[lo] : NULL;
}

/* --- finding helpers --------------------------------------------------- */

struct pt_finding *new_finding(struct pt_analysis *a, const char *klass,
			       const char *rule, const char *title,
			       const struct pagetrail_record *culprit)
{
	struct pt_finding *f = &a->find[a->nfind++];

	memset(f, 0, sizeof(*f));
	f->klass = klass;
	f->rule = rule;
	f->title = title;
	f->pfn = culprit->pfn;
	f->culprit = culprit;
	return f;
}

void step(struct pt_finding *f, enum pt_label l,
	  const struct pagetrail_record *r, const char *what)
{
	if (f->nstep >= PT_MAX_STEPS)
		return;
	f->step[f->nstep].label = l;
	f->step[f->nstep].r = r;
	snprintf(f->step[f->nstep].what, sizeof(f->step[0].what), "%s", what);
	f->nstep++;
}

/* Last record of role covering pfn before seq (0: any role). */
const struct pagetrail_record *last_before(const struct pt_view *v, int role,
					   unsigned long long pfn,
					   unsigned long long seq)
{
	size_t i;

	for (i = v->n; i-- > 0;)
		if (v->r[i]->seq < seq && (!role || v->r[i]->role == role) &&
		    pt_record_covers(v->r[i], pfn))
			return v->r[i];
	return NULL;
}

const struct pagetrail_record *first_after(const struct pt_view *v, int role,
					   unsigned long long pfn,
					   unsigned long long seq)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->r[i]->seq > seq && v->r[i]->role == role &&
		    pt_record_covers(v->r[i], pfn))
			return v->r[i];
	return NULL;
}

/* The mmap that failed because of this insert: same thread, errno passed up. */
static const struct pagetrail_record *
failed_map(const struct pt_view *v, const struct pagetrail_record *ins)
{
	size_t i;

	if (!ins || ins->ret >= 0)
		return NULL;
	for (i = 0; i < v->n; i++) {
		const struct pagetrail_record *m = v->r[i];

		if (m->seq > ins->seq && m->role == PT_ROLE_MAP &&
		    m->pid == ins->pid && m->ret < 0 &&
		    m->inner_ret == ins->ret)
			return m;
	}
	return NULL;
}

/* Mark the anomalies on the chunk from seq a to b as explained. */
void claim(struct pt_analysis *an, const struct pagetrail_record *chunk,
	   unsigned long long a, unsigned long long b)
{
	size_t i;

	for (i = 0; i < an->nanom; i++) {
		const struct pagetrail_record *r = &an->anom[i].rec;

		if (r->seq >= a && r->seq <= b &&
		    (chunk_has(chunk, r->pfn) || r->pfn == chunk->pfn))
			an->anom[i].claimed = 1;
	}
}

void finish(struct pt_finding *f, const struct pt_view *v,
	    const struct pagetrail_record *ins)
{
	f->insert = ins;
	f->map = failed_map(v, ins);
	if (f->map)
		step(f, PT_OBSERVED, f->map,
		     "nvidia_mmap on {T} returned {E} because the insert failed: the chain ends in mmap(2) = EAGAIN");
}

/* --- the rules --------------------------------------------------------- */

/*
 * After a foreign put the buddy allocator owns a page the driver still
 * lists: whoever gets it next is handed an owned page, and frees of it
 * follow. Those are this chain's consequences, cited once, not new causes.
 */
static void claim_after_z8(struct pt_analysis *an, struct pt_finding *f,
			   const struct pt_view *v,
			   const struct pagetrail_record *fr)
{
	const unsigned int later = AN(ALLOC_WHILE_OWNED) | AN(FREE_WHILE_ASSIGNED) |
				   AN(FREE_WHILE_POOLED) | AN(INSERT_AFTER_FREE);
	const struct pagetrail_record *r;
	size_t i;
	int cited = 0;

	for (i = 0; i < an->nanom; i++) {
		struct pt_anom *x = &an->anom[i];

		if (x->claimed || x->rec.seq <= fr->seq ||
		    !chunk_has(fr, x->rec.pfn) ||
		    (pt_record_kinds(&x->rec) & ~later))
			continue;
		x->claimed = 1;
		r = view_rec(v, x->rec.seq);
		if (!cited++)
			step(f, PT_OBSERVED, r ? r : &x->rec,
			     "afterwards {T} got {P} from the kernel while the driver still listed it: {K} ({r}, {F} -> {S})");
	}
}

/*
 * Z8.foreign-put-on-pooled-page: a buddy free of a page the pool lists, on
 * a thread outside any driver path (cause foreign), then the pool hands the
 * page out again and it is inserted with refcount 0.
 */
static int rule_z8(struct pt_analysis *an, const struct pt_view *v,
		   const struct pagetrail_record *fr)
{
	const struct pagetrail_record *adm, *scr, *tk, *ins = NULL;
	struct pt_finding *f;
	size_t i;

	if (fr->role != PT_ROLE_FREE || !has(fr, AN(FREE_WHILE_POOLED)) ||
	    fr->cause != PT_CAUSE_FOREIGN)
		return 0;
	adm = last_before(v, PT_ROLE_ADMIT, fr->pfn, fr->seq);
	scr = last_before(v, PT_ROLE_SCRUB, fr->pfn, fr->seq);
	tk = first_after(v, PT_ROLE_TAKE, fr->pfn, fr->seq);
	for (i = 0; tk && i < v->n; i++) {
		const struct pagetrail_record *r = v->r[i];

		if (r->seq > tk->seq && r->role == PT_ROLE_INSERT &&
		    chunk_has(fr, r->pfn) && (r->rflags & PT_RF_SAMPLED) &&
		    r->refcount == 0) {
			ins = r;
			break;
		}
	}
	f = new_finding(an, "Z8", "Z8.foreign-put-on-pooled-page",
			"foreign put on a pooled page", fr);
	if (adm)
		step(f, PT_OBSERVED, adm,
		     "{P} admitted to the pool (generation {G}) by {T}, from {W}");
	if (scr && (!adm || scr->seq > adm->seq))
		step(f, PT_OBSERVED, scr, "scrubbed {F} -> {S} by {T}");
	step(f, PT_OBSERVED, fr,
	     "{T} returned {P} to the buddy allocator while it was {F}, outside any driver path (cause {C}): {K}");
	if (tk)
		step(f, PT_OBSERVED, tk,
		     "the pool handed {P} out again (generation {G}) to {A} on {T} with refcount {R}: {K}");
	else
		step(f, PT_UNKNOWN, fr,
		     "no later take of {P} was recorded: not reused yet, or not seen");
	if (ins)
		step(f, PT_OBSERVED, ins,
		     "vm_insert_page({P}) for {A} on {T} saw refcount {R} and returned {E}: {K}");
	step(f, PT_DERIVED, fr,
	     "a thread outside the driver dropped the reference the pool held; the pool kept listing the page and reused it: a lifetime bug outside the pool, not a pool race (Z8)");
	step(f, PT_UNKNOWN, fr,
	     "why {T} held a reference to drop: no record shows it took one (its stack is the lead)");
	claim(an, fr, fr->seq, ins ? ins->seq : (tk ? tk->seq : fr->seq));
	claim_after_z8(an, f, v, fr);
	finish(f, v, ins);
	return 1;
}

/*
 * Z1.noncompound-tail-at-insert: refcount 0 at insert on a page that is
 * neither head, tail nor compound, inside a multi-page chunk, not its
 * first page: a block allocated without __GFP_COMP mapped page by page.
 */
static int rule_z1(struct pt_analysis *an, const struct pt_view *v,
		   const struct pagetrail_record *ins)
{
	const struct pagetrail_record *asg = NULL, *hd = NULL;
	struct pt_finding *f;
	size_t i;

	if (ins->role != PT_ROLE_INSERT || !has(ins, AN(INSERT_ZERO_REF)) ||
	    !(ins->rflags & PT_RF_SAMPLED) || ins->refcount != 0 ||
	    (ins->page_flags & (PT_PF_HEAD | PT_PF_TAIL | PT_PF_COMPOUND)) ||
	    ins->order == 0 || ins->index == 0)
		return 0;
	for (i = 0; i < v->n && !asg; i++)
		if (v->r[i]->role == PT_ROLE_ASSIGN &&
		    v->r[i]->alloc_seq == ins->alloc_seq &&
		    v->r[i]->seq < ins->seq && chunk_has(v->r[i], ins->pfn))
			asg = v->r[i];
	if (asg)
		for (i = 0; i < v->n && !hd; i++)
			if (v->r[i]->role == PT_ROLE_INSERT &&
			    v->r[i]->pfn == asg->pfn &&
			    v->r[i]->alloc_seq == ins->alloc_seq &&
			    v->r[i]->seq < ins->seq)
				hd = v->r[i];
	f = new_finding(an, "Z1", "Z1.noncompound-tail-at-insert",
			"non-compound tail page at insert", asg ? asg : ins);
	f->pfn = ins->pfn;
	if (asg)
		step(f, PT_OBSERVED, asg,
		     "{A} got an order-{O} block at {P} on {T} (cause {C})");
	if (hd)
		step(f, PT_OBSERVED, hd,
		     "page {I} of the block ({P}) inserted with refcount {R}: returned {E}");
	step(f, PT_OBSERVED, ins,
	     "vm_insert_page({P}), page {I} of {A} on {T}: refcount {R}, page flags {X}, returned {E}: {K}");
	step(f, PT_DERIVED, ins,
	     "pages after the first of a block allocated without __GFP_COMP have refcount 0 and vm_insert_page refuses them: the driver mapped a non-compound block page by page (Z1)");
	claim(an, ins, ins->seq, ins->seq);
	finish(f, v, ins);
	return 1;
}

/*
 * On a driver whose mmap context holds a usage_count reference (595.71.05
 * and later, 610.x) an allocation cannot be freed under a live context:
 * the same records are not Z2. Another owner's free (cause foreign) is
 * what they show, or nothing is, and the finding says what is missing.
 */
static void z2_ruled_out(struct pt_analysis *an, const struct pt_view *v,
			 const struct pagetrail_record *ins,
			 const struct pagetrail_record *fr, int pooled)
{
	int foreign = fr && fr->cause == PT_CAUSE_FOREIGN;
	struct pt_finding *f;
	char why[200];

	f = new_finding(
		an, foreign ? "FOREIGN" : "UNDETERMINED",
		foreign ? "FOREIGN.free-then-insert" : "Z2-ruled-out",
		foreign ? "another owner freed the page, then the driver mapped it" :
			  (pooled ? "insert of a pooled page, cause not shown (Z2 ruled out)" :
				    "insert after free, cause not shown (Z2 ruled out)"),
		foreign ? fr : ins);
	if (fr)
		step(f, PT_OBSERVED, fr,
		     "{P} returned to the buddy allocator by {T} (cause {C}), {F} -> {S}");
	step(f, PT_OBSERVED, ins,
	     pooled ? "vm_insert_page({P}) on {T} for {A} while the pool listed it ({F}): returned {E}: {K}" :
		      "vm_insert_page({P}) on {T} for {A} after the free: refcount {R}, returned {E}: {K}");
	snprintf(why, sizeof(why),
		 "driver %s (%s): its mmap context holds a usage_count reference, so an allocation cannot be freed under a live context: not a stale mapping context (Z2 ruled out)",
		 an->release.text, an->release.from);
	step(f, PT_DERIVED, NULL, why);
	if (foreign)
		step(f, PT_DERIVED, fr,
		     "{T} freed {P} outside every driver path while it still belonged to the driver: the page had another owner, who let go of it");
	else if (fr)
		step(f, PT_UNKNOWN, fr,
		     "no record shows why the driver's own free of {P} (cause {C}) came before this mapping");
	else
		step(f, PT_UNKNOWN, ins,
		     "no record shows how {P} left its allocation");
	claim(an, ins, fr ? fr->seq : ins->seq, ins->seq);
	finish(f, v, ins);
}

/*
 * Z2.insert-after-free: the insert hits a page pagetrail saw go back to
 * the buddy allocator (and perhaps handed to someone else since); the
 * mapping used a context whose allocation was freed.
 * Z2.insert-while-pooled: the same with the page still pooled.
 * Only on releases whose context holds no reference (see z2_ruled_out).
 */
static int rule_z2(struct pt_analysis *an, const struct pt_view *v,
		   const struct pagetrail_record *ins)
{
	const struct pagetrail_record *fr, *rc = NULL, *adm, *reuse = NULL;
	int pooled = has(ins, AN(INSERT_WHILE_POOLED));
	struct pt_finding *f;

	if (ins->role != PT_ROLE_INSERT ||
	    !(has(ins, AN(INSERT_AFTER_FREE)) || pooled))
		return 0;
	fr = pooled ? NULL : last_before(v, PT_ROLE_FREE, ins->pfn, ins->seq);
	if (an->ctx_ref == 1) {
		z2_ruled_out(an, v, ins, fr, pooled);
		return 1;
	}
	if (fr && fr->cause == PT_CAUSE_RECLAIM)
		rc = last_before(v, PT_ROLE_RECLAIM, ins->pfn, fr->seq);
	if (fr) {
		reuse = last_before(v, PT_ROLE_ALLOC, ins->pfn, ins->seq);
		if (reuse &&
		    (reuse->seq < fr->seq || reuse->cause != PT_CAUSE_FOREIGN))
			reuse = NULL;
	}
	adm = pooled ? last_before(v, PT_ROLE_ADMIT, ins->pfn, ins->seq) : NULL;
	f = new_finding(
		an, "Z2",
		pooled ? "Z2.insert-while-pooled" : "Z2.insert-after-free",
		pooled ? "stale mapping context: insert of a pooled page" :
			 "stale mapping context: insert after free",
		ins);
	if (rc)
		step(f, PT_OBSERVED, rc,
		     "{T} reclaimed {P} from the pool (cause {C})");
	if (fr)
		step(f, PT_OBSERVED, fr,
		     "{P} returned to the buddy allocator by {T} (cause {C}), {F} -> {S}");
	if (reuse)
		step(f, PT_OBSERVED, reuse,
		     "{P} allocated again outside the driver, by {T}: the page belongs to someone else now");
	if (adm)
		step(f, PT_OBSERVED, adm,
		     "{P} admitted to the pool by {T} (generation {G}), from {W}");
	if (!fr && !adm)
		step(f, PT_UNKNOWN, ins,
		     "no record shows how {P} left its allocation");
	step(f, PT_OBSERVED, ins,
	     pooled ?
		     "vm_insert_page({P}) on {T} for {A} while the pool listed it ({F}): returned {E}, silent aliasing: {K}" :
		     "vm_insert_page({P}) on {T} for {A} after the free: refcount {R}, page flags {X}, returned {E}: {K}");
	step(f, PT_DERIVED, ins,
	     "the mapping went through a context whose allocation had already been freed: stale mapping context (Z2)");
	if (an->ctx_ref < 0) {
		step(f, PT_UNKNOWN, NULL,
		     "the driver's release is not in this source: from 595.71.05 (and in 610.x) the mmap context holds a reference, and there this would not be Z2");
	} else {
		char why[200];

		snprintf(why, sizeof(why),
			 "driver %s (%s) predates 595.71.05: its mmap context holds no reference on the allocation",
			 an->release.text, an->release.from);
		step(f, PT_DERIVED, NULL, why);
	}
	claim(an, ins, fr ? fr->seq : ins->seq, ins->seq);
	finish(f, v, ins);
	return 1;
}

/*
 * While the pin lives, every later admission of the page is pinned again
 * and every take aliases it: the same chain, cited once more, not new ones.
 */
static void claim_pin_repeats(struct pt_analysis *an, struct pt_finding *f,
			      const struct pt_view *v,
			      const struct pagetrail_record *adm,
			      unsigned long long after)
{
	size_t i;
	int cited = 0;

	for (i = 0; i < an->nanom; i++) {
		struct pt_anom *x = &an->anom[i];

		if (x->claimed || x->rec.seq <= after ||
		    !chunk_has(adm, x->rec.pfn) ||
		    (pt_record_kinds(&x->rec) &
		     ~(AN(ADMIT_EXTRA_REF) | AN(TAKE_ALIASED))))
			continue;
		x->claimed = 1;
		if (!cited++)
			step(f, PT_OBSERVED,
			     view_rec(v, x->rec.seq) ? view_rec(v, x->rec.seq) :
						       &x->rec,
			     "the pin still holds: {K} again when {T} did {r} ({F} -> {S}, refcount {R})");
	}
}

/*
 * PIN.pinned-page-second-owner: admitted with a reference beyond the
 * pool's own, then taken by another allocation while that reference lives.
 */
static int rule_pin(struct pt_analysis *an, const struct pt_view *v,
		    const struct pagetrail_record *adm)
{
	const struct pagetrail_record *tk = NULL;
	struct pt_finding *f;
	size_t i;

	if (adm->role != PT_ROLE_ADMIT || !has(adm, AN(ADMIT_EXTRA_REF)))
		return 0;
	for (i = 0; i < v->n && !tk; i++)
		if (v->r[i]->seq > adm->seq && v->r[i]->role == PT_ROLE_TAKE &&
		    has(v->r[i], AN(TAKE_ALIASED)) &&
		    chunk_has(adm, v->r[i]->pfn))
			tk = v->r[i];
	if (!tk)
		return 0;
	f = new_finding(an, "PIN", "PIN.pinned-page-second-owner",
			"pinned page admitted and handed to a second owner",
			adm);
	step(f, PT_OBSERVED, adm,
	     "{P} admitted to the pool from {W} by {T} with refcount {R}, one more than the pool's own: {K}");
	step(f, PT_OBSERVED, tk,
	     "{A} took {P} on {T} while its refcount was {R}: {K}; {a} still holds it");
	step(f, PT_DERIVED, tk,
	     "a page with an extra (pinned) reference entered the pool and was handed to a second owner: two allocations share it, nothing fails");
	step(f, PT_UNKNOWN, adm,
	     "who holds the extra reference: no record shows the pin being taken");
	claim(an, adm, adm->seq, tk->seq);
	claim_pin_repeats(an, f, v, adm, tk->seq);
	finish(f, v, NULL);
	return 1;
}

/* Whatever no rule explained: one finding per page, saying what is missing. */
static void undetermined(struct pt_analysis *an, const struct pt_view *v,
			 struct pt_anom *x)
{
	const struct pagetrail_record *r = view_rec(v, x->rec.seq),
				      *first = NULL;
	struct pt_finding *f;
	size_t i;

	if (!r)
		r = &x->rec;
	f = new_finding(an, "UNDETERMINED", "none-matched", "no rule matched",
			r);
	for (i = 0; i < an->nanom; i++) {
		struct pt_anom *y = &an->anom[i];

		if (y->claimed || y->rec.pfn != r->pfn)
			continue;
		y->claimed = 1;
		step(f, PT_OBSERVED,
		     view_rec(v, y->rec.seq) ? view_rec(v, y->rec.seq) :
					       &y->rec,
		     "{K} on {P}: {r} ({C}) {F} -> {S} by {T}");
		if (!y->in_events)
			step(f, PT_UNKNOWN, &y->rec,
			     "this record is missing from the events read: only the anomalies file kept it, its history is partial");
	}
	for (i = 0; i < v->n; i++) {
		if (!pt_record_covers(v->r[i], r->pfn))
			continue;
		if (!first)
			first = v->r[i];
		if (v->r[i]->rflags & PT_RF_GAP)
			step(f, PT_UNKNOWN, v->r[i],
			     "the transition before this {r} of {P} ({F} -> {S}) was not observed (gap)");
	}
	if (first && first->role != PT_ROLE_ASSIGN &&
	    first->role != PT_ROLE_ADMIT)
		step(f, PT_UNKNOWN, first,
		     "no record shows how {P} entered the driver: its first record is a {r} ({C}) by {T}");
	for (i = 0; i < (size_t)an->cov.nreasons; i++)
		step(f, PT_UNKNOWN, NULL, an->cov.reasons[i]);
	finish(f, v, r->role == PT_ROLE_INSERT ? r : NULL);
}

static void lone_maps(struct pt_analysis *an, const struct pt_view *v)
{
	size_t i, j;

	an->lone_map = calloc(v->n + 1, sizeof(*an->lone_map));
	for (i = 0; an->lone_map && i < v->n; i++) {
		int known = 0;

		if (v->r[i]->role != PT_ROLE_MAP || v->r[i]->ret >= 0)
			continue;
		for (j = 0; j < an->nfind; j++)
			known |= an->find[j].map == v->r[i];
		if (!known)
			an->lone_map[an->nlone_map++] = v->r[i];
	}
}

int pt_analyze(struct pt_analysis *a, const struct pt_src *s)
{
	const struct pagetrail_record *r;
	struct pt_view v;
	size_t i;

	memset(a, 0, sizeof(*a));
	pt_cov_load(&a->cov, s);
	pt_release_of_src(s, &a->release);
	a->ctx_ref = pt_release_ctx_ref(&a->release);
	if (collect(a, s) || build_view(&v, s, a)) {
		pt_analysis_free(a);
		return -1;
	}
	a->find = calloc(a->nanom + 1, sizeof(*a->find));
	if (!a->find) {
		free(v.r);
		pt_analysis_free(a);
		return -1;
	}
	/* A page pool's pages: their own classes, before the NVIDIA ones. */
	for (i = 0; i < a->nanom; i++)
		if (!a->anom[i].claimed &&
		    (r = view_rec(&v, a->anom[i].rec.seq)))
			pt_rule_pagepool(a, &v, r);
	/* Z8 first: its chain contains the zero-refcount insert that Z1 would also see. */
	for (i = 0; i < a->nanom; i++)
		if (!a->anom[i].claimed &&
		    (r = view_rec(&v, a->anom[i].rec.seq)))
			rule_z8(a, &v, r);
	for (i = 0; i < a->nanom; i++)
		if (!a->anom[i].claimed &&
		    (r = view_rec(&v, a->anom[i].rec.seq)))
			rule_pin(a, &v, r);
	for (i = 0; i < a->nanom; i++)
		if (!a->anom[i].claimed &&
		    (r = view_rec(&v, a->anom[i].rec.seq)) &&
		    !rule_z1(a, &v, r))
			rule_z2(a, &v, r);
	for (i = 0; i < a->nanom; i++)
		if (!a->anom[i].claimed)
			undetermined(a, &v, &a->anom[i]);
	lone_maps(a, &v);
	free(v.r);
	return 0;
}

void pt_analysis_free(struct pt_analysis *a)
{
	free(a->anom);
	free(a->find);
	free(a->lone_map);
	memset(a, 0, sizeof(*a));
}
