// SPDX-License-Identifier: GPL-2.0
/*
 * ptfixture: build a directory shaped like /sys/kernel/debug/pagetrail from
 * a readable fixture file, for the pagetrail command's host tests.
 *
 *   ptfixture FIXTURE OUTDIR
 *
 * Fixture lines: "ev k=v ..." one record in the events text form;
 * "control: LINE", "stats: LINE", "coverage: LINE" copied into those files
 * (stats lines come before the computed ones and so win); "stack SEQ FRAME"
 * a stack frame of the anomaly raised by record SEQ. events.bin, anomalies
 * (history: the chunk's last 8 records) and pages are computed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "records.h"

#define MAXREC 4096

static struct pagetrail_record rec[MAXREC];
static size_t nrec;
static char *stacks[MAXREC];

static FILE *out(const char *dir, const char *name, const char *mode)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, mode);
	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

static void add_stack(const char *line)
{
	unsigned long long seq;
	char frame[256];
	size_t i, l;

	if (sscanf(line, "stack %llu %255[^\n]", &seq, frame) != 2)
		return;
	for (i = 0; i < nrec; i++) {
		if (rec[i].seq != seq)
			continue;
		l = stacks[i] ? strlen(stacks[i]) : 0;
		stacks[i] = realloc(stacks[i], l + strlen(frame) + 8);
		sprintf(stacks[i] + l, "    %s\n", frame);
	}
}

static void write_anomaly(FILE *f, size_t i, unsigned int n)
{
	const struct pagetrail_record *r = &rec[i];
	size_t hist[8], nh = 0, j, k;
	char kinds[256];

	pt_kinds_str(r->anomalies, r->anomaly, kinds, sizeof(kinds));
	fprintf(f,
		"anomaly=%u kind=%s seq=%llu role=%s cause=%s pfn=0x%llx order=%u state=%s->%s gen=%u token=%016llx prev_token=%016llx alloc=%u prev_alloc=%u idx=%u",
		n, kinds, (unsigned long long)r->seq, pt_role_name(r->role),
		pt_cause_name(r->cause), (unsigned long long)r->pfn, r->order,
		pt_state_name(r->from_state), pt_state_name(r->to_state),
		r->generation, (unsigned long long)r->token,
		(unsigned long long)r->prev_token, r->alloc_seq,
		r->prev_alloc_seq, r->index);
	fprintf(f, " ref=%d map=%d head=0x%llx corder=%u pflags=0x%x",
		r->refcount, r->mapcount, (unsigned long long)r->head_pfn,
		r->compound_order, r->page_flags);
	fprintf(f, " ret=%d pid=%u tgid=%u comm=%.16s cpu=%u ts=%llu\n", r->ret,
		r->pid, r->tgid, r->comm, r->cpu, (unsigned long long)r->ts_ns);
	for (j = 0; j <= i; j++) {
		if (rec[j].role == PT_ROLE_MAP ||
		    !pt_record_covers(&rec[j], r->pfn))
			continue;
		if (nh == 8)
			memmove(hist, hist + 1, sizeof(hist[0]) * 7), nh--;
		hist[nh++] = j;
	}
	fprintf(f,
		"  history pfn=0x%llx gen=%u gaps=0 (oldest first, last %zu):\n",
		(unsigned long long)r->pfn, r->generation, nh);
	for (k = 0; k < nh; k++) {
		const struct pagetrail_record *h = &rec[hist[k]];

		fprintf(f,
			"    ts=%llu role=%s cause=%s to=%s gen=%u token=%016llx pid=%u comm=%.16s cpu=%u%s%s%s\n",
			(unsigned long long)h->ts_ns, pt_role_name(h->role),
			pt_cause_name(h->cause), pt_state_name(h->to_state),
			h->generation, (unsigned long long)h->token, h->pid,
			h->comm, h->cpu,
			(h->rflags & PT_RF_GAP) ? " gap=1" : "",
			h->anomaly ? " anomaly=" : "",
			h->anomaly ? pt_anomaly_name(h->anomaly) : "");
	}
	fprintf(f, "  stack:\n%s", stacks[i] ? stacks[i] : "");
}

/* The state table: each chunk as its last pool-side record left it. */
static void write_pages(const char *dir)
{
	FILE *f = out(dir, "pages", "w");
	size_t i, j;

	fputs("# pfn order state gen token prev_token alloc prev_alloc idx gaps anomalies last\n",
	      f);
	for (i = 0; i < nrec; i++) {
		const struct pagetrail_record *r = &rec[i];
		int later = 0;

		if (r->role == PT_ROLE_INSERT || r->role == PT_ROLE_MAP ||
		    r->role == PT_ROLE_VMA)
			continue;
		for (j = i + 1; j < nrec; j++)
			later |= rec[j].pfn == r->pfn &&
				 rec[j].role != PT_ROLE_INSERT &&
				 rec[j].role != PT_ROLE_MAP;
		if (later)
			continue;
		fprintf(f,
			"pfn=0x%llx order=%u state=%s gen=%u token=%016llx prev_token=%016llx alloc=%u prev_alloc=%u idx=%u gaps=0 anomalies=0 last=%s pid=%u comm=%.16s cpu=%u ts=%llu\n",
			(unsigned long long)r->pfn, r->order,
			pt_state_name(r->to_state), r->generation,
			(unsigned long long)r->token,
			(unsigned long long)r->prev_token, r->alloc_seq,
			r->prev_alloc_seq, r->index, pt_role_name(r->role),
			r->pid, r->comm, r->cpu, (unsigned long long)r->ts_ns);
	}
	fclose(f);
}

