// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail devices: read an LXC or Proxmox container config into the
 * ordered device rules LXC applies at start (base config, Proxmox devN
 * entries, includes, empty keys that clear), devices.list, /proc/devices.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lxc.h"

#define PT_TEXT_MAX (16u << 20) /* a config larger than this is not one */
#define PT_INCLUDE_DEPTH 16
#define PT_LXC_DIR "/usr/share/lxc/config/"

/*
 * The device lines of LXC 6.0's config/templates/common.conf.in and
 * userns.conf.in with their line numbers there: every Proxmox container
 * includes the first (via <ostype>.common.conf), unprivileged ones also
 * the second, which empties both lists again.
 */
static const struct pt_builtin_line {
	int line;
	const char *text;
} pt_common_conf[] = {
	{ 21, "lxc.cgroup.devices.deny = a" },
	{ 23, "lxc.cgroup.devices.allow = c *:* m" },
	{ 24, "lxc.cgroup.devices.allow = b *:* m" },
	{ 27, "lxc.cgroup.devices.allow = c 1:3 rwm" },
	{ 29, "lxc.cgroup.devices.allow = c 1:5 rwm" },
	{ 31, "lxc.cgroup.devices.allow = c 1:7 rwm" },
	{ 33, "lxc.cgroup.devices.allow = c 5:0 rwm" },
	{ 35, "lxc.cgroup.devices.allow = c 5:1 rwm" },
	{ 37, "lxc.cgroup.devices.allow = c 5:2 rwm" },
	{ 39, "lxc.cgroup.devices.allow = c 1:8 rwm" },
	{ 41, "lxc.cgroup.devices.allow = c 1:9 rwm" },
	{ 43, "lxc.cgroup.devices.allow = c 136:* rwm" },
	{ 45, "lxc.cgroup.devices.allow = c 10:229 rwm" },
	{ 50, "lxc.cgroup2.devices.deny = a" },
	{ 52, "lxc.cgroup2.devices.allow = c *:* m" },
	{ 53, "lxc.cgroup2.devices.allow = b *:* m" },
	{ 56, "lxc.cgroup2.devices.allow = c 1:3 rwm" },
	{ 58, "lxc.cgroup2.devices.allow = c 1:5 rwm" },
	{ 60, "lxc.cgroup2.devices.allow = c 1:7 rwm" },
	{ 62, "lxc.cgroup2.devices.allow = c 5:0 rwm" },
	{ 64, "lxc.cgroup2.devices.allow = c 5:1 rwm" },
	{ 66, "lxc.cgroup2.devices.allow = c 5:2 rwm" },
	{ 68, "lxc.cgroup2.devices.allow = c 1:8 rwm" },
	{ 70, "lxc.cgroup2.devices.allow = c 1:9 rwm" },
	{ 72, "lxc.cgroup2.devices.allow = c 136:* rwm" },
	{ 74, "lxc.cgroup2.devices.allow = c 10:229 rwm" },
	{ 0, NULL },
}, pt_userns_conf[] = {
	{ 5, "lxc.cgroup.devices.deny =" },
	{ 6, "lxc.cgroup.devices.allow =" },
	{ 10, "lxc.cgroup2.devices.deny =" },
	{ 11, "lxc.cgroup2.devices.allow =" },
	{ 0, NULL },
};

/* lxc.* keys pve-container's parse_pct_config passes on (Config.pm). */
static const char *const pt_pve_lxc_keys[] = {
	"lxc.apparmor.profile",
	"lxc.apparmor.allow_incomplete",
	"lxc.apparmor.allow_nesting",
	"lxc.apparmor.raw",
	"lxc.selinux.context",
	"lxc.include",
	"lxc.arch",
	"lxc.uts.name",
	"lxc.signal.halt",
	"lxc.signal.reboot",
	"lxc.signal.stop",
	"lxc.init.cmd",
	"lxc.init.cwd",
	"lxc.init.uid",
	"lxc.init.gid",
	"lxc.init.groups",
	"lxc.pty.max",
	"lxc.console.logfile",
	"lxc.console.path",
	"lxc.tty.max",
	"lxc.devtty.dir",
	"lxc.hook.autodev",
	"lxc.autodev",
	"lxc.kmsg",
	"lxc.mount.fstab",
	"lxc.mount.entry",
	"lxc.mount.auto",
	"lxc.rootfs.mount",
	"lxc.cap.drop",
	"lxc.cap.keep",
	"lxc.seccomp.profile",
	"lxc.seccomp.notify.proxy",
	"lxc.seccomp.notify.cookie",
	"lxc.idmap",
	"lxc.hook.pre-start",
	"lxc.hook.pre-mount",
	"lxc.hook.mount",
	"lxc.hook.start",
	"lxc.hook.stop",
	"lxc.hook.post-stop",
	"lxc.hook.clone",
	"lxc.hook.destroy",
	"lxc.hook.version",
	"lxc.log.level",
	"lxc.log.file",
	"lxc.start.auto",
	"lxc.start.delay",
	"lxc.start.order",
	"lxc.group",
	"lxc.environment",
	"lxc.environment.runtime",
	"lxc.environment.hooks",
	"lxc.sysctl.fs.mqueue",
	"lxc.sysctl.kernel.msgmax",
	"lxc.sysctl.kernel.msgmnb",
	"lxc.sysctl.kernel.msgmni",
	"lxc.sysctl.kernel.sem",
	"lxc.sysctl.kernel.shmall",
	"lxc.sysctl.kernel.shmmax",
	"lxc.sysctl.kernel.shmmni",
	"lxc.sysctl.kernel.shm_rmid_forced",
	/* deprecated names it still passes on (with a warning) */
	"lxc.aa_profile",
	"lxc.aa_allow_incomplete",
	"lxc.console",
	"lxc.devttydir",
	"lxc.haltsignal",
	"lxc.rebootsignal",
	"lxc.stopsignal",
	"lxc.id_map",
	"lxc.init_cmd",
	"lxc.loglevel",
	"lxc.logfile",
	"lxc.mount",
	"lxc.network.type",
	"lxc.network.flags",
	"lxc.network.link",
	"lxc.network.mtu",
	"lxc.network.name",
	"lxc.network.hwaddr",
	"lxc.network.ipv4",
	"lxc.network.ipv4.gateway",
	"lxc.network.ipv6",
	"lxc.network.ipv6.gateway",
	"lxc.network.script.up",
	"lxc.network.script.down",
	"lxc.pts",
	"lxc.se_context",
	"lxc.seccomp",
	"lxc.tty",
	"lxc.utsname",
	NULL,
};

