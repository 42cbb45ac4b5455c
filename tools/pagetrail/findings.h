/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail command: what the diagnosis rules share (analyze.c has the
 * NVIDIA pool's classes, pp_findings.c the kernel page_pool's).
 */
#ifndef PAGETRAIL_TOOL_FINDINGS_H
#define PAGETRAIL_TOOL_FINDINGS_H

#include "analyze.h"

#define AN(k) (1u << PT_AN_##k)

/* Every record the rules may cite: the events, plus anomalies only the file kept. */
struct pt_view {
	const struct pagetrail_record **r;
	size_t n;
};

int has(const struct pagetrail_record *r, unsigned int bits);
int chunk_has(const struct pagetrail_record *chunk, unsigned long long pfn);
const struct pagetrail_record *view_rec(const struct pt_view *v,
					unsigned long long seq);
struct pt_finding *new_finding(struct pt_analysis *a, const char *klass,
			       const char *rule, const char *title,
			       const struct pagetrail_record *culprit);
void step(struct pt_finding *f, enum pt_label l,
	  const struct pagetrail_record *r, const char *what);
/* Last record of role covering pfn before seq (0: any role). */
const struct pagetrail_record *last_before(const struct pt_view *v, int role,
					   unsigned long long pfn,
					   unsigned long long seq);
const struct pagetrail_record *first_after(const struct pt_view *v, int role,
					   unsigned long long pfn,
					   unsigned long long seq);
/* Mark the anomalies on the chunk from seq a to b as explained. */
void claim(struct pt_analysis *an, const struct pagetrail_record *chunk,
	   unsigned long long a, unsigned long long b);
void finish(struct pt_finding *f, const struct pt_view *v,
	    const struct pagetrail_record *ins);

/* pp_findings.c: 1 when a page_pool class explains the anomalous record. */
int pt_rule_pagepool(struct pt_analysis *an, const struct pt_view *v,
		     const struct pagetrail_record *r);

#endif /* PAGETRAIL_TOOL_FINDINGS_H */
