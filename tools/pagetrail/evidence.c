// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail evidence -o DIR: a package to publish, like R1's. Every pfn,
 * allocation, pid and thread name becomes an opaque alias (PAGE_P1,
 * ALLOC_A, THREAD_T1), assigned in the order the findings first cite them,
 * so the same input gives the same aliases. Each statement is OBSERVED (a
 * record shows it), DERIVED (a named rule concludes it) or UNKNOWN
 * (nothing covers it). Writes DIR/evidence.json and DIR/summary.md.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmds.h"
#include "analyze.h"
#include "opt.h"

#define PT_MAX_ALIAS 4096

struct pt_aliases {
	unsigned long long page[PT_MAX_ALIAS], alloc[PT_MAX_ALIAS],
		thread[PT_MAX_ALIAS];
	size_t npage, nalloc, nthread;
};

static size_t alias_of(unsigned long long *tbl, size_t *n,
		       unsigned long long key)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (tbl[i] == key)
			return i;
	if (*n == PT_MAX_ALIAS)
		return PT_MAX_ALIAS;
	tbl[*n] = key;
	return (*n)++;
}

static void al_pfn(void *ctx, unsigned long long pfn, char *buf, size_t n)
{
	struct pt_aliases *a = ctx;

	snprintf(buf, n, "PAGE_P%zu", alias_of(a->page, &a->npage, pfn) + 1);
}

static void al_thread(void *ctx, const struct pagetrail_record *r, char *buf,
		      size_t n)
{
	struct pt_aliases *a = ctx;

	snprintf(buf, n, "THREAD_T%zu",
		 alias_of(a->thread, &a->nthread, r->pid) + 1);
}

/* ALLOC_A .. ALLOC_Z, then ALLOC_AA ..: one per allocation instance. */
static void al_alloc(void *ctx, unsigned long long token, unsigned int seq,
		     char *buf, size_t n)
{
	struct pt_aliases *a = ctx;
	size_t i;

	(void)token;
	if (!seq) {
		snprintf(buf, n, "no allocation");
		return;
	}
	i = alias_of(a->alloc, &a->nalloc, seq);
	if (i < 26)
		snprintf(buf, n, "ALLOC_%c", (char)('A' + i));
	else
		snprintf(buf, n, "ALLOC_%c%c", (char)('A' + (i / 26 - 1) % 26),
			 (char)('A' + i % 26));
}

static struct json_object *statement(const struct pt_step *st,
				     const struct pt_namer *nm,
				     const struct pt_finding *f)
{
	struct json_object *o = json_object_new_object();
	char buf[512];

	pt_step_render(st, nm, buf, sizeof(buf));
	json_object_object_add(
		o, "label", json_object_new_string(pt_label_name(st->label)));
	if (st->r && st->label == PT_OBSERVED) {
		json_object_object_add(o, "record",
				       json_object_new_uint64(st->r->seq));
		json_object_object_add(
			o, "role",
			json_object_new_string(pt_role_name(st->r->role)));
		nm->pfn(nm->ctx, st->r->pfn, buf, sizeof(buf));
		json_object_object_add(o, "page", json_object_new_string(buf));
		nm->thread(nm->ctx, st->r, buf, sizeof(buf));
		json_object_object_add(o, "thread",
				       json_object_new_string(buf));
		pt_step_render(st, nm, buf, sizeof(buf));
	}
	if (st->label == PT_DERIVED)
		json_object_object_add(o, "rule",
				       json_object_new_string(f->rule));
	json_object_object_add(o, "text", json_object_new_string(buf));
	return o;
}

/*
 * The kernel stack kept with the anomaly of a finding's thread record (the
 * culprit's, or the insert's in an UNDETERMINED finding). Frames are
 * symbol+offset/size [module] of code everyone has; they carry no address,
 * pfn, pid or name of the machine, so they may ship. A line in any other
 * form is withheld, not passed through.
 */
#define PT_MAX_FRAMES 64

