// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail status: what is attached, what the probes saw, what the ring
 * lost, chunks by state. Exit 0 only when coverage is complete, 1 when
 * something was not observed, 2 on error.
 */
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "common.h"
#include "cov.h"
#include "opt.h"
#include "pools.h"
#include "records.h"

/* Chunks per state, from the pages table (one "state=NAME" per line). */
static void count_states(const char *pages, long long n[PT_ST_MAX])
{
	const char *p = pages;
	char name[24];
	int id;

	memset(n, 0, sizeof(long long) * PT_ST_MAX);
	while (p && (p = strstr(p, " state="))) {
		p += 7;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, " \n"), p);
		id = pt_state_id(name);
		if (id >= 0)
			n[id]++;
	}
}

static void print_probes(const struct pt_cov *c)
{
	long long hits = 0, missed = 0, pending = 0, filtered = 0;
	int i, planted = 0, fp = 0, kp = 0;

	for (i = 0; i < c->nprobe; i++) {
		planted += c->probe[i].planted;
		hits += c->probe[i].hits;
		missed += c->probe[i].missed;
		pending += c->probe[i].pending;
		filtered += c->probe[i].filtered;
		fp += !strcmp(c->probe[i].backend, "fprobe");
		kp += !strncmp(c->probe[i].backend, "k", 1);
	}
	printf("probes      %d of %d planted (fprobe %d, kprobe/kretprobe %d), hits %lld, filtered %lld, missed %lld, pending %lld\n",
	       planted, c->nprobe, fp, kp, hits, filtered, missed, pending);
	for (i = 0; i < c->nprobe; i++)
		printf("  %-30s %-10s planted=%d hits=%lld missed=%lld\n",
		       c->probe[i].name, c->probe[i].backend,
		       c->probe[i].planted, c->probe[i].hits,
		       c->probe[i].missed);
	for (i = 0; i < c->ntp; i++)
		printf("  tracepoint %-19s hooked=%d hits=%lld\n",
		       c->tp[i].name, c->tp[i].hooked, c->tp[i].hits);
	/* backend=0 takes fprobe where the kernel has it: none at all is the fallback. */
	if (!fp && kp)
		printf("  fallback: every probe on kprobes (no fprobe on this kernel, or backend=1)\n");
	for (i = 0; i < c->nprobe; i++) {
		const struct pt_fallback_cov *f;
		const struct pt_probe_cov *o;

		if (c->probe[i].planted)
			continue;
		f = pt_cov_fallback_for(c, c->probe[i].name);
		o = pt_cov_other_name(c, &c->probe[i]);
		if (o)
			printf("  other name: %s is not in this kernel; its role (%s) is %s's\n",
			       c->probe[i].name, o->role, o->name);
		else if (f)
			printf("  fallback: %s inlined, seen via %s; detail lost: %s\n",
			       c->probe[i].name, f->via, f->lost);
		else
			printf("  not planted: %s, no fallback: its transitions are not seen\n",
			       c->probe[i].name);
	}
}

/* A capture says where it was taken; live, uname is the same machine. */
static void print_identity(const char *id)
{
	char rel[96] = "?", bid[96] = "?", ver[64] = "none", src[64] = "none",
	     tgt[48] = "", k[80];

	if (!id)
		return;
	pt_kv_str(id, "kernel_release", rel, sizeof(rel));
	pt_kv_str(id, "kernel_build_id", bid, sizeof(bid));
	pt_kv_str(id, "target", tgt, sizeof(tgt));
	snprintf(k, sizeof(k), "%s_version", tgt);
	pt_kv_str(id, k, ver, sizeof(ver));
	snprintf(k, sizeof(k), "%s_srcversion", tgt);
	pt_kv_str(id, k, src, sizeof(src));
	printf("captured    kernel %s build-id %s; %s version %s srcversion %s\n",
	       rel, bid, tgt[0] ? tgt : "target", ver, src);
}

