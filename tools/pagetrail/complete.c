// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail help --complete CWORD WORD...: what may stand at WORD[CWORD],
 * one candidate a line, for the bash completion (tools/pagetrail/
 * pagetrail.bash), from the same option tables as --help. Lines starting
 * with '@' ask the shell for its own lists: @file, @dir, @command. The pfns
 * of history come from the source named on the line (a capture, a
 * directory, a trace); the live debugfs is asked only for its pages table,
 * never for events, which reading consumes.
 */
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "opt.h"
#include "records.h"

static const struct pt_opt *opt_of(const struct pt_cmdspec *c, const char *w)
{
	const struct pt_opt *o;

	if (w[0] != '-' || !w[1])
		return NULL;
	for (o = c->opts; o->lng || o->shrt; o++) {
		if (w[1] == '-' && o->lng && !strcmp(w + 2, o->lng))
			return o;
		if (w[1] != '-' && !w[2] && o->shrt == w[1])
			return o;
	}
	return NULL;
}

/* An option's value: a fixed set ("unified|legacy"), else a path. */
static void values(const struct pt_opt *o)
{
	const char *a = o->arg, *p;

	for (p = a; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '|'))
			break;
	if (!*p) {
		for (p = a; *p; p += strcspn(p, "|") + !!p[strcspn(p, "|")])
			printf("%.*s\n", (int)strcspn(p, "|"), p);
		return;
	}
	puts(strstr(a, "DIR") && !strstr(a, "|") ? "@dir" : "@file");
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a,
			   y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* Every pfn of the source: records read, then the pages table. */
static void pfns(const struct pt_srcopt *o)
{
	unsigned long long *v;
	const char *pages, *p;
	struct pt_src s;
	size_t i, n = 0, cap;

	if (pt_src_load(&s, o, o->from || o->trace))
		return;
	pages = pt_src_text(&s, "pages");
	cap = s.nrec + (pages ? strlen(pages) / 8 : 0) + 1;
	v = calloc(cap, sizeof(*v));
	for (i = 0; v && i < s.nrec; i++)
		if (s.rec[i].pfn)
			v[n++] = s.rec[i].pfn;
	for (p = pages; v && p && (p = strstr(p, "pfn=0x")); p += 6)
		if (p == pages || p[-1] == '\n')
			v[n++] = strtoull(p + 4, NULL, 16);
	if (v)
		qsort(v, n, sizeof(*v), cmp_ull);
	for (i = 0; v && i < n; i++)
		if (!i || v[i] != v[i - 1])
			printf("0x%llx\n", v[i]);
	free(v);
	pt_src_free(&s);
}

static void options(const struct pt_cmdspec *c)
{
	const struct pt_opt *o;

	for (o = c->opts; o->lng || o->shrt; o++) {
		if (o->lng)
			printf("--%s\n", o->lng);
		if (o->shrt)
			printf("-%c\n", o->shrt);
	}
	puts("--help\n-h");
}

/* w[0] is the subcommand, w[n] the word being completed. */
static void complete_sub(const struct pt_cmdspec *c, char **w, int n)
{
	const struct pt_opt *o, *want = NULL;
	struct pt_srcopt src = { 0 };
	int i, operands = 0, dashdash = 0;

	for (i = 1; i < n; i++) {
		if (want) {
			if (!strcmp(w[i], "=") && i + 1 < n)
				continue; /* bash splits --opt=VAL at '=' */
			if (!strcmp(w[i], "="))
				break;
			pt_srcopt_set(&src, want->key, w[i]);
			want = NULL;
		} else if (!dashdash && !strcmp(w[i], "--")) {
			dashdash = 1;
		} else if (!dashdash && (o = opt_of(c, w[i]))) {
			want = o->arg ? o : NULL;
		} else if (dashdash || w[i][0] != '-') {
			operands++;
		}
	}
	if (want) {
		values(want);
		return;
	}
	if (w[n][0] == '-' && !dashdash) {
		options(c);
		return;
	}
	if (c->stop_at_operand) { /* capture [--] COMMAND [ARG...] */
		puts(operands ? "@file" : "@command");
		return;
	}
	if (!strcmp(c->name, "history") && !operands)
		pfns(&src);
	else if (!strcmp(c->name, "decode") && !operands)
		puts("@file");
}

int pt_complete(int argc, char **argv)
{
	char *end, *empty = "";
	const struct pt_cmdspec *c;
	char **w = argv + 1;
	long cw;
	int n = argc - 1;
	size_t i;

	if (argc < 2)
		return 2;
	cw = strtol(argv[0], &end, 10);
	if (*end || cw < 1 || cw > n)
		return 2;
	if (cw == n) { /* the cursor after the last word: an empty one */
		w = calloc((size_t)n + 1, sizeof(*w));
		if (!w)
			return 2;
		memcpy(w, argv + 1, (size_t)n * sizeof(*w));
		w[n] = empty;
	}
	if (cw == 1) {
		for (i = 0; pt_specs[i]; i++)
			puts(pt_specs[i]->name);
		puts("help\n--help\n--version");
	} else if (!strcmp(w[1], "help")) {
		for (i = 0; cw == 2 && pt_specs[i]; i++)
			puts(pt_specs[i]->name);
	} else if ((c = pt_cmdspec_find(w[1]))) {
		complete_sub(c, w + 1, (int)cw - 1);
	}
	if (w != argv + 1)
		free(w);
	return 0;
}