/* Proxmox's own keys: a file with none of them (and no lxc.*) is no CT config. */
static const char *const pt_pve_keys[] = {
	"arch",		"cmode",      "console",      "cores",	  "cpulimit",
	"cpuunits",	"debug",      "description",  "digest",	  "entrypoint",
	"env",		"features",   "hookscript",   "hostname", "lock",
	"memory",	"nameserver", "onboot",	      "ostype",	  "parent",
	"protection",	"rootfs",     "searchdomain", "snaptime", "startup",
	"swap",		"tags",	      "template",     "timezone", "tty",
	"unprivileged", NULL,
};

static int pt_perr(struct pt_parse_error *err, const char *file, int line,
		   int col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int pt_perr(struct pt_parse_error *err, const char *file, int line,
		   int col, const char *fmt, ...)
{
	va_list ap;

	err->file = file;
	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static char *pt_strdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		fprintf(stderr, "pagetrail devices: out of memory\n");
		exit(2);
	}
	return d;
}

static void *pt_grow(void *v, size_t n, size_t size)
{
	void *p;

	if (n > (size_t)INT_MAX / size)
		p = NULL;
	else
		p = realloc(v, (n + 1) * size);
	if (!p) {
		fprintf(stderr, "pagetrail devices: out of memory\n");
		exit(2);
	}
	return p;
}

int pt_text_read(const char *path, char **data, size_t *len,
		 struct pt_parse_error *err)
{
	size_t cap = 0, n = 0, line = 1, col = 1, i;
	char *buf = NULL;
	struct stat st;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return pt_perr(err, path, 0, 0, "%s", strerror(errno));
	if (fstat(fd, &st) || S_ISDIR(st.st_mode) || !S_ISREG(st.st_mode)) {
		close(fd);
		return pt_perr(err, path, 1, 1, "%s",
			       S_ISDIR(st.st_mode) ? "a directory, not a file" :
						     "not a regular file");
	}
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = pt_grow(buf, cap, 1);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			free(buf);
			return pt_perr(err, path, 0, 0, "%s", strerror(errno));
		}
		if (!r)
			break;
		n += (size_t)r;
		if (n > PT_TEXT_MAX) {
			close(fd);
			free(buf);
			return pt_perr(err, path, 1, 1,
				       "larger than %u MiB: not a config",
				       PT_TEXT_MAX >> 20);
		}
	}
	close(fd);
	if (!buf)
		buf = pt_grow(NULL, 0, 1);
	buf[n] = '\0';
	for (i = 0; i < n; i++, col++) {
		if (buf[i] == '\n') {
			line++;
			col = 0;
		} else if (!buf[i]) {
			free(buf);
			return pt_perr(err, path, (int)line, (int)col,
				       "NUL byte in the line (a binary file?)");
		}
	}
	*data = buf;
	*len = n;
	return 0;
}

/* Next line of a text buffer, newline and a trailing CR removed. */
static char *pt_next_line(char **cur)
{
	char *s = *cur, *e;

	if (!s || !*s)
		return NULL;
	e = strchr(s, '\n');
	if (e) {
		*e = '\0';
		*cur = e + 1;
	} else {
		*cur = s + strlen(s);
	}
	e = s + strlen(s);
	if (e > s && e[-1] == '\r')
		e[-1] = '\0';
	return s;
}

static const char *pt_file_name(struct pt_ctconf *c, const char *name)
{
	c->files = pt_grow(c->files, c->nr_files, sizeof(*c->files));
	c->files[c->nr_files] = pt_strdup(name);
	return c->files[c->nr_files++];
}

