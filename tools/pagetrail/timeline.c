// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail timeline -o FILE.svg: the flagged pages' lives as a picture.
 * One lane per page with a finding (or an anomaly), its transitions in
 * sequence order on a shared axis, coloured by role, the thread under each,
 * anomalies ringed in red with their kind.
 */
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "analyze.h"
#include "opt.h"

#define PT_TL_MAX_LANES 8
#define PT_TL_MAX_COLS 40
#define COL_W 118
#define LANE_H 140
#define LEFT 190
#define TOP_Y 70

static const char *role_colour(unsigned int role)
{
	static const char *const c[PT_ROLE_MAX] = {
		[PT_ROLE_ADMIT] = "#2f7ed8",   [PT_ROLE_SCRUB] = "#8bbc21",
		[PT_ROLE_TAKE] = "#910000",    [PT_ROLE_ASSIGN] = "#1aadce",
		[PT_ROLE_RECLAIM] = "#492970", [PT_ROLE_FREE] = "#f28f43",
		[PT_ROLE_RELEASE] = "#77a1e5", [PT_ROLE_ALLOC] = "#c42525",
		[PT_ROLE_MAP] = "#a6c96a",     [PT_ROLE_INSERT] = "#0d233a",
		[PT_ROLE_VMA] = "#999999",     [PT_ROLE_DENY] = "#666666",
	};

	return role < PT_ROLE_MAX && c[role] ? c[role] : "#999999";
}

/* Text for SVG: XML's five specials escaped, nothing else passes unescaped. */
static void xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

struct lane {
	unsigned long long pfn;
	const char *klass;
};

static size_t pick_lanes(const struct pt_analysis *a, struct lane *l)
{
	size_t n = 0, i, j;

	for (i = 0; i < a->nfind + a->nanom && n < PT_TL_MAX_LANES; i++) {
		unsigned long long pfn = i < a->nfind ?
						 a->find[i].pfn :
						 a->anom[i - a->nfind].rec.pfn;
		int dup = 0;

		for (j = 0; j < n; j++)
			dup |= l[j].pfn == pfn;
		if (dup)
			continue;
		l[n].pfn = pfn;
		l[n++].klass = i < a->nfind ? a->find[i].klass : "anomaly";
	}
	return n;
}

/* The shared axis: every record of any lane, by seq, at most the last COLS. */
static size_t columns(const struct pt_src *s, const struct lane *l, size_t nl,
		      const struct pagetrail_record **col)
{
	size_t n = 0, i, j;

	for (i = 0; i < s->nrec; i++) {
		for (j = 0; j < nl; j++)
			if (pt_record_covers(&s->rec[i], l[j].pfn))
				break;
		if (j == nl)
			continue;
		if (n == PT_TL_MAX_COLS) {
			memmove(col, col + 1,
				sizeof(*col) * (PT_TL_MAX_COLS - 1));
			n--;
		}
		col[n++] = &s->rec[i];
	}
	return n;
}

/* Labels alternate between two rows so that neighbours never overlap. */
static void event(FILE *f, const struct pagetrail_record *r, double x, double y,
		  int odd)
{
	char comm[17], kinds[160], buf[48], ref[16] = "";
	double dy = odd ? 14 : 0;

	pt_record_comm(r, comm);
	if (pt_record_kinds(r) & ~1u) {
		fprintf(f,
			"<circle cx='%.0f' cy='%.0f' r='17' fill='none' stroke='#e00000' stroke-width='4'/>\n",
			x, y);
		pt_kinds_str(r->anomalies, r->anomaly, kinds, sizeof(kinds));
		fprintf(f, "<text x='%.0f' y='%.0f' class='an'>", x,
			y + 58 + dy);
		xml(f, kinds);
		fputs("</text>\n", f);
	}
	fprintf(f, "<circle cx='%.0f' cy='%.0f' r='11' fill='%s'/>\n", x, y,
		role_colour(r->role));
	fprintf(f, "<text x='%.0f' y='%.0f' class='role'>%s</text>\n", x,
		y - 20, pt_role_name(r->role));
	snprintf(buf, sizeof(buf), "%s/%u", comm, r->pid);
	fprintf(f, "<text x='%.0f' y='%.0f' class='thr'>", x, y + 30 + dy);
	xml(f, buf);
	if (r->rflags & PT_RF_SAMPLED)
		snprintf(ref, sizeof(ref), " ref %d", r->refcount);
	fprintf(f,
		"</text>\n<text x='%.0f' y='%.0f' class='seq'>#%llu%s</text>\n",
		x, y - 34, (unsigned long long)r->seq, ref);
}

