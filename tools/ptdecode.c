// SPDX-License-Identifier: GPL-2.0
/*
 * ptdecode: decode pagetrail's events.bin into the text form of debugfs
 * "events" (one key=value line per record), checking the header and the
 * record sequence on the way.
 *
 *   ptdecode [--check] [FILE|-]
 *
 * --check also prints, on stderr, "records=N first_seq=A last_seq=B
 * seq_gaps=G" and fails when the sequence is not increasing. A gap in seq
 * means records the ring lost (or another reader consumed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uapi/pagetrail.h>
#include <uapi/pagetrail_text.h>

#define NAME(s, n, d) n,
static const char *const role_names[] = { PAGETRAIL_ROLES(NAME) };
static const char *const state_names[] = { PAGETRAIL_STATES(NAME) };
static const char *const anomaly_names[] = { PAGETRAIL_ANOMALIES(NAME) };
static const char *const cause_names[] = { PAGETRAIL_CAUSES(NAME) };
#undef NAME

#define LOOKUP(tbl, i) ((i) < sizeof(tbl) / sizeof(tbl[0]) ? tbl[i] : "unknown")

static const char *pt_role_name(unsigned int i) { return LOOKUP(role_names, i); }
static const char *pt_state_name(unsigned int i) { return LOOKUP(state_names, i); }
static const char *pt_anomaly_name(unsigned int i) { return LOOKUP(anomaly_names, i); }
static const char *pt_cause_name(unsigned int i) { return LOOKUP(cause_names, i); }

static int read_full(FILE *f, void *buf, size_t len)
{
	size_t n = fread(buf, 1, len, f);

	if (n == len)
		return 1;
	if (n == 0 && feof(f))
		return 0;
	return -1;
}

static int skip(FILE *f, size_t len)
{
	char buf[256];
	size_t n;

	while (len) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		if (read_full(f, buf, n) != 1)
			return -1;
		len -= n;
	}
	return 0;
}

static int check_header(const struct pagetrail_file_header *h)
{
	if (h->magic != PAGETRAIL_MAGIC) {
		fprintf(stderr, "ptdecode: not a pagetrail events.bin (magic 0x%08x)\n", h->magic);
		return -1;
	}
	if (h->version != PAGETRAIL_ABI_VERSION) {
		fprintf(stderr, "ptdecode: ABI version %u, this tool reads %u\n", h->version,
			PAGETRAIL_ABI_VERSION);
		return -1;
	}
	if (h->header_size < sizeof(*h) || h->record_size < sizeof(struct pagetrail_record)) {
		fprintf(stderr, "ptdecode: header_size %u / record_size %u too small\n",
			h->header_size, h->record_size);
		return -1;
	}
	return 0;
}

static void print_record(const struct pagetrail_record *r)
{
	char comm[sizeof(r->comm) + 1];
	char *c;

	memcpy(comm, r->comm, sizeof(r->comm));
	comm[sizeof(r->comm)] = '\0';
	for (c = comm; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == '=' || (unsigned char)*c >= 0x7f)
			*c = '_';
	printf(PAGETRAIL_TEXT_FMT, PAGETRAIL_TEXT_ARGS(r, comm));
}

int main(int argc, char **argv)
{
	struct pagetrail_file_header h;
	struct pagetrail_record rec;
	unsigned long long n = 0, first = 0, last = 0, gaps = 0;
	const char *path = "-";
	int check = 0, bad = 0, i, rc;
	FILE *f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check = 1;
		else
			path = argv[i];
	}
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "ptdecode: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (read_full(f, &h, sizeof(h)) != 1) {
		fprintf(stderr, "ptdecode: %s: too short for a header\n", path);
		return 1;
	}
	if (check_header(&h))
		return 1;
	/* Skip header and record bytes beyond what this version knows. */
	if (skip(f, h.header_size - sizeof(h))) {
		fprintf(stderr, "ptdecode: truncated header\n");
		return 1;
	}
	while ((rc = read_full(f, &rec, sizeof(rec))) == 1) {
		if (skip(f, h.record_size - sizeof(rec))) {
			rc = -1;
			break;
		}
		if (n == 0)
			first = rec.seq;
		else if (rec.seq <= last)
			bad = 1;
		else
			gaps += rec.seq - last - 1;
		last = rec.seq;
		n++;
		print_record(&rec);
	}
	if (rc < 0) {
		fprintf(stderr, "ptdecode: truncated record after %llu records\n", n);
		return 1;
	}
	if (check) {
		fprintf(stderr, "records=%llu first_seq=%llu last_seq=%llu seq_gaps=%llu\n", n, first,
			last, gaps);
		if (bad) {
			fprintf(stderr, "ptdecode: sequence numbers go backwards\n");
			return 1;
		}
	}
	return 0;
}
