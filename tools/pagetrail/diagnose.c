// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail diagnose: each anomaly chain's root-cause class, the rule that
 * named it, the page, the culprit thread, the records it used and the
 * return chain to the user-visible failure. Exit 0: nothing found and
 * coverage complete; 1: findings or something not observed; 2: error.
 */
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "analyze.h"
#include "pools.h"
#include "opt.h"

/* The seqs a finding cites, ascending, without repeats. */
static size_t finding_seqs(const struct pt_finding *f, unsigned long long *out,
			   size_t max)
{
	size_t n = 0, i, j;

	for (i = 0; i < (size_t)f->nstep; i++) {
		unsigned long long s;
		int dup = 0;

		if (!f->step[i].r || f->step[i].label != PT_OBSERVED)
			continue;
		s = f->step[i].r->seq;
		for (j = 0; j < n; j++)
			dup |= out[j] == s;
		if (dup || n == max)
			continue;
		for (j = n; j > 0 && out[j - 1] > s; j--)
			out[j] = out[j - 1];
		out[j] = s;
		n++;
	}
	return n;
}

static void print_finding(size_t k, const struct pt_finding *f)
{
	unsigned long long seqs[PT_MAX_STEPS];
	size_t n = finding_seqs(f, seqs, PT_MAX_STEPS), i;
	char thr[64], line[512], who[32];

	pt_raw_namer.thread(NULL, f->culprit, thr, sizeof(thr));
	pt_finding_who(f, who, sizeof(who));
	printf("finding %zu: class=%s rule=%s pfn=0x%llx %s=%s %s_seq=%llu records=",
	       k, f->klass, f->rule, f->pfn, who, thr,
	       pt_finding_blames(f) ? "culprit" :
				      pt_role_name(f->culprit->role),
	       (unsigned long long)f->culprit->seq);
	for (i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", seqs[i]);
	printf("\n  %s (%s)\n", f->title, f->klass);
	for (i = 0; i < (size_t)f->nstep; i++) {
		pt_step_render(&f->step[i], &pt_raw_namer, line, sizeof(line));
		if (f->step[i].r && f->step[i].label != PT_UNKNOWN)
			printf("  %-8s seq %-8llu %s\n",
			       pt_label_name(f->step[i].label),
			       (unsigned long long)f->step[i].r->seq, line);
		else
			printf("  %-8s %-12s %s\n",
			       pt_label_name(f->step[i].label), "", line);
	}
	if (f->insert && f->insert->ret < 0) {
		pt_chain_render(f->insert, f->map, &pt_raw_namer, line,
				sizeof(line));
		printf("  return chain: %s\n", line);
	}
}

static struct json_object *finding_json(const struct pt_finding *f)
{
	struct json_object *o = json_object_new_object(),
			   *st = json_object_new_array();
	struct json_object *rs = json_object_new_array(),
			   *c = json_object_new_object();
	int blames = pt_finding_blames(f);
	unsigned long long seqs[PT_MAX_STEPS];
	size_t n = finding_seqs(f, seqs, PT_MAX_STEPS), i;
	char buf[512], comm[17];

	json_object_object_add(o, "class", json_object_new_string(f->klass));
	json_object_object_add(o, "rule", json_object_new_string(f->rule));
	json_object_object_add(o, "title", json_object_new_string(f->title));
	snprintf(buf, sizeof(buf), "0x%llx", f->pfn);
	json_object_object_add(o, "pfn", json_object_new_string(buf));
	pt_record_comm(f->culprit, comm);
	json_object_object_add(c, "comm", json_object_new_string(comm));
	json_object_object_add(c, "pid",
			       json_object_new_int64(f->culprit->pid));
	json_object_object_add(c, "tgid",
			       json_object_new_int64(f->culprit->tgid));
	json_object_object_add(c, "seq",
			       json_object_new_uint64(f->culprit->seq));
	json_object_object_add(c, "role", json_object_new_string(pt_role_name(
						  f->culprit->role)));
	json_object_object_add(c, "blamed", json_object_new_boolean(blames));
	/* The thread named; the culprit only where a rule blames it. */
	json_object_object_add(o, "culprit",
			       blames ? json_object_get(c) : NULL);
	json_object_object_add(o, "thread", c);
	for (i = 0; i < n; i++)
		json_object_array_add(rs, json_object_new_uint64(seqs[i]));
	json_object_object_add(o, "records", rs);
	for (i = 0; i < (size_t)f->nstep; i++) {
		struct json_object *s = json_object_new_object();

		pt_step_render(&f->step[i], &pt_raw_namer, buf, sizeof(buf));
		json_object_object_add(s, "label",
				       json_object_new_string(pt_label_name(
					       f->step[i].label)));
		if (f->step[i].r)
			json_object_object_add(
				s, "seq",
				json_object_new_uint64(f->step[i].r->seq));
		json_object_object_add(s, "text", json_object_new_string(buf));
		json_object_array_add(st, s);
	}
	json_object_object_add(o, "statements", st);
	if (f->insert && f->insert->ret < 0) {
		struct json_object *ch = json_object_new_object();

		pt_chain_render(f->insert, f->map, &pt_raw_namer, buf,
				sizeof(buf));
		json_object_object_add(ch, "insert_seq",
				       json_object_new_uint64(f->insert->seq));
		json_object_object_add(ch, "insert_ret",
				       json_object_new_int(f->insert->ret));
		if (f->map) {
			json_object_object_add(
				ch, "map_seq",
				json_object_new_uint64(f->map->seq));
			json_object_object_add(
				ch, "helper_ret",
				json_object_new_int((int)f->map->aux));
			json_object_object_add(
				ch, "mmap_ret",
				json_object_new_int(f->map->ret));
		}
		json_object_object_add(ch, "text", json_object_new_string(buf));
		json_object_object_add(o, "return_chain", ch);
	}
	return o;
}

static void print_text(const struct pt_src *s, const struct pt_analysis *a)
{
	char line[512];
	size_t i;
	int j;

	printf("pagetrail diagnose (%s): %zu finding%s from %zu anomal%s in %zu record%s\n",
	       s->origin, a->nfind, a->nfind == 1 ? "" : "s", a->nanom,
	       a->nanom == 1 ? "y" : "ies", s->nrec, s->nrec == 1 ? "" : "s");
	if (pt_pools_in(s))
		printf("pool: the kernel's network page_pool (profile pagepool)\n");
	else if (a->ctx_ref < 0)
		printf("driver: release unknown: a stale mapping context (Z2) cannot be ruled out\n");
	else
		printf("driver: %s (%s): its mmap context %s\n", a->release.text,
		       a->release.from,
		       a->ctx_ref ? "holds a usage_count reference: Z2 is closed" :
				    "holds no reference: Z2 is possible");
	for (i = 0; i < a->nfind; i++)
		print_finding(i + 1, &a->find[i]);
	for (i = 0; i < a->nlone_map; i++) {
		pt_chain_render(a->lone_map[i], a->lone_map[i], &pt_raw_namer,
				line, sizeof(line));
		printf("failed mmap seq %llu no rule explains: %s\n",
		       (unsigned long long)a->lone_map[i]->seq, line);
	}
	if (!a->nfind && !a->nlone_map)
		printf("no findings: no anomaly and no failed mmap in the records\n");
	pt_pools_print(s, stdout);
	if (pt_cov_complete(&a->cov)) {
		printf("coverage: complete (no probe missed, no record lost, no gap)\n");
		return;
	}
	printf("coverage: incomplete, not observed:\n");
	for (j = 0; j < a->cov.nreasons; j++)
		printf("  UNKNOWN  %s\n", a->cov.reasons[j]);
}

/* The release the rules were gated by; nulls where the source does not say. */
static struct json_object *release_json(const struct pt_analysis *a)
{
	struct json_object *d = json_object_new_object();
	int known = a->ctx_ref >= 0;

	json_object_object_add(d, "release",
			       known ? json_object_new_string(a->release.text) :
				       NULL);
	json_object_object_add(d, "from",
			       known ? json_object_new_string(a->release.from) :
				       NULL);
	json_object_object_add(d, "context_reference",
			       known ? json_object_new_boolean(a->ctx_ref) :
				       NULL);
	return d;
}

static void print_json(const struct pt_src *s, const struct pt_analysis *a)
{
	struct json_object *o = pt_json_new("diagnose", pt_src_json(s, 1)),
			   *fs = json_object_new_array();
	size_t i;

	json_object_object_add(o, "records", json_object_new_uint64(s->nrec));
	json_object_object_add(o, "anomalies",
			       json_object_new_uint64(a->nanom));
	json_object_object_add(o, "driver", release_json(a));
	for (i = 0; i < a->nfind; i++)
		json_object_array_add(fs, finding_json(&a->find[i]));
	json_object_object_add(o, "findings", fs);
	json_object_object_add(o, "pools", pt_pools_json(s));
	json_object_object_add(o, "coverage", pt_cov_json(&a->cov));
	pt_json_print(o);
}

int pt_cmd_diagnose(int argc, char **argv)
{
	struct pt_srcopt o = { 0 };
	struct pt_analysis a;
	struct pt_src s;
	int rc;

	rc = pt_srcopt_args(&pt_spec_diagnose, argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (pt_src_load(&s, &o, 1))
		return 2;
	if (pt_analyze(&a, &s)) {
		pt_err("diagnose: out of memory");
		pt_src_free(&s);
		return 2;
	}
	if (o.json)
		print_json(&s, &a);
	else
		print_text(&s, &a);
	rc = (a.nfind || a.nlone_map || !pt_cov_complete(&a.cov)) ? 1 : 0;
	pt_analysis_free(&a);
	pt_src_free(&s);
	return rc;
}
