// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: coverage facts from the stats and coverage files. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "cov.h"

static void reason(struct pt_cov *c, const char *fmt, ...)
{
	va_list ap;

	if (c->nreasons >= PT_COV_MAX_REASONS)
		return;
	va_start(ap, fmt);
	vsnprintf(c->reasons[c->nreasons++], sizeof(c->reasons[0]), fmt, ap);
	va_end(ap);
}

/* Copy one line (without newline) so pt_kv sees only its fields. */
static const char *next_line(const char *p, char *buf, size_t size)
{
	size_t n = strcspn(p, "\n");

	snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), p);
	return p[n] ? p + n + 1 : p + n;
}

static void parse_probe(struct pt_cov *c, const char *line)
{
	struct pt_probe_cov *p;

	if (c->nprobe >= PT_COV_MAX_PROBES)
		return;
	p = &c->probe[c->nprobe++];
	pt_kv_str(line, "probe", p->name, sizeof(p->name));
	pt_kv_str(line, "backend", p->backend, sizeof(p->backend));
	p->planted = (int)pt_kv_ll(line, "planted", 0);
	p->error = (int)pt_kv_ll(line, "error", 0);
	pt_kv_str(line, "role", p->role, sizeof(p->role));
	p->hits = pt_kv_ll(line, "hits", 0);
	p->filtered = pt_kv_ll(line, "filtered", 0);
	p->entries = pt_kv_ll(line, "entries", 0);
	p->returns = pt_kv_ll(line, "returns", 0);
	p->pending = pt_kv_ll(line, "pending", 0);
	p->missed = pt_kv_ll(line, "missed", 0);
}

static void parse_coverage(struct pt_cov *c, const char *text)
{
	char line[512];
	const char *p = text;

	while (*p) {
		p = next_line(p, line, sizeof(line));
		if (!strncmp(line, "probe=", 6)) {
			parse_probe(c, line);
		} else if (!strncmp(line, "tracepoint=", 11) && c->ntp < 8) {
			struct pt_tp_cov *t = &c->tp[c->ntp++];

			pt_kv_str(line, "tracepoint", t->name, sizeof(t->name));
			t->hooked = (int)pt_kv_ll(line, "hooked", 0);
			t->hits = pt_kv_ll(line, "hits", 0);
		} else if (!strncmp(line, "fallback=", 9) &&
			   c->nfallback < (int)(sizeof(c->fallback) /
						sizeof(c->fallback[0]))) {
			struct pt_fallback_cov *f = &c->fallback[c->nfallback++];

			pt_kv_str(line, "fallback", f->symbol, sizeof(f->symbol));
			pt_kv_str(line, "via", f->via, sizeof(f->via));
			pt_kv_str(line, "lost", f->lost, sizeof(f->lost));
		}
	}
}

const struct pt_fallback_cov *pt_cov_fallback_for(const struct pt_cov *c,
						  const char *name)
{
	const char *sym = strchr(name, ':');
	int i;

	sym = sym ? sym + 1 : name;
	for (i = 0; i < c->nfallback; i++)
		if (!strcmp(c->fallback[i].symbol, sym))
			return &c->fallback[i];
	return NULL;
}

static void parse_stats(struct pt_cov *c, const char *t)
{
	c->produced = pt_kv_ll(t, "ring_produced", 0);
	c->read = pt_kv_ll(t, "ring_read", 0);
	c->buffered = pt_kv_ll(t, "ring_buffered", 0);
	c->overwritten = pt_kv_ll(t, "ring_overwritten", 0);
	c->dropped_full = pt_kv_ll(t, "ring_dropped_full", 0);
	c->dropped_frozen = pt_kv_ll(t, "ring_dropped_frozen", 0);
	c->lost = pt_kv_ll(t, "ring_lost", 0);
	c->unaccounted = pt_kv_ll(t, "ring_unaccounted", 0);
	c->tracked = pt_kv_ll(t, "tracked", 0);
	c->capacity = pt_kv_ll(t, "capacity", 0);
	c->recycled = pt_kv_ll(t, "recycled", 0);
	c->tracker_full = pt_kv_ll(t, "tracker_full", 0);
	c->gaps = pt_kv_ll(t, "gaps", 0);
	c->anomalies = pt_kv_ll(t, "anomalies", 0);
	c->anomalies_dropped = pt_kv_ll(t, "anomalies_dropped", 0);
	c->frames_overflow = pt_kv_ll(t, "frames_overflow", 0);
	c->frames_unbalanced = pt_kv_ll(t, "frames_unbalanced", 0);
	c->decode_errors = pt_kv_ll(t, "nv_decode_errors", 0);
	c->record_first = pt_kv_ll(t, "record_first", 0) == 1;
	c->stage_observed = pt_kv_ll(t, "stage_observed", 0);
	c->stage_consumed = pt_kv_ll(t, "stage_consumed", 0);
	c->stage_buffered = pt_kv_ll(t, "stage_buffered", 0);
	c->stage_lost = pt_kv_ll(t, "stage_lost", 0);
}

