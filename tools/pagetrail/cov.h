/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: coverage facts (what was seen, missed, lost) from stats and coverage. */
#ifndef PAGETRAIL_TOOL_COV_H
#define PAGETRAIL_TOOL_COV_H

#include <json-c/json.h>
#include "common.h"

#define PT_COV_MAX_PROBES 64
#define PT_COV_MAX_REASONS 24

struct pt_probe_cov {
	char name[48];
	char backend[16];
	int planted;
	int error; /* why not planted: -ENOENT, no such function here */
	char role[16]; /* names of one role: one planted covers the others */
	long long hits, filtered, entries, returns, pending, missed;
};

/* A probe the profile could not plant (helper inlined) and what stands in. */
struct pt_fallback_cov {
	char symbol[48];
	char via[64];
	char lost[64];
};

struct pt_tp_cov {
	char name[48];
	int hooked;
	long long hits;
};

struct pt_cov {
	int have_stats, have_coverage;
	char state[24], target[48], profile[24], reason[128];
	long long attaches, error;
	struct pt_probe_cov probe[PT_COV_MAX_PROBES];
	int nprobe;
	struct pt_tp_cov tp[8];
	int ntp;
	struct pt_fallback_cov fallback[8];
	int nfallback;
	long long produced, read, buffered, overwritten, dropped_full,
		dropped_frozen, lost;
	long long unaccounted, tracked, capacity, recycled, tracker_full, gaps,
		anomalies;
	long long anomalies_dropped, frames_overflow, frames_unbalanced,
		decode_errors;
	long long seq_gaps; /* in the events this source holds (-1: none read) */
	/* record_first=1: observations staged on the probe path */
	int record_first;
	long long stage_observed, stage_consumed, stage_buffered, stage_lost;
	/* What was not observed, one short phrase each. */
	char reasons[PT_COV_MAX_REASONS][96];
	int nreasons;
};

/* The fallback standing in for probe @name ("target:symbol"), or NULL. */
/* The planted probe of p's role, when p is a name this kernel lacks. */
const struct pt_probe_cov *pt_cov_other_name(const struct pt_cov *c,
					     const struct pt_probe_cov *p);
const struct pt_fallback_cov *pt_cov_fallback_for(const struct pt_cov *c,
						  const char *name);
/* Gather coverage facts from a loaded source (missing files: have_* 0). */
void pt_cov_load(struct pt_cov *c, const struct pt_src *s);
/* Coverage is complete: nothing missed, lost or unobserved. */
static inline int pt_cov_complete(const struct pt_cov *c)
{
	return c->nreasons == 0;
}
/* A string, or null when empty (the source does not say). */
struct json_object *pt_json_str_or_null(const char *s);
struct json_object *pt_cov_json(const struct pt_cov *c);

#endif /* PAGETRAIL_TOOL_COV_H */