static void pt_note_add(struct pt_ctconf *c, const char *file, int line,
			const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void pt_note_add(struct pt_ctconf *c, const char *file, int line,
			const char *kind, const char *fmt, ...)
{
	struct pt_note *n;
	char *text;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	c->notes = pt_grow(c->notes, c->nr_notes, sizeof(*c->notes));
	n = &c->notes[c->nr_notes++];
	n->file = file;
	n->line = line;
	n->kind = pt_strdup(kind);
	n->text = text ? text : pt_strdup("(out of memory)");
}

static void pt_rule_set_err(struct pt_devrule *r, int col, const char *fmt,
			    char arg)
{
	char msg[160];

	snprintf(msg, sizeof(msg), fmt, arg);
	r->err_col = col;
	free(r->err_msg);
	r->err_msg = pt_strdup(msg);
}

/* LXC reads at most three access letters and ignores the rest. */
static int pt_parse_access(struct pt_devrule *r, const char *s, int col)
{
	int i;

	memset(r->access, 0, sizeof(r->access));
	for (i = 0; i < 3 && s[i]; i++) {
		if (s[i] != 'r' && s[i] != 'w' && s[i] != 'm') {
			pt_rule_set_err(
				r, col + i,
				"access letters are r, w and m, not '%c'",
				s[i]);
			return -1;
		}
		r->access[i] = s[i];
	}
	return 0;
}

/* A major or minor as LXC reads it: '*', or digits that fit an int. */
static int pt_parse_num(struct pt_devrule *r, const char **p, int col,
			const char *what, int *out)
{
	long long v = 0;

	if (**p == '*') {
		(*p)++;
		*out = PT_ANY;
		return 0;
	}
	if (!isdigit((unsigned char)**p)) {
		pt_rule_set_err(r, col,
				what[1] == 'a' ?
					"major must be a number or *%c" :
					"minor must be a number or *%c",
				0);
		return -1;
	}
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (**p - '0');
		(*p)++;
		if (v > INT_MAX) {
			pt_rule_set_err(
				r, col,
				what[1] == 'a' ?
					"major out of range (LXC reads an int)%c" :
					"minor out of range (LXC reads an int)%c",
				0);
			return -1;
		}
	}
	*out = (int)v;
	return 0;
}

/*
 * One device rule value, the way LXC's device_cgroup_rule_parse() (and
 * the devpath form of device_cgroup_rule_parse_devpath()) reads it; an
 * error is kept in the rule: LXC only parses rules it applies.
 */
static void pt_rule_value(struct pt_devrule *r, const char *v, int col)
{
	const char *p = v;

	r->major = r->minor = PT_ANY;
	if (!strcmp(v, "a")) {
		r->type = 'a';
		r->bare = true;
		return;
	}
	if (*v == '/' && r->allow) {
		const char *sp = strchr(v, ' ');

		r->devpath = pt_strdup(v);
		if (!sp) {
			pt_rule_set_err(
				r, col + (int)strlen(v),
				"expected access letters after the path%c", 0);
			return;
		}
		r->devpath[sp - v] = '\0';
		while (*sp == ' ')
			sp++;
		if (!*sp) {
			pt_rule_set_err(
				r, col + (int)(sp - v),
				"expected access letters after the path%c", 0);
			return;
		}
		pt_parse_access(r, sp, col + (int)(sp - v));
		return;
	}
	if (!*v) {
		pt_rule_set_err(r, col, "empty device rule%c", 0);
		return;
	}
	if (!strchr("abc", *v) || !v[1] || !isspace((unsigned char)v[1])) {
		if (strchr("abc", *v) && v[1])
			pt_rule_set_err(
				r, col + 1,
				"expected one blank after the device type, not '%c'",
				v[1]);
		else
			pt_rule_set_err(
				r, col,
				"device type must be a, b or c, not '%c'", *v);
		return;
	}
	r->type = *v;
	p = v + 2;
	if (pt_parse_num(r, &p, col + (int)(p - v), "major", &r->major))
		return;
	if (*p != ':') {
		pt_rule_set_err(r, col + (int)(p - v),
				"expected ':' between major and minor%c", 0);
		return;
	}
	p++;
	if (pt_parse_num(r, &p, col + (int)(p - v), "minor", &r->minor))
		return;
	if (!*p) {
		pt_rule_set_err(
			r, col + (int)(p - v),
			"expected a blank and access letters after the minor%c",
			0);
		return;
	}
	if (!isspace((unsigned char)*p)) {
		pt_rule_set_err(r, col + (int)(p - v),
				"unexpected '%c' after the minor", *p);
		return;
	}
	p++;
	pt_parse_access(r, p, col + (int)(p - v));
}

static void pt_rule_push(struct pt_devrule **v, size_t *n,
			 const struct pt_devrule *r)
{
	*v = pt_grow(*v, *n, sizeof(**v));
	(*v)[(*n)++] = *r;
}