static void legend(FILE *f, double y)
{
	unsigned int i;
	double x = 20;

	for (i = 1; i < PT_ROLE_MAX; i++) {
		fprintf(f,
			"<circle cx='%.0f' cy='%.0f' r='7' fill='%s'/><text x='%.0f' y='%.0f' class='leg'>%s</text>\n",
			x, y, role_colour(i), x + 11, y + 4, pt_role_name(i));
		x += 84;
	}
	fprintf(f,
		"<circle cx='%.0f' cy='%.0f' r='9' fill='none' stroke='#e00000' stroke-width='3'/><text x='%.0f' y='%.0f' class='leg'>anomaly</text>\n",
		x, y, x + 13, y + 4);
}

static int draw(FILE *f, const struct pt_src *s, const struct lane *l,
		size_t nl)
{
	const struct pagetrail_record *col[PT_TL_MAX_COLS];
	size_t nc = columns(s, l, nl, col), i, j;
	double w = LEFT + COL_W * (nc ? nc : 1) + 40,
	       h = TOP_Y + LANE_H * nl + 70;

	if (w < 1200)
		w = 1200;
	fprintf(f,
		"<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' viewBox='0 0 %.0f %.0f'>\n",
		w, h, w, h);
	fputs("<style>text{font-family:sans-serif;font-size:11px;text-anchor:middle}"
	      ".role{font-weight:bold}.thr{fill:#333}.seq{fill:#777;font-size:9px}"
	      ".an{fill:#e00000;font-weight:bold;font-size:10px}.lane{text-anchor:start;font-size:13px;font-weight:bold}"
	      ".leg{text-anchor:start}.title{text-anchor:start;font-size:15px;font-weight:bold}</style>\n",
	      f);
	fprintf(f,
		"<rect width='100%%' height='100%%' fill='white'/>\n<text x='20' y='26' class='title'>pagetrail timeline: %zu page%s, %zu transition%s in sequence order</text>\n",
		nl, nl == 1 ? "" : "s", nc, nc == 1 ? "" : "s");
	for (j = 0; j < nl; j++) {
		double y = TOP_Y + 50 + LANE_H * j;

		fprintf(f,
			"<line x1='%d' y1='%.0f' x2='%.0f' y2='%.0f' stroke='#ccc' stroke-width='2'/>\n",
			LEFT - 10, y, w - 20, y);
		fprintf(f,
			"<text x='14' y='%.0f' class='lane'>pfn 0x%llx</text><text x='14' y='%.0f' class='lane' style='fill:#e00000'>",
			y - 4, l[j].pfn, y + 14);
		xml(f, l[j].klass);
		fputs("</text>\n", f);
		for (i = 0; i < nc; i++)
			if (pt_record_covers(col[i], l[j].pfn))
				event(f, col[i], LEFT + COL_W * (i + 0.5), y,
				      (int)(i & 1));
	}
	legend(f, h - 24);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

int pt_cmd_timeline(int argc, char **argv)
{
	struct pt_srcopt o = { 0 };
	struct lane l[PT_TL_MAX_LANES];
	const char *out = NULL;
	struct pt_analysis a;
	struct pt_src s;
	size_t nl;
	struct pt_optp p;
	int r, k;
	FILE *f;

	pt_opt_init(&p, &pt_spec_timeline, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k == PT_OPT_OPERAND)
			return pt_usage_err(&pt_spec_timeline,
					    "unexpected argument '%s' (the picture goes to -o FILE.svg)",
					    p.val);
		if (k == 'o')
			out = p.val;
		else
			pt_srcopt_set(&o, k, p.val);
	}
	if (!out)
		return pt_usage_err(&pt_spec_timeline,
				    "-o FILE.svg is required (where the picture goes)");
	if (pt_src_load(&s, &o, 1))
		return 2;
	if (pt_analyze(&a, &s)) {
		pt_src_free(&s);
		return 2;
	}
	nl = pick_lanes(&a, l);
	f = fopen(out, "w");
	r = f ? draw(f, &s, l, nl) : -1;
	if (!f || fclose(f) || r) {
		pt_err("timeline: cannot write %s", out);
		r = -1;
	}
	if (!r)
		fprintf(stderr, "pagetrail: timeline of %zu page%s in %s\n", nl,
			nl == 1 ? "" : "s", out);
	pt_analysis_free(&a);
	pt_src_free(&s);
	return r ? 2 : 0;
}