static void print_text(const struct pt_src *s, const struct pt_cov *c,
		       const long long *st)
{
	int i;

	printf("pagetrail status (%s)\n", s->origin);
	print_identity(pt_src_text(s, "identity"));
	printf("state       %s target=%s profile=%s attaches=%lld error=%lld%s%s\n",
	       c->state, c->target, c->profile, c->attaches, c->error,
	       c->reason[0] ? " reason=" : "", c->reason);
	print_probes(c);
	printf("ring        produced=%lld read=%lld buffered=%lld lost=%lld (overwritten=%lld dropped_full=%lld dropped_frozen=%lld)\n",
	       c->produced, c->read, c->buffered, c->lost, c->overwritten,
	       c->dropped_full, c->dropped_frozen);
	if (c->record_first)
		printf("staging     observed=%lld interpreted=%lld buffered=%lld lost=%lld (record first)\n",
		       c->stage_observed, c->stage_consumed, c->stage_buffered,
		       c->stage_lost);
	printf("tracked     %lld %s (capacity %lld, recycled %lld, full %lld):",
	       c->tracked, pt_pl(c->tracked, "chunk", "chunks"), c->capacity,
	       c->recycled, c->tracker_full);
	for (i = 1; i < PT_ST_MAX; i++)
		if (st[i])
			printf(" %s=%lld", pt_state_name(i), st[i]);
	printf("\nanomalies   %lld (not kept %lld)\n", c->anomalies,
	       c->anomalies_dropped);
	printf("gaps        %lld\n", c->gaps);
	if (pt_pools_in(s))
		pt_pools_print(s, stdout);
	else if (s->kind == PT_SRC_LIVE && !strcmp(c->profile, "pagepool"))
		printf("pools       the in-flight report reads the records: capture, then status --from (reading the live ring consumes it)\n");
	if (pt_cov_complete(c)) {
		printf("coverage    complete\n");
		return;
	}
	printf("coverage    incomplete:\n");
	for (i = 0; i < c->nreasons; i++)
		printf("  - %s\n", c->reasons[i]);
}

static void print_json(const struct pt_src *s, const struct pt_cov *c,
		       const long long *st)
{
	struct json_object *o = pt_json_new("status", pt_src_json(s, 1)),
			   *ch = json_object_new_object();
	int i;

	json_object_object_add(o, "state",
			       pt_json_str_or_null(c->have_stats ||
							   strcmp(c->state,
								  "unknown") ?
						   c->state :
						   NULL));
	json_object_object_add(o, "target", pt_json_str_or_null(c->target));
	json_object_object_add(o, "profile", pt_json_str_or_null(c->profile));
	json_object_object_add(o, "tracked",
			       c->have_stats ?
				       json_object_new_int64(c->tracked) :
				       NULL);
	for (i = 1; i < PT_ST_MAX; i++)
		json_object_object_add(ch, pt_state_name(i),
				       json_object_new_int64(st[i]));
	/* Only the pages table says: a source without it (a trace), null. */
	if (!pt_src_text(s, "pages")) {
		json_object_put(ch);
		ch = NULL;
	}
	json_object_object_add(o, "chunks_by_state", ch);
	/* The live ring is not read here: reading it consumes it. */
	json_object_object_add(o, "pools",
			       s->kind == PT_SRC_LIVE ? NULL :
							pt_pools_json(s));
	json_object_object_add(o, "coverage", pt_cov_json(c));
	pt_json_print(o);
}

int pt_cmd_status(int argc, char **argv)
{
	struct pt_srcopt o = { 0 };
	long long st[PT_ST_MAX];
	struct pt_src s;
	struct pt_cov c;
	int r;

	r = pt_srcopt_args(&pt_spec_status, argc, argv, &o);
	if (r >= 0)
		return r;
	if (pt_src_load(&s, &o, 0))
		return 2;
	if (!pt_src_text(&s, "stats") && s.kind != PT_SRC_TRACE) {
		pt_err("status: %s has no stats", s.origin);
		pt_src_free(&s);
		return 2;
	}
	pt_cov_load(&c, &s);
	count_states(pt_src_text(&s, "pages"), st);
	if (o.json)
		print_json(&s, &c, st);
	else
		print_text(&s, &c, st);
	pt_src_free(&s);
	return pt_cov_complete(&c) ? 0 : 1;
}