/* An empty lxc.cgroup[2].devices.allow/deny (or lxc.cgroup[2]) clears. */
static void pt_clear(struct pt_ctconf *c, bool v1, int which, const char *file,
		     int line, bool base)
{
	struct pt_devrule *v = v1 ? c->v1rules : c->rules;
	size_t n = v1 ? c->nr_v1 : c->nr_rules, i, cleared = 0, from_base = 0;

	for (i = 0; i < n; i++) {
		if (v[i].cleared_by || (which >= 0 && v[i].allow != which))
			continue;
		v[i].cleared_by = line ? line : -1;
		v[i].fate = PT_FATE_CLEARED;
		v[i].fate_line = line;
		cleared++;
		from_base += v[i].base;
	}
	if (base || (!cleared && !line))
		return;
	pt_note_add(c, file, line, "clear",
		    "empty value: clears %zu earlier %s %s rule%s%s", cleared,
		    v1 ? "v1" : "cgroup2",
		    which < 0  ? "device" :
		    which == 1 ? "allow" :
				 "deny",
		    cleared == 1 ? "" : "s",
		    from_base ? " (LXC's base config's included)" : "");
}

static int pt_read_lxc(struct pt_ctconf *c, const char *path, int depth,
		       struct pt_parse_error *err);

static void pt_builtin(struct pt_ctconf *c, const struct pt_builtin_line *b,
		       const char *name);

