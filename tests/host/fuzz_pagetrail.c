// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for every parser of the pagetrail command. The first
 * input byte picks the parser, the rest is its input:
 *   0  capture container (capfile.c)
 *   1  events.bin (records.c)
 *   2  key=value record line (records.c), as in debugfs events/anomalies
 *   3  a capture file through the whole diagnose/anomalies/history/evidence
 *      path, as a user's --from would take it (anomalies text, stats,
 *      coverage and pages parsing included)
 *   4  a trace.dat through --trace
 * Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/host/pagetrail_fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capfile.h"
#include "cmds.h"
#include "common.h"
#include "records.h"

static char path[64];
static char evdir[80];

static void fuzz_capfile(const uint8_t *d, size_t n)
{
	struct pt_src s;
	char err[160];

	memset(&s, 0, sizeof(s));
	pt_cap_parse(&s, (const char *)d, n, err, sizeof(err));
	pt_src_free(&s);
}

static void fuzz_events(const uint8_t *d, size_t n)
{
	struct pagetrail_record *r;
	struct pt_seqinfo si;
	char err[160];
	size_t cnt, i;

	if (pt_events_parse(d, n, &r, &cnt, err, sizeof(err)))
		return;
	pt_records_sort(r, cnt);
	pt_seqinfo(r, cnt, &si);
	for (i = 0; i < cnt && i < 4; i++)
		pt_record_print(stdout, &r[i]);
	free(r);
}

static void fuzz_kv(const uint8_t *d, size_t n)
{
	struct pagetrail_record r;
	char *line = malloc(n + 1);

	if (!line)
		return;
	memcpy(line, d, n);
	line[n] = '\0';
	memset(&r, 0, sizeof(r));
	pt_record_from_kv(line, &r);
	free(line);
}

static int write_input(const char *p, const uint8_t *d, size_t n)
{
	FILE *f = fopen(p, "wb");

	if (!f)
		return -1;
	if (n)
		fwrite(d, 1, n, f);
	return fclose(f);
}

static void fuzz_commands(const uint8_t *d, size_t n, const char *opt)
{
	char *diag[] = { "diagnose", (char *)opt, path, NULL };
	char *anom[] = { "anomalies", (char *)opt, path, "--json", NULL };
	char *hist[] = { "history", "0x11a40", (char *)opt, path, NULL };
	char *stat[] = { "status", (char *)opt, path, NULL };
	char *evid[] = { "evidence", "-o", evdir, (char *)opt, path, NULL };

	if (write_input(path, d, n))
		return;
	pt_cmd_diagnose(3, diag);
	pt_cmd_anomalies(4, anom);
	pt_cmd_history(4, hist);
	pt_cmd_status(3, stat);
	pt_cmd_evidence(5, evid);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "/tmp/pt-fuzz-%d.in", (int)getpid());
	snprintf(evdir, sizeof(evdir), "/tmp/pt-fuzz-%d.ev", (int)getpid());
	/* The commands print: run with -close_fd_mask=3, libFuzzer keeps its own stderr. */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n < 1)
		return 0;
	switch (d[0] % 5) {
	case 0:
		fuzz_capfile(d + 1, n - 1);
		break;
	case 1:
		fuzz_events(d + 1, n - 1);
		break;
	case 2:
		fuzz_kv(d + 1, n - 1);
		break;
	case 3:
		fuzz_commands(d + 1, n - 1, "--from");
		break;
	case 4:
		fuzz_commands(d + 1, n - 1, "--trace");
		break;
	}
	return 0;
}
