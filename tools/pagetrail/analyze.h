/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail command: anomalies and findings. A finding is a root-cause class
 * reached by one named rule from records; every step cites a record.
 */
#ifndef PAGETRAIL_TOOL_ANALYZE_H
#define PAGETRAIL_TOOL_ANALYZE_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "common.h"
#include "cov.h"
#include "records.h"
#include "release.h"

/* An anomaly: its record, and what debugfs "anomalies" kept about it. */
struct pt_anom {
	struct pagetrail_record rec;
	int in_events; /* the record is in the events read */
	const char *block; /* its block in the anomalies file (history, stack) */
	size_t block_len;
	int claimed; /* a finding explains it */
};

enum pt_label { PT_OBSERVED, PT_DERIVED, PT_UNKNOWN };

/*
 * One statement of a finding. what is a template: {P} page, {T} thread,
 * {A} allocation, {a} previous allocation, {G} generation, {R} refcount,
 * {E} ret, {F} from state, {S} to state, {C} cause, {O} order, {I} index,
 * {K} anomaly kinds, {M} mapcount, {X} page flags, {r} role, {W} the
 * allocation a chunk came from (own or previous), {Q} the page_pool (by
 * its serial), {N} aux as a signed number (in flight, pool references);
 * all of record r.
 */
struct pt_step {
	enum pt_label label;
	const struct pagetrail_record *r; /* NULL: a statement no record shows */
	char what[200];
};

#define PT_MAX_STEPS 16

struct pt_finding {
	const char *klass; /* Z1, Z2, Z8, PIN, PP_*, UNDETERMINED */
	const char *rule; /* the rule's name */
	const char *title;
	unsigned long long pfn;
	const struct pagetrail_record *culprit; /* whose thread is to blame */
	const struct pagetrail_record *insert; /* failed insert, if any */
	const struct pagetrail_record *map; /* the mmap it failed */
	struct pt_step step[PT_MAX_STEPS];
	int nstep;
};

/*
 * An UNDETERMINED finding names a thread (its anomalous record's, often
 * the insert that failed) without blaming it: the culprit is unknown.
 */
static inline int pt_finding_blames(const struct pt_finding *f)
{
	return strcmp(f->klass, "UNDETERMINED") != 0;
}

/* The word for the thread a finding names: culprit, or insert_thread... */
static inline void pt_finding_who(const struct pt_finding *f, char *buf,
				  size_t n)
{
	if (pt_finding_blames(f))
		snprintf(buf, n, "culprit");
	else
		snprintf(buf, n, "%s_thread", pt_role_name(f->culprit->role));
}

struct pt_analysis {
	struct pt_anom *anom;
	size_t nanom;
	struct pt_finding *find;
	size_t nfind;
	struct pt_cov cov;
	/* failed mmaps no finding explains */
	const struct pagetrail_record **lone_map;
	size_t nlone_map;
	/* the driver release recorded on, and whether its contexts hold a ref */
	struct pt_release release;
	int ctx_ref; /* 1, 0, -1 unknown */
};

int pt_analyze(struct pt_analysis *a, const struct pt_src *s);
void pt_analysis_free(struct pt_analysis *a);

/* How entities are named: raw in diagnose, opaque aliases in evidence. */
struct pt_namer {
	void (*pfn)(void *ctx, unsigned long long pfn, char *buf, size_t n);
	void (*thread)(void *ctx, const struct pagetrail_record *r, char *buf,
		       size_t n);
	void (*alloc)(void *ctx, unsigned long long token, unsigned int seq,
		      char *buf, size_t n);
	void *ctx;
};
extern const struct pt_namer pt_raw_namer;

void pt_step_render(const struct pt_step *st, const struct pt_namer *nm,
		    char *buf, size_t n);
const char *pt_label_name(enum pt_label l);
/* "vm_insert_page(...) = -22 -> ... -> mmap(2) = EAGAIN" for a failed map. */
void pt_chain_render(const struct pagetrail_record *ins,
		     const struct pagetrail_record *map,
		     const struct pt_namer *nm, char *buf, size_t n);

/* Records of the page pfn, in sequence order; returns the count. */
size_t pt_page_records(const struct pt_src *s, unsigned long long pfn,
		       const struct pagetrail_record **out, size_t max);

/* One row of a page's history table, and its JSON form. */
void pt_row_header(FILE *f);
void pt_row_print(FILE *f, const struct pagetrail_record *r,
		  unsigned long long t0);
struct json_object *pt_row_json(const struct pagetrail_record *r);

#endif /* PAGETRAIL_TOOL_ANALYZE_H */
