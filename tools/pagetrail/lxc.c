// SPDX-License-Identifier: GPL-2.0
/* pagetrail devices/denials: parse LXC device rules, devices.list, /proc/devices. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "lxc.h"

#define PT_LINE_MAX 4096

static const struct pt_devrule pt_rule_default_allow = {
	.type = 'a',
	.major = PT_ANY,
	.minor = PT_ANY,
	.access = PT_ACC_M | PT_ACC_R | PT_ACC_W,
	.allow = true,
	.text = "(no allow-list: everything not denied is allowed)",
};

static int pt_err(struct pt_parse_error *err, int line, int col,
		  const char *msg, const char *arg)
{
	err->line = line;
	err->col = col;
	snprintf(err->msg, sizeof(err->msg), msg, arg ? arg : "");
	return -1;
}

static int pt_number_or_any(const char **p, long max, int *out)
{
	char *end;
	long v;

	if (**p == '*') {
		(*p)++;
		*out = PT_ANY;
		return 0;
	}
	if (!isdigit((unsigned char)**p))
		return -1;
	v = strtol(*p, &end, 10);
	if (v > max)
		return -2;
	*p = end;
	*out = (int)v;
	return 0;
}

/*
 * "a" | "TYPE MAJOR:MINOR [ACCESS]" as the kernel's devices.allow and
 * LXC's devices.allow/deny take it; base is the column of s[0] on the line.
 */
static int pt_rule_parse(const char *s, int line, int base,
			 struct pt_devrule *r, struct pt_parse_error *err)
{
	const char *p = s;
	char bad[2] = { 0, 0 };
	int rc;

