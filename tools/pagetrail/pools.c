// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail command: the page_pool report no other tool gives. At each
 * destroy of a pool, and at each deferred retry that still finds pages in
 * flight, which pages the records show in a holder's hands, who took each
 * one, and what last happened to it: the missing half of "page_pool_release_retry()
 * stalled pool shutdown: id N, K inflight".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pools.h"

/* The records come from a page pool (profile pagepool). */
int pt_pools_in(const struct pt_src *s)
{
	size_t i;

	for (i = 0; i < s->nrec; i++)
		if (s->rec[i].role == PT_ROLE_POOL)
			return 1;
	return 0;
}

static int same_pool(const struct pagetrail_record *a,
		     const struct pagetrail_record *b)
{
	return a->token == b->token && a->alloc_seq == b->alloc_seq;
}

/*
 * Pages of pool p that records before seq leave in a holder's hands: the
 * last record of the page, for that pool, left it assigned.
 */
static size_t held_at(const struct pt_src *s, const struct pagetrail_record *p,
		      const struct pagetrail_record **last, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < s->nrec && s->rec[i].seq < p->seq; i++) {
		const struct pagetrail_record *r = &s->rec[i];

		if (r->role == PT_ROLE_POOL || !r->pfn)
			continue;
		for (j = 0; j < n; j++)
			if (last[j]->pfn == r->pfn)
				break;
		if (j == n) {
			if (!same_pool(r, p) || n == max)
				continue;
			n++;
		}
		last[j] = r;
	}
	/* keep those still held, and only by this pool */
	for (i = j = 0; i < n; i++)
		if (same_pool(last[i], p) &&
		    (last[i]->to_state == PT_ST_ASSIGNED ||
		     last[i]->to_state == PT_ST_MAPPED))
			last[j++] = last[i];
	return j;
}

/* The take that gave the page to its holder (its last ASSIGN before seq). */
static const struct pagetrail_record *taken_by(const struct pt_src *s,
					       unsigned long long pfn,
					       unsigned long long seq)
{
	const struct pagetrail_record *t = NULL;
	size_t i;

	for (i = 0; i < s->nrec && s->rec[i].seq < seq; i++)
		if (s->rec[i].role == PT_ROLE_ASSIGN && s->rec[i].pfn == pfn)
			t = &s->rec[i];
	return t;
}

/* Destroys, and retries that still wait: the attempts worth a report. */
static int reported(const struct pagetrail_record *r)
{
	return r->role == PT_ROLE_POOL &&
	       (r->cause == PT_CAUSE_DESTROY ||
		(r->cause == PT_CAUSE_RETRY && (int)r->aux != 0));
}

/*
 * Each reported attempt with the pages the records show held at it, and
 * for each page the take that gave it to its holder (NULL if not seen).
 */
typedef void (*pt_pool_visit)(const struct pagetrail_record *p,
			      const struct pagetrail_record **last,
			      const struct pagetrail_record **taken, size_t n,
			      void *ctx);

static void pools_walk(const struct pt_src *s, pt_pool_visit visit, void *ctx)
{
	const struct pagetrail_record **last, **taken;
	size_t i, k, n;

	last = calloc(s->nrec + 1, sizeof(*last));
	taken = calloc(s->nrec + 1, sizeof(*taken));
	if (!last || !taken)
		goto out;
	for (i = 0; i < s->nrec; i++) {
		const struct pagetrail_record *p = &s->rec[i];

		if (!reported(p))
			continue;
		n = held_at(s, p, last, s->nrec);
		for (k = 0; k < n; k++)
			taken[k] = taken_by(s, last[k]->pfn, p->seq);
		visit(p, last, taken, n, ctx);
	}
out:
	free(last);
	free(taken);
}

static void pool_print(const struct pagetrail_record *p,
		       const struct pagetrail_record **last,
		       const struct pagetrail_record **taken, size_t n,
		       void *ctx)
{
	FILE *out = ctx;
	size_t k;

	fprintf(out,
		"pool #%u %s at t=%.6f by %.16s/%u: hold=%u release=%d in flight=%d (the kernel's count); the records show %zu page%s held\n",
		p->alloc_seq, pt_cause_name(p->cause), p->ts_ns / 1e9, p->comm,
		p->pid, p->index, p->inner_ret, (int)p->aux, n,
		n == 1 ? "" : "s");
	for (k = 0; k < n; k++) {
		const struct pagetrail_record *t = taken[k];

		fprintf(out, "  pfn 0x%llx", last[k]->pfn);
		if (t)
			fprintf(out, " taken by %.16s/%u at t=%.6f (seq %llu)",
				t->comm, t->pid, t->ts_ns / 1e9,
				(unsigned long long)t->seq);
		fprintf(out, "; last: %s (%s) by %.16s/%u at t=%.6f, refcount %d\n",
			pt_role_name(last[k]->role),
			pt_cause_name(last[k]->cause), last[k]->comm,
			last[k]->pid, last[k]->ts_ns / 1e9, last[k]->refcount);
	}
	if ((int)p->aux > 0 && (size_t)p->aux > n)
		fprintf(out,
			"  %zu in flight the records do not show (taken before pagetrail attached, or records lost)\n",
			(size_t)p->aux - n);
}

void pt_pools_print(const struct pt_src *s, FILE *out)
{
	pools_walk(s, pool_print, out);
}

static struct json_object *holder_json(const struct pagetrail_record *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "seq", json_object_new_uint64(r->seq));
	json_object_object_add(o, "ts_ns", json_object_new_uint64(r->ts_ns));
	json_object_object_add(o, "pid", json_object_new_int64(r->pid));
	json_object_object_add(o, "comm", json_object_new_string_len(r->comm, strnlen(r->comm, sizeof(r->comm))));
	json_object_object_add(o, "role",
			       json_object_new_string(pt_role_name(r->role)));
	return o;
}

static void pool_json(const struct pagetrail_record *p,
		      const struct pagetrail_record **last,
		      const struct pagetrail_record **taken, size_t n,
		      void *ctx)
{
	struct json_object *o = json_object_new_object();
	struct json_object *pages = json_object_new_array();
	size_t k;

	json_object_object_add(o, "pool", json_object_new_int64(p->alloc_seq));
	json_object_object_add(o, "event",
			       json_object_new_string(pt_cause_name(p->cause)));
	json_object_object_add(o, "seq", json_object_new_uint64(p->seq));
	json_object_object_add(o, "hold", json_object_new_int64(p->index));
	json_object_object_add(o, "release",
			       json_object_new_int64(p->inner_ret));
	json_object_object_add(o, "in_flight",
			       json_object_new_int64((int)p->aux));
	for (k = 0; k < n; k++) {
		struct json_object *pg = json_object_new_object();
		char pfn[32];

		snprintf(pfn, sizeof(pfn), "0x%llx", last[k]->pfn);
		json_object_object_add(pg, "pfn", json_object_new_string(pfn));
		json_object_object_add(pg, "taken",
				       taken[k] ? holder_json(taken[k]) : NULL);
		json_object_object_add(pg, "last", holder_json(last[k]));
		json_object_array_add(pages, pg);
	}
	json_object_object_add(o, "held", pages);
	json_object_array_add(ctx, o);
}

struct json_object *pt_pools_json(const struct pt_src *s)
{
	struct json_object *arr = json_object_new_array();

	pools_walk(s, pool_json, arr);
	return arr;
}