struct pt_stack {
	const char *line[PT_MAX_FRAMES];
	int len[PT_MAX_FRAMES];
	int n;
	int kept; /* the source kept a stack with this record */
};

static int sym_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

static size_t hex_run(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && ((p[i] >= '0' && p[i] <= '9') ||
			 (p[i] >= 'a' && p[i] <= 'f')))
		i++;
	return i;
}

/* "sym+0x3c/0x90 [mod]", "sym+0x3c/0x90", "sym" or "?", nothing else. */
static int frame_publishable(const char *l, size_t n)
{
	size_t i = 0, h;

	if (n == 1 && l[0] == '?')
		return 1;
	while (i < n && sym_char(l[i]))
		i++;
	/* No symbol, or one a raw address would also be (hex digits only). */
	if (!i || (l[0] >= '0' && l[0] <= '9') ||
	    (i >= 8 && hex_run(l, i) == i))
		return 0;
	if (i < n && l[i] == '+') {
		if (n - i < 3 || strncmp(l + i + 1, "0x", 2))
			return 0;
		h = hex_run(l + i + 3, n - i - 3);
		if (!h || h > 8 || i + 3 + h >= n || l[i + 3 + h] != '/')
			return 0;
		i += 4 + h;
		if (n - i < 3 || strncmp(l + i, "0x", 2))
			return 0;
		h = hex_run(l + i + 2, n - i - 2);
		if (!h || h > 8)
			return 0;
		i += 2 + h;
	}
	if (i == n)
		return 1;
	if (n - i < 4 || l[i] != ' ' || l[i + 1] != '[' || l[n - 1] != ']')
		return 0;
	for (i += 2; i < n - 1; i++)
		if (!sym_char(l[i]) && l[i] != '-')
			return 0;
	return 1;
}