/* lxc.include: a file, a directory of *.conf, or LXC's own shipped file. */
static int pt_include(struct pt_ctconf *c, const char *file, int line,
		      const char *val, int depth, struct pt_parse_error *err)
{
	const char *base = strrchr(val, '/') ? strrchr(val, '/') + 1 : val;
	bool shipped = !strncmp(val, PT_LXC_DIR, strlen(PT_LXC_DIR));
	struct dirent **ents;
	struct stat st;
	int i, n;

	if (!*val)
		return 0;
	if (depth >= PT_INCLUDE_DEPTH) {
		pt_note_add(
			c, file, line, "include",
			"lxc.include = %s not followed: includes nest deeper than %d (a loop?)",
			val, PT_INCLUDE_DEPTH);
		return 0;
	}
	if (shipped && (c->builtin || stat(val, &st))) {
		bool common =
			!strcmp(base, "common.conf") ||
			(strlen(base) > 12 &&
			 !strcmp(base + strlen(base) - 12, ".common.conf"));
		bool userns =
			!strcmp(base, "userns.conf") ||
			(strlen(base) > 12 &&
			 !strcmp(base + strlen(base) - 12, ".userns.conf"));

		if (common || userns) {
			pt_builtin(c, common ? pt_common_conf : pt_userns_conf,
				   common ? "LXC 6.0 common.conf" :
					    "LXC 6.0 userns.conf");
			return 0;
		}
		if (!*base || strstr(val, ".conf.d")) /* shipped empty */
			return 0;
	}
	if (stat(val, &st)) {
		pt_note_add(
			c, file, line, "include",
			"lxc.include = %s not read: %s (its rules are not in this verdict; LXC fails to start without it)",
			val, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return pt_read_lxc(c, val, depth + 1, err);
	n = scandir(val, &ents, NULL, alphasort);
	if (n < 0) {
		pt_note_add(c, file, line, "include",
			    "lxc.include = %s not read: %s", val,
			    strerror(errno));
		return 0;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);
		char *p;

		if (l > 5 && !strcmp(ents[i]->d_name + l - 5, ".conf") &&
		    asprintf(&p, "%s/%s", val, ents[i]->d_name) > 0) {
			if (pt_read_lxc(c, p, depth + 1, err)) {
				free(p);
				for (; i < n; i++)
					free(ents[i]);
				free(ents);
				return -1;
			}
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

static bool pt_is_device_key(const char *key, bool *v1, int *which)
{
	const char *sub;

	if (!strncmp(key, "lxc.cgroup2.", 12)) {
		*v1 = false;
		sub = key + 12;
	} else if (!strncmp(key, "lxc.cgroup.", 11)) {
		*v1 = true;
		sub = key + 11;
	} else {
		return false;
	}
	if (!strcmp(sub, "devices.allow"))
		*which = 1;
	else if (!strcmp(sub, "devices.deny"))
		*which = 0;
	else
		return false;
	return true;
}

/*
 * One lxc.* key and value as LXC's config reader takes it; col is the
 * value's column on the line.
 */
static int pt_lxc_key(struct pt_ctconf *c, const char *file, int line,
		      const char *key, const char *val, int col,
		      const char *text, int depth, bool base,
		      struct pt_parse_error *err)
{
	struct pt_devrule r = { 0 };
	int which;
	bool v1;

	if (!strcmp(key, "lxc.include"))
		return pt_include(c, file, line, val, depth, err);
	if (!strcmp(key, "lxc.mount.entry")) {
		char src[4096], dst[4096], fs[256], opts[4096];
		struct pt_mount *m;

		if (strlen(val) >= sizeof(src) ||
		    sscanf(val, "%4095s %4095s %255s %4095s", src, dst, fs,
			   opts) != 4)
			return pt_perr(
				err, file, line, col,
				"lxc.mount.entry needs SOURCE TARGET FSTYPE OPTIONS");
		c->mounts =
			pt_grow(c->mounts, c->nr_mounts, sizeof(*c->mounts));
		m = &c->mounts[c->nr_mounts++];
		m->src = pt_strdup(src);
		m->dst = pt_strdup(dst);
		m->opts = pt_strdup(opts);
		m->file = file;
		m->line = line;
		m->text = pt_strdup(text);
		return 0;
	}
	if ((!strcmp(key, "lxc.cgroup2") || !strcmp(key, "lxc.cgroup")) &&
	    !*val) {
		pt_clear(c, key[10] == '2' ? false : true, -1, file, line,
			 base);
		return 0;
	}
	if (!pt_is_device_key(key, &v1, &which))
		return 0;
	if (!*val) {
		pt_clear(c, v1, which, file, line, base);
		return 0;
	}
	r.allow = which;
	r.v1 = v1;
	r.devn = -1;
	r.base = base;
	r.file = file;
	r.line = line;
	r.text = pt_strdup(text);
	pt_rule_value(&r, val, col);
	if (v1)
		pt_rule_push(&c->v1rules, &c->nr_v1, &r);
	else
		pt_rule_push(&c->rules, &c->nr_rules, &r);
	if (base && !v1 && r.bare)
		c->has_base = true;
	return 0;
}

static bool pt_keychar(char ch)
{
	return isalnum((unsigned char)ch) || ch == '.' || ch == '_' ||
	       ch == '-';
}

/* LXC's parse_line(): "lxc.KEY = VALUE"; other lines are not LXC's. */
static int pt_lxc_line(struct pt_ctconf *c, const char *file, int lineno,
		       char *s, int depth, bool base,
		       struct pt_parse_error *err)
{
	char *line = s, *key, *eq, *val, *e, *text;
	int rc;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '#' || strncmp(s, "lxc.", 4))
		return 0;
	key = s;
	eq = strchr(s, '=');
	if (!eq) {
		while (pt_keychar(*s))
			s++;
		while (*s == ' ' || *s == '\t')
			s++;
		return pt_perr(
			err, file, lineno, (int)(s - line) + 1,
			"expected '=' (LXC) or ':' (Proxmox) after the key");
	}
	text = pt_strdup(key);
	e = eq;
	while (e > key && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	val = eq + 1;
	while (*val == ' ' || *val == '\t')
		val++;
	e = val + strlen(val);
	while (e > val && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if ((*val == '\'' || *val == '"') && e - val > 1 && e[-1] == *val) {
		e[-1] = '\0';
		val++;
	}
	rc = pt_lxc_key(c, file, lineno, key, val, (int)(val - line) + 1, text,
			depth, base, err);
	free(text);
	return rc;
}

static void pt_builtin(struct pt_ctconf *c, const struct pt_builtin_line *b,
		       const char *name)
{
	const char *file = pt_file_name(c, name);
	struct pt_parse_error err;
	char buf[128];

	for (; b->text; b++) {
		snprintf(buf, sizeof(buf), "%s", b->text);
		pt_lxc_line(c, file, b->line, buf, PT_INCLUDE_DEPTH, true,
			    &err);
	}
}

static int pt_read_lxc(struct pt_ctconf *c, const char *path, int depth,
		       struct pt_parse_error *err)
{
	const char *file = pt_file_name(c, path);
	char *data, *cur, *s;
	int line = 0;
	size_t len;

	if (pt_text_read(path, &data, &len, err))
		return -1;
	err->file = file;
	cur = data;
	while ((s = pt_next_line(&cur))) {
		if (pt_lxc_line(c, file, ++line, s, depth, false, err)) {
			free(data);
			return -1;
		}
	}
	free(data);
	return 0;
}

static bool pt_pve_section(const char *s)
{
	const char *p = s + 1;

	if (*s != '[')
		return false;
	if (!strncasecmp(p, "pve:pending]", 12))
		p += 12;
	else {
		if (!isalpha((unsigned char)*p))
			return false;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '-')
			p++;
		if (*p++ != ']' || p - s < 4)
			return false;
	}
	while (isspace((unsigned char)*p))
		p++;
	return !*p;
}

/* Length of "lxc.KEY" followed by ':' or blanks and '=' (Proxmox's regex). */
static size_t pt_pve_lxc_key(const char *s, char *sep)
{
	size_t n = 4, k;

	if (strncmp(s, "lxc.", 4))
		return 0;
	while (islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) ||
	       s[n] == '_' || s[n] == '-' || s[n] == '.')
		n++;
	if (n == 4)
		return 0;
	if (s[n] == ':') {
		*sep = ':';
		return n;
	}
	for (k = n; isspace((unsigned char)s[k]); k++)
		;
	if (s[k] != '=')
		return 0;
	*sep = '=';
	return n;
}

/* Proxmox's "key: value" for its own keys: [a-z][a-z_]*\d*: */
static size_t pt_pve_key(const char *s)
{
	size_t n = 0;

	if (!islower((unsigned char)s[0]))
		return 0;
	while (islower((unsigned char)s[n]) || s[n] == '_')
		n++;
	while (isdigit((unsigned char)s[n]))
		n++;
	return s[n] == ':' ? n : 0;
}

static bool pt_pve_valid_lxc(const char *key)
{
	size_t i;

	for (i = 0; pt_pve_lxc_keys[i]; i++)
		if (!strcmp(key, pt_pve_lxc_keys[i]))
			return true;
	return !strncmp(key, "lxc.cgroup.", 11) ||
	       !strncmp(key, "lxc.cgroup2.", 12) ||
	       !strncmp(key, "lxc.prlimit.", 12) ||
	       !strncmp(key, "lxc.limit.", 10) || !strncmp(key, "lxc.net.", 8);
}

static bool pt_pve_bool(const char *v)
{
	return !strcmp(v, "1") || !strcasecmp(v, "yes") ||
	       !strcasecmp(v, "on") || !strcasecmp(v, "true");
}

/* "dev0: /dev/nvidia-uvm,gid=44,mode=0666,deny-write=1" */
static void pt_pve_dev(struct pt_ctconf *c, int n, const char *v, int line,
		       const char *text)
{
	char *dup = pt_strdup(v), *tok, *save = NULL;
	struct pt_pvedev d = { .n = n, .line = line };
	size_t i;

	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "path=", 5))
			tok += 5;
		else if (!strncmp(tok, "deny-write=", 11))
			d.deny_write = pt_pve_bool(tok + 11);
		if (strchr(tok, '=') && strncmp(tok, "path=", 5))
			continue;
		free(d.path);
		d.path = pt_strdup(tok);
	}
	free(dup);
	if (!d.path || strncmp(d.path, "/dev/", 5) || strstr(d.path, "/../") ||
	    strstr(d.path, "/./")) {
		pt_note_add(
			c, c->path, line, "ignored",
			"dev%d: Proxmox rejects this entry (the path must start with /dev/); the container does not start",
			n);
		free(d.path);
		return;
	}
	for (i = 0; i < c->nr_devs; i++) {
		if (c->devs[i].n == n) { /* a later duplicate key wins */
			free(c->devs[i].path);
			free(c->devs[i].text);
			c->devs[i] = d;
			c->devs[i].text = pt_strdup(text);
			return;
		}
	}
	d.text = pt_strdup(text);
	c->devs = pt_grow(c->devs, c->nr_devs, sizeof(*c->devs));
	c->devs[c->nr_devs++] = d;
}