static void parse_target(struct pt_cov *c, const char *t)
{
	strcpy(c->state, "unknown");
	pt_kv_str(t, "state", c->state, sizeof(c->state));
	pt_kv_str(t, "target", c->target, sizeof(c->target));
	pt_kv_str(t, "profile", c->profile, sizeof(c->profile));
	c->attaches = pt_kv_ll(t, "attaches", 0);
	c->error = pt_kv_ll(t, "error", 0);
	/* reason= runs to the end of its line, blanks included. */
	{
		const char *r = strstr(t, "\nreason=");

		if (r)
			snprintf(c->reason, sizeof(c->reason), "%.*s",
				 (int)strcspn(r + 8, "\n"), r + 8);
	}
}

/*
 * A name this kernel does not have (renamed across versions) is no hole
 * while another name of its role is planted.
 */
const struct pt_probe_cov *pt_cov_other_name(const struct pt_cov *c,
					     const struct pt_probe_cov *p)
{
	int i;

	if (!p->role[0] || p->error != -ENOENT)
		return NULL;
	for (i = 0; i < c->nprobe; i++)
		if (c->probe[i].planted && !strcmp(c->probe[i].role, p->role))
			return &c->probe[i];
	return NULL;
}

static void find_reasons(struct pt_cov *c)
{
	int i;

	if (!c->have_stats)
		reason(c,
		       "no stats: ring losses, gaps and tracker overflow not known");
	if (!c->have_coverage)
		reason(c, "no coverage file: probe misses not known");
	if (c->have_stats && strcmp(c->state, "attached"))
		reason(c, "not attached (state %s)", c->state);
	for (i = 0; i < c->nprobe; i++) {
		/*
		 * An inlined helper is no hole when a fallback sees its
		 * transitions; the detail it loses is shown, not counted.
		 */
		if (!c->probe[i].planted &&
		    !pt_cov_fallback_for(c, c->probe[i].name) &&
		    !pt_cov_other_name(c, &c->probe[i]))
			reason(c, "probe %s not planted", c->probe[i].name);
		if (c->probe[i].missed)
			reason(c, "probe %s missed %lld %s", c->probe[i].name,
			       c->probe[i].missed,
			       pt_pl(c->probe[i].missed, "call", "calls"));
	}
	for (i = 0; i < c->ntp; i++)
		if (!c->tp[i].hooked)
			reason(c, "tracepoint %s not hooked", c->tp[i].name);
	if (c->stage_lost)
		reason(c, "staging lost %lld %s before interpretation",
		       c->stage_lost,
		       pt_pl(c->stage_lost, "observation", "observations"));
	if (c->lost)
		reason(c, "ring lost %lld %s", c->lost,
		       pt_pl(c->lost, "record", "records"));
	if (c->gaps)
		reason(c, "%lld %s whose predecessor was not observed (gaps)",
		       c->gaps, pt_pl(c->gaps, "transition", "transitions"));
	if (c->tracker_full)
		reason(c, "tracker full %lld %s: chunks not tracked",
		       c->tracker_full, pt_pl(c->tracker_full, "time", "times"));
	if (c->anomalies_dropped)
		reason(c, "%lld %s not kept", c->anomalies_dropped,
		       pt_pl(c->anomalies_dropped, "anomaly", "anomalies"));
	if (c->frames_overflow || c->frames_unbalanced)
		reason(c, "nesting frames overflowed %lld / unbalanced %lld",
		       c->frames_overflow, c->frames_unbalanced);
	if (c->decode_errors)
		reason(c, "%lld driver %s could not be decoded",
		       c->decode_errors,
		       pt_pl(c->decode_errors, "argument", "arguments"));
	if (c->seq_gaps > 0)
		reason(c, "%lld %s missing from the events read (seq gaps)",
		       c->seq_gaps, pt_pl(c->seq_gaps, "record", "records"));
}

