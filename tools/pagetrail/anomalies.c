// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail anomalies [--json]: each anomaly with the page's history and
 * the culprit's stack. The history is what the module kept with the
 * anomaly when there is one, else the records read; the stack is only in
 * the module's file (a trace.dat has none).
 */
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "analyze.h"
#include "opt.h"

/* Lines of a block under a heading ("  history", "  stack:"), one by one. */
static const char *block_section(const struct pt_anom *x, const char *head)
{
	const char *p;

	if (!x->block)
		return NULL;
	p = strstr(x->block, head);
	if (!p || p >= x->block + x->block_len)
		return NULL;
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* Indented lines of a section until the next heading or the block end. */
static void for_lines(const struct pt_anom *x, const char *p, int deep,
		      void (*fn)(void *ctx, const char *line, size_t len),
		      void *ctx)
{
	const char *end;
	size_t len;

	if (!p || !x->block)
		return;
	end = x->block + x->block_len;
	while (p < end && !strncmp(p, deep ? "    " : "  ", deep ? 4 : 2) &&
	       (!deep || p[4] != ' ' || 1)) {
		if (!strncmp(p, "  stack:", 8) || !strncmp(p, "  history", 9))
			break;
		len = strcspn(p, "\n");
		if (p + len > end)
			len = (size_t)(end - p);
		fn(ctx, p + 4, len > 4 ? len - 4 : 0);
		p += len + 1;
	}
}

static void print_line(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	printf("    %.*s\n", (int)len, line);
}

static void count_line(void *ctx, const char *line, size_t len)
{
	(void)line;
	(void)len;
	++*(size_t *)ctx;
}

/*
 * A kept history line on the history table's time base: its leading
 * "ts=NS" (the module's clock) becomes "t=MS" from the same first record,
 * so one block reads in one unit. base < 0: the block's first line is 0.
 */
struct kept_ctx {
	long long base;
};

static void print_kept(void *ctx, const char *line, size_t len)
{
	struct kept_ctx *k = ctx;
	char *end;
	long long ts;

	if (len < 4 || strncmp(line, "ts=", 3)) {
		print_line(NULL, line, len);
		return;
	}
	ts = strtoll(line + 3, &end, 10);
	if (end == line + 3 || (size_t)(end - line) > len) {
		print_line(NULL, line, len);
		return;
	}
	if (k->base < 0)
		k->base = ts;
	printf("    t=%.3fms%.*s\n", (double)(ts - k->base) / 1e6,
	       (int)(len - (size_t)(end - line)), end);
}

static void print_stack(const struct pt_anom *x)
{
	const char *p = block_section(x, "  stack:");
	size_t n = 0;

	if (!x->block) {
		printf("  stack: not recorded in this source\n");
		return;
	}
	for_lines(x, p, 1, count_line, &n);
	if (!n) {
		printf("  stack: none kept with this anomaly\n");
		return;
	}
	printf("  stack:\n");
	for_lines(x, p, 1, print_line, NULL);
}

static void json_line(void *ctx, const char *line, size_t len)
{
	json_object_array_add(ctx, json_object_new_string_len(line, (int)len));
}

static void print_anomaly(const struct pt_src *s, size_t k,
			  const struct pt_anom *x)
{
	const struct pagetrail_record *r = &x->rec;
	const struct pagetrail_record **h;
	char kinds[200], comm[17];
	size_t i, n;

	pt_kinds_str(r->anomalies, r->anomaly, kinds, sizeof(kinds));
	pt_record_comm(r, comm);
	printf("anomaly %zu: %s seq=%llu pfn=0x%llx role=%s state=%s->%s gen=%u alloc=%u prev_alloc=%u ref=%d ret=%d thread=%s/%u cpu=%u%s\n",
	       k, kinds, (unsigned long long)r->seq, (unsigned long long)r->pfn,
	       pt_role_name(r->role), pt_state_name(r->from_state),
	       pt_state_name(r->to_state), r->generation, r->alloc_seq,
	       r->prev_alloc_seq, r->refcount, r->ret, comm, r->pid, r->cpu,
	       x->in_events ? "" : " (record not in the events read)");
	h = calloc(s->nrec + 1, sizeof(*h));
	n = h ? pt_page_records(s, r->pfn, h, s->nrec) : 0;
	printf("  history (records read, up to this one):\n");
	pt_row_header(stdout);
	for (i = 0; i < n && h[i]->seq <= r->seq; i++)
		pt_row_print(stdout, h[i], s->rec[0].ts_ns);
	free(h);
	if (block_section(x, "  history")) {
		struct kept_ctx k = { s->nrec ? (long long)s->rec[0].ts_ns :
						-1 };

		printf("  history kept by the module with the anomaly (t in ms on the same base):\n");
		for_lines(x, block_section(x, "  history"), 1, print_kept, &k);
	}
	print_stack(x);
}

static struct json_object *anomaly_json(const struct pt_src *s,
					const struct pt_anom *x)
{
	struct json_object *o = pt_row_json(&x->rec),
			   *h = json_object_new_array();
	struct json_object *kept = json_object_new_array(),
			   *st = json_object_new_array();
	const struct pagetrail_record **r = calloc(s->nrec + 1, sizeof(*r));
	size_t n = r ? pt_page_records(s, x->rec.pfn, r, s->nrec) : 0, i;

	for (i = 0; i < n && r[i]->seq <= x->rec.seq; i++)
		json_object_array_add(h, pt_row_json(r[i]));
	free(r);
	for_lines(x, block_section(x, "  history"), 1, json_line, kept);
	for_lines(x, block_section(x, "  stack:"), 1, json_line, st);
	json_object_object_add(o, "in_events",
			       json_object_new_boolean(x->in_events));
	json_object_object_add(o, "history", h);
	/* null: this source keeps no block (a trace); [] : none kept. */
	if (!x->block) {
		json_object_put(kept);
		json_object_put(st);
		kept = NULL;
		st = NULL;
	}
	json_object_object_add(o, "history_kept", kept);
	json_object_object_add(o, "stack", st);
	return o;
}

int pt_cmd_anomalies(int argc, char **argv)
{
	struct pt_srcopt o = { 0 };
	struct pt_analysis a;
	struct pt_src s;
	struct json_object *arr;
	size_t i;
	int r;

	r = pt_srcopt_args(&pt_spec_anomalies, argc, argv, &o);
	if (r >= 0)
		return r;
	if (pt_src_load(&s, &o, 1))
		return 2;
	if (pt_analyze(&a, &s)) {
		pt_src_free(&s);
		return 2;
	}
	if (o.json) {
		struct json_object *top =
			pt_json_new("anomalies", pt_src_json(&s, 1));

		arr = json_object_new_array();
		for (i = 0; i < a.nanom; i++)
			json_object_array_add(arr,
					      anomaly_json(&s, &a.anom[i]));
		json_object_object_add(top, "anomalies", arr);
		pt_json_print(top);
	} else {
		printf("%zu anomal%s (%s)\n", a.nanom,
		       a.nanom == 1 ? "y" : "ies", s.origin);
		for (i = 0; i < a.nanom; i++)
			print_anomaly(&s, i + 1, &a.anom[i]);
	}
	r = a.nanom ? 1 : 0;
	pt_analysis_free(&a);
	pt_src_free(&s);
	return r;
}
