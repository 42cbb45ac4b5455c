// SPDX-License-Identifier: GPL-2.0
/* pagetrail history PFN [--json]: one page's life, oldest first, from the records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "analyze.h"
#include "opt.h"

static int parse_pfn(const char *a, unsigned long long *pfn)
{
	char *end;

	errno = 0;
	*pfn = strtoull(a, &end, 0);
	return (errno || end == a || *end || a[0] == '-') ? -1 : 0;
}

static void print_json(const struct pt_src *s, unsigned long long pfn,
		       const struct pagetrail_record **r, size_t n)
{
	struct json_object *o = pt_json_new("history", pt_src_json(s, 1)),
			   *a = json_object_new_array();
	char buf[32];
	size_t i;

	snprintf(buf, sizeof(buf), "0x%llx", pfn);
	json_object_object_add(o, "pfn", json_object_new_string(buf));
	for (i = 0; i < n; i++)
		json_object_array_add(a, pt_row_json(r[i]));
	json_object_object_add(o, "records", a);
	pt_json_print(o);
}

int pt_cmd_history(int argc, char **argv)
{
	const struct pagetrail_record **r;
	struct pt_srcopt o = { 0 };
	unsigned long long pfn = 0;
	int i, k, have = 0;
	struct pt_optp p;
	struct pt_src s;
	size_t n;

	pt_opt_init(&p, &pt_spec_history, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k != PT_OPT_OPERAND) {
			pt_srcopt_set(&o, k, p.val);
			continue;
		}
		if (have)
			return pt_usage_err(&pt_spec_history,
					    "one PFN only, got '%s' too",
					    p.val);
		if (parse_pfn(p.val, &pfn))
			return pt_usage_err(&pt_spec_history,
					    "'%s' is not a PFN (0x... or decimal)",
					    p.val);
		have = 1;
	}
	if (!have)
		return pt_usage_err(&pt_spec_history,
				    "which page? a PFN is required (pagetrail history --help)");
	if (pt_src_load(&s, &o, 1))
		return 2;
	r = calloc(s.nrec + 1, sizeof(*r));
	n = r ? pt_page_records(&s, pfn, r, s.nrec) : 0;
	if (o.json) {
		print_json(&s, pfn, r, n);
	} else {
		printf("history of pfn 0x%llx (%s): %zu %s, oldest first\n",
		       pfn, s.origin, n, pt_pl((long long)n, "record", "records"));
		if (n) {
			pt_row_header(stdout);
			for (i = 0; (size_t)i < n; i++)
				pt_row_print(stdout, r[i], s.rec[0].ts_ns);
		}
	}
	free(r);
	pt_src_free(&s);
	return n ? 0 : 1;
}