void pt_cov_load(struct pt_cov *c, const struct pt_src *s)
{
	const char *stats = pt_src_text(s, "stats");
	const char *cov = pt_src_text(s, "coverage");
	const char *ctl = pt_src_text(s, "control");

	memset(c, 0, sizeof(*c));
	c->have_stats = stats != NULL;
	c->have_coverage = cov != NULL;
	parse_target(c, ctl ? ctl : (stats ? stats : ""));
	if (stats)
		parse_stats(c, stats);
	if (cov)
		parse_coverage(c, cov);
	c->seq_gaps = s->nrec ? (long long)s->seq_gaps : -1;
	find_reasons(c);
}

static struct json_object *probe_json(const struct pt_probe_cov *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "probe", json_object_new_string(p->name));
	json_object_object_add(o, "backend",
			       json_object_new_string(p->backend));
	json_object_object_add(o, "planted",
			       json_object_new_boolean(p->planted));
	json_object_object_add(o, "hits", json_object_new_int64(p->hits));
	json_object_object_add(o, "filtered",
			       json_object_new_int64(p->filtered));
	json_object_object_add(o, "pending", json_object_new_int64(p->pending));
	json_object_object_add(o, "missed", json_object_new_int64(p->missed));
	return o;
}

/* -1, or no stats in the source (a trace): it does not say, null. */
#define ADD_INT(o, c, f)                                                  \
	json_object_object_add(o, #f, (c)->f < 0 || !(c)->have_stats ?     \
					      NULL :                       \
					      json_object_new_int64((c)->f))

struct json_object *pt_json_str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

struct json_object *pt_cov_json(const struct pt_cov *c)
{
	struct json_object *o = json_object_new_object(),
			   *a = json_object_new_array();
	struct json_object *r = json_object_new_object(),
			   *why = json_object_new_array();
	int i;

	for (i = 0; i < c->nprobe; i++)
		json_object_array_add(a, probe_json(&c->probe[i]));
	for (i = 0; i < c->ntp; i++) {
		struct json_object *t = json_object_new_object();

		json_object_object_add(t, "tracepoint",
				       json_object_new_string(c->tp[i].name));
		json_object_object_add(
			t, "hooked", json_object_new_boolean(c->tp[i].hooked));
		json_object_object_add(t, "hits",
				       json_object_new_int64(c->tp[i].hits));
		json_object_array_add(a, t);
	}
	json_object_object_add(o, "probes", a);
	a = json_object_new_array();
	for (i = 0; i < c->nfallback; i++) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(
			f, "symbol", json_object_new_string(c->fallback[i].symbol));
		json_object_object_add(
			f, "via", json_object_new_string(c->fallback[i].via));
		json_object_object_add(
			f, "lost", json_object_new_string(c->fallback[i].lost));
		json_object_array_add(a, f);
	}
	json_object_object_add(o, "fallbacks", a);
	ADD_INT(r, c, produced);
	ADD_INT(r, c, read);
	ADD_INT(r, c, buffered);
	ADD_INT(r, c, overwritten);
	ADD_INT(r, c, dropped_full);
	ADD_INT(r, c, dropped_frozen);
	ADD_INT(r, c, lost);
	json_object_object_add(o, "ring", r);
	if (c->record_first) {
		struct json_object *st = json_object_new_object();

		json_object_object_add(st, "observed",
				       json_object_new_int64(c->stage_observed));
		json_object_object_add(st, "consumed",
				       json_object_new_int64(c->stage_consumed));
		json_object_object_add(st, "buffered",
				       json_object_new_int64(c->stage_buffered));
		json_object_object_add(st, "lost",
				       json_object_new_int64(c->stage_lost));
		json_object_object_add(o, "staging", st);
	} else {
		json_object_object_add(o, "staging", NULL);
	}
	ADD_INT(o, c, gaps);
	ADD_INT(o, c, tracker_full);
	ADD_INT(o, c, anomalies);
	ADD_INT(o, c, anomalies_dropped);
	json_object_object_add(o, "seq_gaps",
			       c->seq_gaps < 0 ? NULL :
						 json_object_new_int64(c->seq_gaps));
	for (i = 0; i < c->nreasons; i++)
		json_object_array_add(why,
				      json_object_new_string(c->reasons[i]));
	json_object_object_add(o, "complete",
			       json_object_new_boolean(pt_cov_complete(c)));
	json_object_object_add(o, "not_observed", why);
	return o;
}