static int pt_cmp_dev(const void *a, const void *b)
{
	return ((const struct pt_pvedev *)a)->n -
	       ((const struct pt_pvedev *)b)->n;
}

/* The cgroup2 rules pve-container's update_lxc_config() writes for devN. */
static void pt_pve_dev_rules(struct pt_ctconf *c)
{
	size_t i;

	if (c->nr_devs)
		qsort(c->devs, c->nr_devs, sizeof(*c->devs), pt_cmp_dev);
	for (i = 0; i < c->nr_devs; i++) {
		const struct pt_pvedev *d = &c->devs[i];
		struct pt_devrule r = { 0 };

		r.allow = true;
		r.devn = d->n;
		r.file = c->path;
		r.line = d->line;
		r.devpath = pt_strdup(d->path);
		r.text = pt_strdup(d->text);
		snprintf(r.access, sizeof(r.access), "%s",
			 d->deny_write ? "r" : "rw");
		pt_rule_push(&c->rules, &c->nr_rules, &r);
		if (!d->deny_write)
			continue;
		r.allow = false;
		r.devpath = pt_strdup(d->path);
		r.text = pt_strdup(d->text);
		snprintf(r.access, sizeof(r.access), "w");
		pt_rule_push(&c->rules, &c->nr_rules, &r);
	}
}

struct pt_pve_lxc {
	char *key;
	char *val;
	char *text;
	int line;
	int col;
};

static int pt_read_pve(struct pt_ctconf *c, char *data,
		       struct pt_parse_error *err)
{
	struct pt_pve_lxc *lx = NULL;
	size_t nlx = 0, i;
	char *cur = data, *s;
	const char *ostype = NULL;
	bool idmap = false;
	int line = 0, rc = 0;

