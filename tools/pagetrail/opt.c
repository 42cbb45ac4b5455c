// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: options parsed from each subcommand's table, and its help. */
#include <stdarg.h>
#include <string.h>
#include "opt.h"

static const struct pt_opt pt_opt_help = { "help", 'h', NULL,
					   "this help, then exit 0", 0, 0 };

void pt_opt_init(struct pt_optp *p, const struct pt_cmdspec *c, int argc,
		 char **argv)
{
	memset(p, 0, sizeof(*p));
	p->c = c;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
}

int pt_usage_err(const struct pt_cmdspec *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagetrail %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* --name exactly, else a unique prefix of one (as getopt_long allows). */
static const struct pt_opt *find_long(const struct pt_cmdspec *c,
				      const char *name, size_t len, int *ambig)
{
	const struct pt_opt *o, *hit = NULL;

	*ambig = 0;
	if (len == 4 && !strncmp(name, "help", 4))
		return &pt_opt_help;
	for (o = c->opts; o->lng || o->shrt; o++)
		if (o->lng && strlen(o->lng) == len &&
		    !strncmp(o->lng, name, len))
			return o;
	for (o = c->opts; o->lng || o->shrt; o++) {
		if (!o->lng || strncmp(o->lng, name, len))
			continue;
		*ambig |= hit != NULL;
		hit = o;
	}
	return *ambig ? NULL : hit;
}

static const struct pt_opt *find_short(const struct pt_cmdspec *c, char s)
{
	const struct pt_opt *o;

	if (s == 'h')
		return &pt_opt_help;
	for (o = c->opts; o->lng || o->shrt; o++)
		if (o->shrt == s)
			return o;
	return NULL;
}

static int take_value(struct pt_optp *p, const struct pt_opt *o,
		      const char *inline_val)
{
	if (o == &pt_opt_help) {
		if (inline_val)
			return pt_usage_err(p->c, "--help takes no value"),
			       PT_OPT_ERR;
		pt_help_print(stdout, p->c);
		return PT_OPT_HELP;
	}
	if (!o->arg) {
		if (inline_val)
			return pt_usage_err(p->c, "%s takes no value", p->name),
			       PT_OPT_ERR;
		p->val = NULL;
		return o->key;
	}
	if (inline_val) {
		p->val = inline_val;
		return o->key;
	}
	if (p->i >= p->argc)
		return pt_usage_err(p->c, "%s needs a value (%s)", p->name,
				    o->arg),
		       PT_OPT_ERR;
	p->val = p->argv[p->i++];
	return o->key;
}

static int long_opt(struct pt_optp *p, const char *a)
{
	const char *eq = strchr(a + 2, '=');
	size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	const struct pt_opt *o;
	int ambig;

	o = find_long(p->c, a + 2, len, &ambig);
	if (!o)
		return pt_usage_err(p->c,
				    "%s option %.*s (pagetrail %s --help)",
				    ambig ? "ambiguous" : "unknown", (int)len + 2,
				    a, p->c->name),
		       PT_OPT_ERR;
	p->name = a;
	if (eq) {
		static char name[64];

		snprintf(name, sizeof(name), "--%s", o->lng);
		p->name = name;
	}
	return take_value(p, o, eq ? eq + 1 : NULL);
}

static int short_opt(struct pt_optp *p, const char *a)
{
	const struct pt_opt *o = find_short(p->c, a[1]);

	if (!o)
		return pt_usage_err(p->c, "unknown option -%c (pagetrail %s --help)",
				    a[1], p->c->name),
		       PT_OPT_ERR;
	p->name = a;
	if (a[2] && !o->arg && o != &pt_opt_help)
		return pt_usage_err(p->c, "-%c takes no value", a[1]),
		       PT_OPT_ERR;
	return take_value(p, o, a[2] ? a + 2 : NULL);
}

int pt_opt_next(struct pt_optp *p)
{
	const char *a;

	if (p->i >= p->argc || p->stopped)
		return PT_OPT_END;
	a = p->argv[p->i++];
	p->val = a;
	if (p->operands_only || a[0] != '-' || !a[1] ||
	    (a[1] >= '0' && a[1] <= '9')) {
		if (p->c->stop_at_operand)
			p->stopped = 1;
		return PT_OPT_OPERAND;
	}
	if (!strcmp(a, "--")) {
		p->operands_only = 1;
		if (p->c->stop_at_operand && p->i < p->argc) {
			p->val = p->argv[p->i++];
			p->stopped = 1;
			return PT_OPT_OPERAND;
		}
		return pt_opt_next(p);
	}
	return a[1] == '-' ? long_opt(p, a) : short_opt(p, a);
}