	r->type = *p;
	r->major = r->minor = PT_ANY;
	r->access = PT_ACC_M | PT_ACC_R | PT_ACC_W;
	if (!*p)
		return pt_err(
			err, line, base,
			"empty device rule: expected 'a' or 'c MAJOR:MINOR ACCESS'",
			NULL);
	if (!strchr("abc", *p) || (p[1] && !isspace((unsigned char)p[1]))) {
		bad[0] = *p;
		return pt_err(err, line, base,
			      "device type must be a, b or c, not '%s'", bad);
	}
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		if (r->type == 'a')
			return 0;
		return pt_err(err, line, base + (int)(p - s),
			      "expected MAJOR:MINOR after the device type",
			      NULL);
	}
	rc = pt_number_or_any(&p, 4095, &r->major);
	if (rc)
		return pt_err(err, line, base + (int)(p - s),
			      rc == -2 ? "major out of range (0..4095)%s" :
					 "major must be a number or *",
			      NULL);
	if (*p != ':')
		return pt_err(err, line, base + (int)(p - s),
			      "expected ':' between major and minor", NULL);
	p++;
	rc = pt_number_or_any(&p, 1048575, &r->minor);
	if (rc)
		return pt_err(err, line, base + (int)(p - s),
			      rc == -2 ? "minor out of range (0..1048575)%s" :
					 "minor must be a number or *",
			      NULL);
	if (*p && !isspace((unsigned char)*p)) {
		bad[0] = *p;
		return pt_err(err, line, base + (int)(p - s),
			      "unexpected '%s' after the minor", bad);
	}
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	r->access = 0;
	for (; *p && !isspace((unsigned char)*p); p++) {
		if (*p == 'r')
			r->access |= PT_ACC_R;
		else if (*p == 'w')
			r->access |= PT_ACC_W;
		else if (*p == 'm')
			r->access |= PT_ACC_M;
		else {
			bad[0] = *p;
			return pt_err(err, line, base + (int)(p - s),
				      "access letters are r, w and m, not '%s'",
				      bad);
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return pt_err(err, line, base + (int)(p - s),
			      "unexpected text after the access letters", NULL);
	return 0;
}

/*
 * One line without its newline into buf (PT_LINE_MAX): 1 read, 0 end of
 * file, -1 an error in err (a NUL byte, a line too long).
 */
static int pt_read_line(FILE *f, char *buf, int line,
			struct pt_parse_error *err)
{
	size_t n = 0;
	int c;

	while ((c = fgetc(f)) != EOF && c != '\n') {
		if (!c)
			return pt_err(err, line, (int)n + 1,
				      "NUL byte in the line", NULL);
		if (n == PT_LINE_MAX - 1)
			return pt_err(err, line, PT_LINE_MAX,
				      "line longer than 4095 characters", NULL);
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return c == EOF && !n ? 0 : 1;
}

static int pt_policy_add_rule(struct pt_policy *pol, const struct pt_devrule *r)
{
	struct pt_devrule *n =
		realloc(pol->rules, (pol->nr_rules + 1) * sizeof(*n));

	if (!n)
		return -1;
	pol->rules = n;
	pol->rules[pol->nr_rules++] = *r;
	return 0;
}

static int pt_policy_add_mount(struct pt_policy *pol, const char *v, int line,
			       int base, struct pt_parse_error *err)
{
	char src[256], dst[256], fs[64], opts[256];
	struct pt_mount *n;

	if (sscanf(v, "%255s %255s %63s %255s", src, dst, fs, opts) != 4)
		return pt_err(
			err, line, base,
			"lxc.mount.entry needs SOURCE TARGET FSTYPE OPTIONS",
			NULL);
	n = realloc(pol->mounts, (pol->nr_mounts + 1) * sizeof(*n));
	if (!n)
		return -1;
	pol->mounts = n;
	n = &pol->mounts[pol->nr_mounts++];
	snprintf(n->src, sizeof(n->src), "%s", src);
	snprintf(n->dst, sizeof(n->dst), "%s", dst);
	n->line = line;
	return 0;
}

static char *pt_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/*
 * An allow-list ("deny a" then allows, or allows only) denies what it does
 * not list; a deny-list ("allow a" then denies, or denies only) allows it.
 */
static void pt_policy_finish(struct pt_policy *pol)
{
	bool any_allow = false;
	size_t i;

	pol->default_allow = true;
	for (i = 0; i < pol->nr_rules; i++) {
		const struct pt_devrule *r = &pol->rules[i];

		if (r->type == 'a' && r->major == PT_ANY && r->minor == PT_ANY)
			pol->default_allow = r->allow;
		else if (r->allow)
			any_allow = true;
	}
	if (any_allow && pol->default_allow) {
		/* allows without "deny a": the base config's deny is implied */
		pol->default_allow = false;
		for (i = 0; i < pol->nr_rules; i++)
			if (pol->rules[i].type == 'a' && pol->rules[i].allow &&
			    pol->rules[i].access ==
				    (PT_ACC_M | PT_ACC_R | PT_ACC_W))
				pol->default_allow = true;
	}
}

int pt_lxc_parse(FILE *f, struct pt_policy *pol, struct pt_parse_error *err)
{
	static const struct {
		const char *key;
		enum pt_rule_syntax syn;
		bool allow;
	} keys[] = {
		{ "lxc.cgroup2.devices.allow", PT_SYN_LXC_V2, true },
		{ "lxc.cgroup2.devices.deny", PT_SYN_LXC_V2, false },
		{ "lxc.cgroup.devices.allow", PT_SYN_LXC_V1, true },
		{ "lxc.cgroup.devices.deny", PT_SYN_LXC_V1, false },
	};
	char buf[PT_LINE_MAX], sep = 0;
	int line = 0, seen_v1 = 0, seen_v2 = 0, rc;

	memset(pol, 0, sizeof(*pol));
	while ((rc = pt_read_line(f, buf, line + 1, err)) > 0) {
		char *s, *eq, *key, *val, lsep;
		struct pt_devrule r = { 0 };
		size_t i;

		line++;
		s = buf;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		if (*s == '[')
			break; /* Proxmox: snapshot sections follow the live config */
		key = s;
		while (isalnum((unsigned char)*s) || strchr("._-", *s))
			s++;
		if (s == key)
			return pt_err(
				err, line, (int)(s - buf) + 1,
				"expected a key (like lxc.cgroup2.devices.allow)",
				NULL);
		eq = s;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '=' && *s != ':')
			return pt_err(
				err, line, (int)(s - buf) + 1,
				"expected '=' (LXC) or ':' (Proxmox) after the key",
				NULL);
		lsep = *s;
		if (!sep)
			sep = lsep;
		*eq = '\0';
		val = s + 1;
		while (isspace((unsigned char)*val))
			val++;
		pt_trim(val);
		if (!strcmp(key, "lxc.mount.entry")) {
			if (pt_policy_add_mount(pol, val, line,
						(int)(val - buf) + 1, err))
				return -1;
			continue;
		}
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strcmp(key, keys[i].key))
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			continue; /* not about devices */
		if (pt_rule_parse(val, line, (int)(val - buf) + 1, &r, err))
			return -1;
		r.allow = keys[i].allow;
		r.syntax = keys[i].syn;
		r.line = line;
		snprintf(r.text, sizeof(r.text), "%.60s%s %.160s", key,
			 lsep == ':' ? ":" : " =", val);
		if (r.syntax == PT_SYN_LXC_V1)
			seen_v1 = 1;
		else
			seen_v2 = 1;
		if (pt_policy_add_rule(pol, &r))
			return pt_err(err, line, 1, "out of memory", NULL);
	}
	if (rc < 0)
		return -1;
	pol->syntax = seen_v1 && !seen_v2 ? PT_SYN_LXC_V1 : PT_SYN_LXC_V2;
	pol->sep = sep ? sep : '=';
	pt_policy_finish(pol);
	return 0;
}