static void stack_of(const struct pt_analysis *a,
		     const struct pagetrail_record *r, struct pt_stack *st)
{
	const char *p = NULL, *end = NULL;
	size_t i, len;

	memset(st, 0, sizeof(*st));
	for (i = 0; r && i < a->nanom; i++)
		if (a->anom[i].rec.seq == r->seq && a->anom[i].block) {
			p = a->anom[i].block;
			end = p + a->anom[i].block_len;
			break;
		}
	if (!p)
		return;
	while (p < end && strncmp(p, "  stack:\n", 9)) {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	if (p >= end)
		return;
	st->kept = 1;
	for (p += 9; p < end && !strncmp(p, "    ", 4); p += len + 1) {
		len = strcspn(p, "\n");
		if (p + len > end)
			len = (size_t)(end - p);
		if (st->n < PT_MAX_FRAMES) {
			st->line[st->n] = p + 4;
			st->len[st->n++] = (int)len - 4;
		}
	}
}

#define PT_FRAME_WITHHELD "(frame withheld: not in symbol+offset form)"

static struct json_object *stack_json(const struct pt_stack *st)
{
	struct json_object *o;
	int i;

	if (!st->n)
		return NULL;
	o = json_object_new_array();
	for (i = 0; i < st->n; i++)
		json_object_array_add(
			o, frame_publishable(st->line[i], (size_t)st->len[i]) ?
				   json_object_new_string_len(st->line[i],
							      st->len[i]) :
				   json_object_new_string(PT_FRAME_WITHHELD));
	return o;
}

static struct json_object *finding_json(const struct pt_finding *f,
					const struct pt_analysis *a,
					const struct pt_namer *nm)
{
	struct pt_stack stk;
	struct json_object *o = json_object_new_object(),
			   *st = json_object_new_array();
	char buf[512];
	int i;

	json_object_object_add(o, "class", json_object_new_string(f->klass));
	json_object_object_add(o, "rule", json_object_new_string(f->rule));
	json_object_object_add(o, "title", json_object_new_string(f->title));
	nm->pfn(nm->ctx, f->pfn, buf, sizeof(buf));
	json_object_object_add(o, "page", json_object_new_string(buf));
	nm->thread(nm->ctx, f->culprit, buf, sizeof(buf));
	json_object_object_add(o, "culprit",
			       pt_finding_blames(f) ? json_object_new_string(buf) :
						      NULL);
	json_object_object_add(o, "thread", json_object_new_string(buf));
	json_object_object_add(o, "thread_role", json_object_new_string(pt_role_name(
							 f->culprit->role)));
	for (i = 0; i < f->nstep; i++)
		json_object_array_add(st, statement(&f->step[i], nm, f));
	json_object_object_add(o, "statements", st);
	stack_of(a, f->culprit, &stk);
	json_object_object_add(o, "stack", stack_json(&stk));
	if (f->insert && f->insert->ret < 0) {
		pt_chain_render(f->insert, f->map, nm, buf, sizeof(buf));
		json_object_object_add(o, "return_chain",
				       json_object_new_string(buf));
	}
	return o;
}

/* Identity facts safe to publish: kernel, build id, module versions. */
static struct json_object *identity_json(const struct pt_src *s)
{
	static const char *const keys[] = {
		"kernel_release", "machine",	       "kernel_build_id",
		"target",	  "pagetrail_version", "pagetrail_srcversion"
	};
	const char *id = pt_src_text(s, "identity"),
		   *nv = pt_src_text(s, "nvidia_version");
	struct json_object *o = json_object_new_object();
	char buf[128], key[96], tgt[48] = "";
	size_t i;

	for (i = 0; id && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!pt_kv_str(id, keys[i], buf, sizeof(buf)))
			json_object_object_add(o, keys[i],
					       json_object_new_string(buf));
	if (id && !pt_kv_str(id, "target", tgt, sizeof(tgt))) {
		snprintf(key, sizeof(key), "%s_version", tgt);
		if (!pt_kv_str(id, key, buf, sizeof(buf)))
			json_object_object_add(o, "target_version",
					       json_object_new_string(buf));
		snprintf(key, sizeof(key), "%s_srcversion", tgt);
		if (!pt_kv_str(id, key, buf, sizeof(buf)))
			json_object_object_add(o, "target_srcversion",
					       json_object_new_string(buf));
	}
	if (nv)
		json_object_object_add(
			o, "nvidia_version",
			json_object_new_string_len(nv, (int)strcspn(nv, "\n")));
	if (!id)
		json_object_object_add(
			o, "note",
			json_object_new_string(
				"live or directory source: no identity section (use pagetrail capture)"));
	return o;
}

static struct json_object *coverage_json(const struct pt_cov *c)
{
	struct json_object *o = pt_cov_json(c), *u = json_object_new_array();
	int i;

	for (i = 0; i < c->nreasons; i++) {
		struct json_object *s = json_object_new_object();

		json_object_object_add(s, "label",
				       json_object_new_string("UNKNOWN"));
		json_object_object_add(s, "text",
				       json_object_new_string(c->reasons[i]));
		json_object_array_add(u, s);
	}
	json_object_object_add(o, "statements", u);
	return o;
}

static int write_json(const char *dir, const struct pt_src *s,
		      const struct pt_analysis *a, const struct pt_namer *nm)
{
	struct json_object *o = json_object_new_object(),
			   *fs = json_object_new_array();
	char path[4096];
	size_t i;
	int rc;

	/*
	 * 2: culprit null in UNDETERMINED findings, thread and source added;
	 * 3: each finding's stack (its thread record's kernel stack, or null).
	 */
	json_object_object_add(o, "format",
			       json_object_new_string("pagetrail-evidence 3"));
	/* The kind only: a path may name the machine or its user. */
	json_object_object_add(o, "source", pt_src_json(s, 0));
	json_object_object_add(o, "identity", identity_json(s));
	json_object_object_add(o, "records", json_object_new_uint64(s->nrec));
	json_object_object_add(o, "anomalies",
			       json_object_new_uint64(a->nanom));
	for (i = 0; i < a->nfind; i++)
		json_object_array_add(fs, finding_json(&a->find[i], a, nm));
	json_object_object_add(o, "findings", fs);
	json_object_object_add(o, "coverage", coverage_json(&a->cov));
	snprintf(path, sizeof(path), "%s/evidence.json", dir);
	rc = json_object_to_file_ext(path, o,
				     JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	return rc;
}

static void md_stack(FILE *f, const struct pt_finding *fd,
		     const struct pt_analysis *a, const struct pt_namer *nm)
{
	const char *whose = pt_finding_blames(fd) ? "culprit" : "thread";
	struct pt_stack st;
	char thr[32];
	int i;

	nm->thread(nm->ctx, fd->culprit, thr, sizeof(thr));
	stack_of(a, fd->culprit, &st);
	if (!st.n) {
		fprintf(f, "\nKernel stack of the %s (%s, record %llu): %s.\n",
			whose, thr, (unsigned long long)fd->culprit->seq,
			st.kept ? "none kept with its anomaly" :
				  "not recorded in this source");
		return;
	}
	fprintf(f, "\nKernel stack of the %s (%s, record %llu):\n\n", whose,
		thr, (unsigned long long)fd->culprit->seq);
	for (i = 0; i < st.n; i++)
		if (frame_publishable(st.line[i], (size_t)st.len[i]))
			fprintf(f, "    %.*s\n", st.len[i], st.line[i]);
		else
			fprintf(f, "    %s\n", PT_FRAME_WITHHELD);
}

static void md_finding(FILE *f, size_t k, const struct pt_finding *fd,
		       const struct pt_analysis *a, const struct pt_namer *nm)
{
	char page[32], thr[32], line[512];
	int i;

	nm->pfn(nm->ctx, fd->pfn, page, sizeof(page));
	nm->thread(nm->ctx, fd->culprit, thr, sizeof(thr));
	if (pt_finding_blames(fd))
		fprintf(f,
			"## Finding %zu: %s (%s)\n\nRule `%s`, page %s, culprit %s.\n\n",
			k, fd->title, fd->klass, fd->rule, page, thr);
	else
		fprintf(f,
			"## Finding %zu: %s (%s)\n\nRule `%s`, page %s; culprit unknown (%s is the thread of the %s, not blamed).\n\n",
			k, fd->title, fd->klass, fd->rule, page, thr,
			pt_role_name(fd->culprit->role));
	for (i = 0; i < fd->nstep; i++) {
		pt_step_render(&fd->step[i], nm, line, sizeof(line));
		if (fd->step[i].r && fd->step[i].label == PT_OBSERVED)
			fprintf(f, "- **OBSERVED** (record %llu): %s\n",
				(unsigned long long)fd->step[i].r->seq, line);
		else if (fd->step[i].label == PT_DERIVED)
			fprintf(f, "- **DERIVED** (rule `%s`): %s\n", fd->rule,
				line);
		else
			fprintf(f, "- **%s**: %s\n",
				pt_label_name(fd->step[i].label), line);
	}
	if (fd->insert && fd->insert->ret < 0) {
		pt_chain_render(fd->insert, fd->map, nm, line, sizeof(line));
		fprintf(f, "\nReturn chain: %s\n", line);
	}
	md_stack(f, fd, a, nm);
	fputc('\n', f);
}

static void md_coverage(FILE *f, const struct pt_cov *c)
{
	int i;

	fprintf(f,
		"## Coverage\n\n| probe | backend | planted | hits | missed |\n|---|---|---|---|---|\n");
	for (i = 0; i < c->nprobe; i++)
		fprintf(f, "| %s | %s | %d | %lld | %lld |\n", c->probe[i].name,
			c->probe[i].backend, c->probe[i].planted,
			c->probe[i].hits, c->probe[i].missed);
	for (i = 0; i < c->ntp; i++)
		fprintf(f, "| tracepoint %s | - | %d | %lld | - |\n",
			c->tp[i].name, c->tp[i].hooked, c->tp[i].hits);
	fprintf(f,
		"\n| ring produced | read | lost | gaps | tracker full | anomalies not kept |\n"
		"|---|---|---|---|---|---|\n| %lld | %lld | %lld | %lld | %lld | %lld |\n\n",
		c->produced, c->read, c->lost, c->gaps, c->tracker_full,
		c->anomalies_dropped);
	if (pt_cov_complete(c))
		fprintf(f,
			"Coverage complete: no probe missed, no record lost, no gap.\n");
	for (i = 0; i < c->nreasons; i++)
		fprintf(f, "- **UNKNOWN**: %s\n", c->reasons[i]);
}

static int write_md(const char *dir, const struct pt_src *s,
		    const struct pt_analysis *a, const struct pt_namer *nm)
{
	const char *id = pt_src_text(s, "identity");
	char path[4096], rel[96] = "unknown", tgt[48] = "unknown";
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/summary.md", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (id) {
		pt_kv_str(id, "kernel_release", rel, sizeof(rel));
		pt_kv_str(id, "target", tgt, sizeof(tgt));
	}
	fprintf(f,
		"# pagetrail evidence\n\nKernel %s, target module %s; %zu %s, %zu %s, %zu %s.\n\n",
		rel, tgt, s->nrec, pt_pl((long long)s->nrec, "record", "records"),
		a->nanom, pt_pl((long long)a->nanom, "anomaly", "anomalies"),
		a->nfind, pt_pl((long long)a->nfind, "finding", "findings"));
	fprintf(f,
		"Pages, allocations and threads are opaque aliases (PAGE_P1, ALLOC_A, THREAD_T1), stable for this input. "
		"OBSERVED: a record shows it; DERIVED: the named rule concludes it; UNKNOWN: nothing recorded covers it.\n\n");
	for (i = 0; i < a->nfind; i++)
		md_finding(f, i + 1, &a->find[i], a, nm);
	if (!a->nfind)
		fprintf(f, "No findings: no anomaly in the records.\n\n");
	md_coverage(f, &a->cov);
	return fclose(f);
}

static int evidence_args(int argc, char **argv, struct pt_srcopt *o,
			 const char **dir, int *force)
{
	struct pt_optp p;
	int k;

	pt_opt_init(&p, &pt_spec_evidence, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k == PT_OPT_OPERAND)
			return pt_usage_err(&pt_spec_evidence,
					    "unexpected argument '%s' (the package goes to -o DIR)",
					    p.val);
		if (k == 'o')
			*dir = p.val;
		else if (k == PT_KEY_FORCE)
			*force = 1;
		else
			pt_srcopt_set(o, k, p.val);
	}
	if (!*dir)
		return pt_usage_err(&pt_spec_evidence,
				    "-o DIR is required (where the package goes)");
	return -1;
}