	while ((s = pt_next_line(&cur))) {
		char sep = 0, *v, *e;
		size_t k;

		line++;
		if (!s[strspn(s, " \t\r\f\v")])
			continue;
		if (pt_pve_section(s)) {
			pt_note_add(
				c, c->path, line, "snapshot",
				"%s starts a %s: what follows is not the config the container starts with",
				s,
				strncasecmp(s, "[pve:pending]", 13) ?
					"snapshot section" :
					"section of pending changes (applied at the next start, not read here)");
			break;
		}
		if (*s == '#')
			continue;
		k = pt_pve_lxc_key(s, &sep);
		if (k) {
			v = s + k + 1;
			if (sep == '=')
				v = strchr(s + k, '=') + 1;
			while (isspace((unsigned char)*v))
				v++;
			e = v + strlen(v);
			while (e > v && isspace((unsigned char)e[-1]))
				*--e = '\0';
			s[k] = '\0';
			if (!pt_pve_valid_lxc(s)) {
				pt_note_add(
					c, c->path, line, "ignored",
					"%s: Proxmox does not accept this lxc key and drops the line",
					s);
				continue;
			}
			if (!strcmp(s, "lxc.idmap"))
				idmap = true;
			lx = pt_grow(lx, nlx, sizeof(*lx));
			lx[nlx].key = pt_strdup(s);
			lx[nlx].val = pt_strdup(v);
			lx[nlx].line = line;
			lx[nlx].col = (int)(v - s) + 1;
			s[k] = sep;
			lx[nlx].text = NULL;
			if (asprintf(&lx[nlx].text, "%s%s %s", lx[nlx].key,
				     sep == ':' ? ":" : " =", v) < 0)
				lx[nlx].text = pt_strdup(lx[nlx].key);
			nlx++;
			continue;
		}
		k = pt_pve_key(s);
		if (!k) {
			pt_note_add(
				c, c->path, line, "ignored",
				"Proxmox cannot parse this line and ignores it%s",
				isspace((unsigned char)*s) ?
					" (keys start in column 1)" :
					"");
			continue;
		}
		v = s + k + 1;
		while (isspace((unsigned char)*v))
			v++;
		e = v + strlen(v);
		while (e > v && isspace((unsigned char)e[-1]))
			*--e = '\0';
		s[k] = '\0';
		if (!strncmp(s, "dev", 3) && isdigit((unsigned char)s[3])) {
			long n = strtol(s + 3, NULL, 10);

			s[k] = ':';
			if (n < 256 && strlen(s) <= k + 1 + 4096)
				pt_pve_dev(c, (int)n, v, line, s);
			else
				pt_note_add(
					c, c->path, line, "ignored",
					"%.*s: Proxmox knows dev0..dev255 only",
					(int)k, s);
		} else if (!strcmp(s, "unprivileged")) {
			c->unprivileged = pt_pve_bool(v);
		} else if (!strcmp(s, "console")) {
			c->console_off = !pt_pve_bool(v);
		} else if (!strcmp(s, "ostype")) {
			ostype = v;
		}
	}
	(void)ostype;
	/* update_lxc_config(): includes, devN, console, then lxc.* lines */
	pt_include(c, c->path, 0, PT_LXC_DIR "common.conf", 0, err);
	if (c->unprivileged || idmap)
		pt_include(c, c->path, 0, PT_LXC_DIR "userns.conf", 0, err);
	pt_pve_dev_rules(c);
	if (c->console_off && !c->legacy) {
		struct pt_devrule r = { .allow = false, .devn = -1 };

		r.file = c->path;
		r.text = pt_strdup(
			"console: 0 -> lxc.cgroup2.devices.deny = c 5:1 rwm");
		pt_rule_value(&r, "c 5:1 rwm", 1);
		pt_rule_push(&c->rules, &c->nr_rules, &r);
	}
	for (i = 0; i < nlx; i++) {
		if (!rc)
			rc = pt_lxc_key(c, c->path, lx[i].line, lx[i].key,
					lx[i].val, lx[i].col, lx[i].text, 0,
					false, err);
		free(lx[i].key);
		free(lx[i].val);
		free(lx[i].text);
	}
	free(lx);
	return rc;
}

/*
 * Proxmox (key: value, sections) or LXC (lxc.key = value)? Neither: not a
 * container config (-1 with the first line that shows it).
 */
static int pt_flavor(const char *data, const char *path, enum pt_flavor *fl,
		     struct pt_parse_error *err)
{
	char *dup = pt_strdup(data), *cur = dup, *s;
	int line = 0, first = 0, lxc = 0, pve = 0;

	while ((s = pt_next_line(&cur))) {
		char sep;
		size_t k, i;

		line++;
		if (!s[strspn(s, " \t\f\v")] || *s == '#')
			continue;
		if (!first)
			first = line;
		if (pt_pve_section(s) && (lxc || pve))
			break;
		if (pt_pve_lxc_key(s, &sep) && sep == ':')
			pve = 1;
		else if (!strncmp(s + strspn(s, " \t"), "lxc.", 4))
			lxc = 1;
		k = pt_pve_key(s);
		for (i = 0; k && pt_pve_keys[i]; i++)
			if (strlen(pt_pve_keys[i]) == k &&
			    !strncmp(s, pt_pve_keys[i], k))
				pve = 1;
		if (k &&
		    (!strncmp(s, "dev", 3) || !strncmp(s, "mp", 2) ||
		     !strncmp(s, "net", 3) || !strncmp(s, "unused", 6)) &&
		    isdigit((unsigned char)s[k - 1]))
			pve = 1;
	}
	free(dup);
	if (pve)
		*fl = PT_FLAVOR_PVE;
	else if (lxc)
		*fl = PT_FLAVOR_LXC;
	else
		return pt_perr(
			err, path, first ? first : 1, 1,
			"not a container config: no lxc.* key and no Proxmox key (arch:, rootfs:, devN:, ...)");
	return 0;
}

/* A cgroup v1 devices.list: one exception a line, "a *:* rwm" for all. */
static int pt_read_devlist(struct pt_ctconf *c, char *data,
			   struct pt_parse_error *err)
{
	char *cur = data, *s, *e;
	int line = 0;