static void write_outputs(const char *dir, const char *stats_extra)
{
	struct pagetrail_file_header h = { PAGETRAIL_MAGIC,
					   PAGETRAIL_ABI_VERSION,
					   sizeof(h),
					   sizeof(struct pagetrail_record),
					   12,
					   2 };
	FILE *f = out(dir, "events.bin", "wb");
	unsigned int na = 0, gaps = 0;
	size_t i;

	write_pages(dir);
	fwrite(&h, sizeof(h), 1, f);
	fwrite(rec, sizeof(rec[0]), nrec, f);
	fclose(f);
	f = out(dir, "anomalies", "w");
	for (i = 0; i < nrec; i++) {
		gaps += !!(rec[i].rflags & PT_RF_GAP);
		if (rec[i].anomaly)
			write_anomaly(f, i, ++na);
	}
	fclose(f);
	f = out(dir, "stats", "w");
	fputs(stats_extra, f);
	fprintf(f,
		"state=attached\ntarget=nvsim\nprofile=nvidia\nattaches=1\nerror=0\n");
	fprintf(f,
		"ring_produced=%zu\nring_read=%zu\nring_buffered=0\nring_overwritten=0\n"
		"ring_dropped_full=0\nring_dropped_frozen=0\nring_lost=0\nring_unaccounted=0\n",
		nrec, nrec);
	fprintf(f,
		"tracked=%zu\ncapacity=16384\nrecycled=0\ntracker_full=0\ngaps=%u\nanomalies=%u\n"
		"anomalies_dropped=0\nframes_overflow=0\nframes_unbalanced=0\nnv_decode_errors=0\n",
		nrec ? (size_t)1 : (size_t)0, gaps, na);
	fclose(f);
}

int main(int argc, char **argv)
{
	char line[2048], *stats = calloc(1, 1);
	FILE *in, *ctl, *cov;
	size_t sl = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: ptfixture FIXTURE OUTDIR\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 2;
	}
	mkdir(argv[2], 0755);
	ctl = out(argv[2], "control", "w");
	cov = out(argv[2], "coverage", "w");
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "ev ", 3) && nrec < MAXREC) {
			if (pt_record_from_kv(line + 3, &rec[nrec]) < 0) {
				fprintf(stderr, "ptfixture: bad record: %s",
					line);
				return 2;
			}
			/* Fixtures name the first anomaly; its bit follows. */
			if (rec[nrec].anomaly && !rec[nrec].anomalies)
				rec[nrec].anomalies = 1u << rec[nrec].anomaly;
			nrec++;
		} else if (!strncmp(line, "control: ", 9)) {
			fputs(line + 9, ctl);
		} else if (!strncmp(line, "coverage: ", 10)) {
			fputs(line + 10, cov);
		} else if (!strncmp(line, "stats: ", 7)) {
			stats = realloc(stats, sl + strlen(line));
			strcpy(stats + sl, line + 7);
			sl += strlen(line + 7);
		} else if (!strncmp(line, "stack ", 6)) {
			add_stack(line);
		}
	}
	if (!ftell(ctl))
		fputs("state=attached\ntarget=nvsim\nprofile=nvidia\nattaches=1\nerror=0\n"
		      "frozen=0\noverwrite=1\nfreeze_on_anomaly=0\n",
		      ctl);
	fclose(ctl);
	fclose(cov);
	write_outputs(argv[2], stats);
	return 0;
}