/* cgroup v1 devices.list: the allowed exceptions, one rule a line. */
int pt_devlist_parse(FILE *f, struct pt_policy *pol, struct pt_parse_error *err)
{
	char buf[PT_LINE_MAX];
	int line = 0, rc;

	memset(pol, 0, sizeof(*pol));
	pol->syntax = PT_SYN_V1_LIST;
	while ((rc = pt_read_line(f, buf, line + 1, err)) > 0) {
		struct pt_devrule r = { 0 };
		char *s = pt_trim(buf);

		line++;
		if (!*s)
			continue;
		if (pt_rule_parse(s, line, (int)(s - buf) + 1, &r, err))
			return -1;
		r.allow = true;
		r.syntax = PT_SYN_V1_LIST;
		r.line = line;
		snprintf(r.text, sizeof(r.text), "%.200s", s);
		if (pt_policy_add_rule(pol, &r))
			return pt_err(err, line, 1, "out of memory", NULL);
	}
	if (rc < 0)
		return -1;
	/* devices.list shows "a *:* rwm" for an unrestricted cgroup */
	pol->default_allow = false;
	return 0;
}

void pt_policy_free(struct pt_policy *pol)
{
	free(pol->rules);
	free(pol->mounts);
	memset(pol, 0, sizeof(*pol));
}

static bool pt_rule_matches(const struct pt_devrule *r, char type, int major,
			    int minor)
{
	return (r->type == 'a' || r->type == type) &&
	       (r->major == PT_ANY || r->major == major) &&
	       (r->minor == PT_ANY || r->minor == minor);
}

const struct pt_devrule *pt_policy_allows(const struct pt_policy *pol,
					  char type, int major, int minor,
					  unsigned int access)
{
	const struct pt_devrule *admit = NULL;
	size_t i;

	for (i = 0; i < pol->nr_rules; i++) {
		const struct pt_devrule *r = &pol->rules[i];

		if (!pt_rule_matches(r, type, major, minor))
			continue;
		if (!r->allow && (r->access & access) &&
		    !(r->type == 'a' && r->major == PT_ANY &&
		      r->minor == PT_ANY))
			return NULL; /* a specific deny wins */
		if (r->allow && (access & ~r->access) == 0 && !admit)
			admit = r;
	}
	if (admit)
		return admit;
	return pol->default_allow ? &pt_rule_default_allow : NULL;
}

const char *pt_access_str(unsigned int access, char *buf)
{
	char *p = buf;

	if (access & PT_ACC_R)
		*p++ = 'r';
	if (access & PT_ACC_W)
		*p++ = 'w';
	if (access & PT_ACC_M)
		*p++ = 'm';
	*p = '\0';
	return buf;
}

void pt_rule_format(enum pt_rule_syntax syn, char sep, char type, int major,
		    int minor, unsigned int access, char *buf, size_t len)
{
	const char *eq = sep == ':' ? ":" : " =";
	char maj[16], min[16], acc[4];

	snprintf(maj, sizeof(maj), major == PT_ANY ? "*" : "%d", major);
	snprintf(min, sizeof(min), minor == PT_ANY ? "*" : "%d", minor);
	pt_access_str(access, acc);
	switch (syn) {
	case PT_SYN_LXC_V1:
		snprintf(buf, len, "lxc.cgroup.devices.allow%s %c %s:%s %s", eq,
			 type, maj, min, acc);
		break;
	case PT_SYN_V1_LIST:
		snprintf(buf, len, "%c %s:%s %s", type, maj, min, acc);
		break;
	default:
		snprintf(buf, len, "lxc.cgroup2.devices.allow%s %c %s:%s %s",
			 eq, type, maj, min, acc);
		break;
	}
}

/* "Character devices:" / "Block devices:" sections of /proc/devices. */
int pt_majors_read(const char *path, struct pt_majors *m)
{
	FILE *f = fopen(path, "r");
	char buf[256], name[64];
	char type = 0;
	int major;

	m->n = 0;
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "Character devices:", 18))
			type = 'c';
		else if (!strncmp(buf, "Block devices:", 14))
			type = 'b';
		else if (type && sscanf(buf, "%d %63s", &major, name) == 2 &&
			 m->n < sizeof(m->e) / sizeof(m->e[0])) {
			m->e[m->n].type = type;
			m->e[m->n].major = major;
			snprintf(m->e[m->n].name, sizeof(m->e[m->n].name), "%s",
				 name);
			m->n++;
		}
	}
	fclose(f);
	return 0;
}

const char *pt_majors_name(const struct pt_majors *m, char type, int major)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->e[i].type == type && m->e[i].major == major)
			return m->e[i].name;
	return NULL;
}

int pt_majors_find(const struct pt_majors *m, char type, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->e[i].type == type && !strcmp(m->e[i].name, name))
			return m->e[i].major;
	return -1;
}
