// SPDX-License-Identifier: GPL-2.0
/* pagetrail history PFN [--json]: one page's life, oldest first, from the records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "analyze.h"

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
	struct json_object *o = json_object_new_object(),
			   *a = json_object_new_array();
	char buf[32];
	size_t i;

	snprintf(buf, sizeof(buf), "0x%llx", pfn);
	json_object_object_add(o, "source", json_object_new_string(s->origin));
	json_object_object_add(o, "pfn", json_object_new_string(buf));
	for (i = 0; i < n; i++)
		json_object_array_add(a, pt_row_json(r[i]));
	json_object_object_add(o, "records", a);
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int pt_cmd_history(int argc, char **argv)
{
	const struct pagetrail_record **r;
	struct pt_srcopt o = { 0 };
	unsigned long long pfn = 0;
	int i, rc, have = 0;
	struct pt_src s;
	size_t n;

	for (i = 1; i < argc; i++) {
		rc = pt_srcopt_parse(&o, argc, argv, &i);
		if (rc < 0)
			return 2;
		if (rc)
			continue;
		if (have || parse_pfn(argv[i], &pfn)) {
			pt_err("history: expected one PFN (0x... or decimal), got %s",
			       argv[i]);
			return 2;
		}
		have = 1;
	}
	if (!have) {
		pt_err("usage: pagetrail history PFN [--json] [--from FILE|--trace FILE]");
		return 2;
	}
	if (pt_src_load(&s, &o, 1))
		return 2;
	r = calloc(s.nrec + 1, sizeof(*r));
	n = r ? pt_page_records(&s, pfn, r, s.nrec) : 0;
	if (o.json) {
		print_json(&s, pfn, r, n);
	} else {
		printf("history of pfn 0x%llx (%s): %zu records, oldest first\n",
		       pfn, s.origin, n);
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
