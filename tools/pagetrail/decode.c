// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail decode [--check] [FILE|-]: events.bin as the text lines of
 * debugfs "events". --check also prints, on stderr, "records=N first_seq=A
 * last_seq=B seq_gaps=G" and fails when the sequence is not increasing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"
#include "common.h"
#include "records.h"

static int read_stdin(char **data, size_t *len)
{
	return pt_read_file("/dev/stdin", data, len, 1ul << 30);
}

int pt_cmd_decode(int argc, char **argv)
{
	const char *path = "-";
	struct pagetrail_record *rec;
	struct pt_seqinfo si;
	int check = 0, i, rc;
	char *data, err[160];
	size_t len, n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return pt_err("decode: unknown option %s", argv[i]), 2;
		else
			path = argv[i];
	}
	rc = strcmp(path, "-") ? pt_read_file(path, &data, &len, 1ul << 30) :
				 read_stdin(&data, &len);
	if (rc) {
		pt_err("decode: %s: %s", path, strerror(-rc));
		return 2;
	}
	rc = pt_events_parse(data, len, &rec, &n, err, sizeof(err));
	free(data);
	if (rc) {
		pt_err("decode: %s: %s", path, err);
		return 2;
	}
	/* In file order: --check is about the order the module wrote. */
	for (i = 0; (size_t)i < n; i++)
		pt_record_print(stdout, &rec[i]);
	pt_seqinfo(rec, n, &si);
	free(rec);
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
