// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail decode [--check] [FILE|-] | --from CAPTURE|DIR | --trace FILE:
 * events.bin as the text lines of debugfs "events". --check also prints,
 * on stderr, "records=N first_seq=A last_seq=B seq_gaps=G" and fails when
 * the sequence is not increasing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "common.h"
#include "opt.h"
#include "records.h"

struct decode_opts {
	struct pt_srcopt src;
	const char *path;
	int check;
};

static int decode_args(int argc, char **argv, struct decode_opts *o)
{
	struct pt_optp p;
	int k;

	pt_opt_init(&p, &pt_spec_decode, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k == PT_KEY_CHECK) {
			o->check = 1;
		} else if (k != PT_OPT_OPERAND) {
			pt_srcopt_set(&o->src, k, p.val);
		} else if (o->path) {
			return pt_usage_err(&pt_spec_decode,
					    "one FILE only, got '%s' too",
					    p.val);
		} else {
			o->path = p.val;
		}
	}
	if (o->path && (o->src.from || o->src.trace))
		return pt_usage_err(&pt_spec_decode,
				    "FILE '%s' and --%s exclude each other",
				    o->path, o->src.from ? "from" : "trace");
	return -1;
}

/* In file order: --check is about the order the module wrote. */
static int print_records(const struct pagetrail_record *rec, size_t n,
			 int check)
{
	struct pt_seqinfo si;
	size_t i;

	for (i = 0; i < n; i++)
		pt_record_print(stdout, &rec[i]);
	pt_seqinfo(rec, n, &si);
	if (!check)
		return 0;
	fprintf(stderr,
		"records=%llu first_seq=%llu last_seq=%llu seq_gaps=%llu\n",
		si.n, si.first, si.last, si.gaps);
	if (si.backwards) {
		pt_err("decode: sequence numbers go backwards");
		return 1;
	}
	return 0;
}

static int decode_bytes(const char *what, const char *data, size_t len,
			int check)
{
	struct pagetrail_record *rec;
	char err[160];
	size_t n;
	int rc;

	if (len >= 18 && !memcmp(data, "pagetrail-capture ", 18)) {
		fprintf(stderr,
			"pagetrail decode: %s is a pagetrail capture, not events.bin: pagetrail decode --from %s\n",
			what, what);
		return 2;
	}
	rc = pt_events_parse(data, len, &rec, &n, err, sizeof(err));
	if (rc) {
		pt_err("decode: %s: %s", what, err);
		return 2;
	}
	rc = print_records(rec, n, check);
	free(rec);
	return rc;
}

/* A capture's or a directory's events.bin as written; a trace's records. */
static int decode_source(const struct decode_opts *o)
{
	const char *data;
	struct pt_src s;
	size_t len;
	int rc;

	if (pt_src_load(&s, &o->src, 1))
		return 2;
	data = pt_src_bytes(&s, "events.bin", &len);
	if (data)
		rc = decode_bytes(s.origin, data, len, o->check);
	else if (s.kind == PT_SRC_TRACE)
		rc = print_records(s.rec, s.nrec, o->check);
	else
		rc = 2;
	if (rc == 2 && !data && s.kind != PT_SRC_TRACE)
		pt_err("decode: %s holds no events.bin", s.origin);
	pt_src_free(&s);
	return rc;
}

int pt_cmd_decode(int argc, char **argv)
{
	struct decode_opts o = { 0 };
	const char *path;
	char *data;
	size_t len;
	int rc;

	rc = decode_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.src.from || o.src.trace)
		return decode_source(&o);
	path = o.path ? o.path : "-";
	rc = pt_read_file(strcmp(path, "-") ? path : "/dev/stdin", &data, &len,
			  1ul << 30);
	if (rc) {
		pt_err("decode: %s: %s", path, strerror(-rc));
		return 2;
	}
	rc = decode_bytes(path, data, len, o.check);
	free(data);
	return rc;
}