/* DIR made if absent; files of an earlier package kept as .old. */
static int prepare_dir(const char *dir, int force)
{
	static const char *const files[] = { "evidence.json", "summary.md" };
	char path[4096];
	size_t i;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		pt_err("evidence: %s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (pt_keep_old("evidence", path, force))
			return -1;
	}
	return 0;
}

int pt_cmd_evidence(int argc, char **argv)
{
	struct pt_aliases *al = calloc(1, sizeof(*al));
	struct pt_namer nm = { al_pfn, al_thread, al_alloc, al };
	struct pt_srcopt o = { 0 };
	const char *dir = NULL;
	struct pt_analysis a;
	struct pt_src s;
	int r, force = 0;

	if (!al) {
		pt_err("evidence: out of memory");
		return 2;
	}
	r = evidence_args(argc, argv, &o, &dir, &force);
	if (r >= 0 || prepare_dir(dir, force)) {
		free(al);
		return r >= 0 ? r : 2;
	}
	if (pt_src_load(&s, &o, 1)) {
		free(al);
		return 2;
	}
	if (pt_analyze(&a, &s)) {
		pt_analysis_free(&a);
		pt_src_free(&s);
		free(al);
		return 2;
	}
	r = write_json(dir, &s, &a, &nm) || write_md(dir, &s, &a, &nm);
	if (r)
		pt_err("evidence: writing into %s failed", dir);
	pt_analysis_free(&a);
	pt_src_free(&s);
	free(al);
	return r ? 2 : 0;
}