	while ((s = pt_next_line(&cur))) {
		struct pt_devrule r = { 0 };
		char *ls = s;

		line++;
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*s)
			continue;
		r.allow = true;
		r.v1 = true;
		r.devn = -1;
		r.file = c->path;
		r.line = line;
		r.text = pt_strdup(s);
		pt_rule_value(&r, s, (int)(s - ls) + 1);
		/* the kernel writes at most three letters and nothing after */
		e = strrchr(s, ' ');
		if (!r.err_col && !r.bare && e && strlen(e + 1) > 3)
			pt_rule_set_err(
				&r, (int)(e + 4 - ls) + 1,
				"access letters are r, w and m, not '%c'",
				e[4]);
		if (r.err_col) {
			err->file = c->path;
			err->line = line;
			err->col = r.err_col;
			snprintf(err->msg, sizeof(err->msg), "%s", r.err_msg);
			free(r.text);
			free(r.err_msg);
			free(r.devpath);
			return -1;
		}
		pt_rule_push(&c->v1rules, &c->nr_v1, &r);
	}
	return 0;
}

int pt_ctconf_load(const char *path, bool devlist, bool builtin,
		   struct pt_ctconf *c, struct pt_parse_error *err)
{
	char *data;
	size_t len;
	bool legacy = c->legacy;
	int rc;

	memset(c, 0, sizeof(*c));
	c->legacy = legacy;
	c->builtin = builtin;
	if (pt_text_read(path, &data, &len, err))
		return -1;
	c->path = pt_file_name(c, path);
	if (devlist) {
		c->flavor = PT_FLAVOR_DEVLIST;
		rc = pt_read_devlist(c, data, err);
		free(data);
		return rc;
	}
	if (pt_flavor(data, c->path, &c->flavor, err)) {
		free(data);
		return -1;
	}
	if (c->flavor == PT_FLAVOR_PVE) {
		rc = pt_read_pve(c, data, err);
	} else {
		char *cur = data, *s;
		int line = 0;

		rc = 0;
		while (!rc && (s = pt_next_line(&cur)))
			rc = pt_lxc_line(c, c->path, ++line, s, 0, false, err);
	}
	free(data);
	return rc;
}

int pt_ctconf_check_rules(const struct pt_ctconf *c, struct pt_parse_error *err)
{
	const struct pt_devrule *v = c->legacy ? c->v1rules : c->rules;
	size_t n = c->legacy ? c->nr_v1 : c->nr_rules, i;

	for (i = 0; i < n; i++) {
		if (!v[i].err_col || v[i].cleared_by)
			continue;
		return pt_perr(err, v[i].file, v[i].line, v[i].err_col,
			       "%s (LXC refuses to start the container)",
			       v[i].err_msg);
	}
	return 0;
}

static void pt_rules_free(struct pt_devrule *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].devpath);
		free(v[i].text);
		free(v[i].err_msg);
	}
	free(v);
}

void pt_ctconf_free(struct pt_ctconf *c)
{
	size_t i;

	pt_rules_free(c->rules, c->nr_rules);
	pt_rules_free(c->v1rules, c->nr_v1);
	for (i = 0; i < c->nr_mounts; i++) {
		free(c->mounts[i].src);
		free(c->mounts[i].dst);
		free(c->mounts[i].opts);
		free(c->mounts[i].text);
	}
	free(c->mounts);
	for (i = 0; i < c->nr_devs; i++) {
		free(c->devs[i].path);
		free(c->devs[i].text);
	}
	free(c->devs);
	for (i = 0; i < c->nr_notes; i++) {
		free(c->notes[i].kind);
		free(c->notes[i].text);
	}
	free(c->notes);
	for (i = 0; i < c->nr_files; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
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

/*
 * "Character devices:" / "Block devices:" sections of /proc/devices; a
 * file without the first is not one.
 */
int pt_majors_read(const char *path, struct pt_majors *m,
		   struct pt_parse_error *err)
{
	char *data, *cur, *s;
	int line = 0, chr = 0;
	char type = 0;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (pt_text_read(path, &data, &len, err))
		return -1;
	cur = data;
	while ((s = pt_next_line(&cur))) {
		char *end, *ls = s;
		long maj;

		line++;
		if (!strcmp(s, "Character devices:")) {
			type = 'c';
			chr = 1;
			continue;
		}
		if (!strcmp(s, "Block devices:")) {
			type = 'b';
			continue;
		}
		if (!*s)
			continue;
		if (!type)
			break;
		while (*s == ' ')
			s++;
		maj = strtol(s, &end, 10);
		if (end == s || *end != ' ' || maj < 0 || maj > 4095 ||
		    !end[1]) {
			free(data);
			pt_majors_free(m);
			return pt_perr(
				err, path, line, (int)(s - ls) + 1,
				"expected 'MAJOR NAME' in a /proc/devices section");
		}
		m->e = pt_grow(m->e, m->n, sizeof(*m->e));
		m->e[m->n].type = type;
		m->e[m->n].major = (int)maj;
		m->e[m->n].name = pt_strdup(end + 1);
		m->n++;
	}
	free(data);
	if (!chr) {
		pt_majors_free(m);
		return pt_perr(
			err, path, line ? line : 1, 1,
			"not a /proc/devices: no 'Character devices:' section");
	}
	return 0;
}

void pt_majors_free(struct pt_majors *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->e[i].name);
	free(m->e);
	memset(m, 0, sizeof(*m));
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
