// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: source selection and key=value reading, shared by subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "common.h"
#include "opt.h"
#include "capfile.h"
#include "records.h"
#include "trace.h"

/* The debugfs files a reading subcommand uses; events.bin is read last. */
static const char *const pt_files[] = { "control", "stats", "coverage", "pages",
					"anomalies" };

#define PT_MAX_FILE (1ul << 30)

void pt_err(const char *fmt, ...)
{
	va_list ap;

	fputs("pagetrail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int pt_srcopt_set(struct pt_srcopt *o, int key, const char *val)
{
	switch (key) {
	case PT_KEY_FROM:
		o->from = val;
		return 1;
	case PT_KEY_TRACE:
		o->trace = val;
		return 1;
	case PT_KEY_DEBUGFS:
		o->debugfs = val;
		return 1;
	case PT_KEY_JSON:
		o->json = 1;
		return 1;
	}
	return 0;
}

int pt_srcopt_args(const struct pt_cmdspec *c, int argc, char **argv,
		   struct pt_srcopt *o)
{
	struct pt_optp p;
	int k;

	pt_opt_init(&p, c, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k == PT_OPT_OPERAND)
			return pt_usage_err(c, "unexpected argument '%s' (pagetrail %s --help)",
					    p.val, c->name);
		pt_srcopt_set(o, k, p.val);
	}
	return -1;
}

struct json_object *pt_json_source(const char *kind, const char *path)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "path",
			       path ? json_object_new_string(path) : NULL);
	return o;
}

struct json_object *pt_src_json(const struct pt_src *s, int with_path)
{
	static const char *const kind[] = { "live", "directory", "capture",
					     "trace" };

	return pt_json_source(kind[s->kind], with_path ? s->origin : NULL);
}

struct json_object *pt_json_new(const char *cmd, struct json_object *source)
{
	struct json_object *o = json_object_new_object();
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "pagetrail-%s %d", cmd, PT_JSON_VERSION);
	json_object_object_add(o, "format", json_object_new_string(fmt));
	json_object_object_add(o, "source", source);
	return o;
}

void pt_json_print(struct json_object *o)
{
	puts(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int pt_keep_old(const char *cmd, const char *path, int force)
{
	char old[4096];
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "pagetrail %s: %s: %s\n", cmd, path,
			strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "pagetrail %s: %s is a directory\n", cmd, path);
		return -1;
	}
	/* A FIFO, /dev/stdout or a link is the user's choice of target. */
	if (force || !S_ISREG(st.st_mode))
		return 0;
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old) ||
	    rename(path, old)) {
		fprintf(stderr,
			"pagetrail %s: %s exists and cannot be kept as %s.old: %s (--force overwrites it)\n",
			cmd, path, path, strerror(errno ? errno : ENAMETOOLONG));
		return -1;
	}
	fprintf(stderr, "pagetrail %s: kept the previous %s as %s\n", cmd,
		path, old);
	return 0;
}

int pt_read_file(const char *path, char **data, size_t *len, size_t max)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;
	int fd;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	/*
	 * debugfs and proc files report size 0: read until end of file.
	 * events.bin refuses a read too small for a whole record (EINVAL):
	 * grow while less than a page is free.
	 */
	for (;;) {
		if (cap - n < 4096) {
			if (cap >= max) {
				close(fd);
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				close(fd);
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			free(buf);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

int pt_src_add(struct pt_src *s, const char *name, char *data, size_t len)
{
	struct pt_blob *nb = realloc(s->blobs, (s->nblobs + 1) * sizeof(*nb));

	if (!nb)
		return -1;
	s->blobs = nb;
	nb[s->nblobs].name = strdup(name);
	nb[s->nblobs].data = data;
	nb[s->nblobs].len = len;
	if (!nb[s->nblobs].name)
		return -1;
	s->nblobs++;
	return 0;
}

static const struct pt_blob *pt_src_blob(const struct pt_src *s,
					 const char *name)
{
	size_t i;

	for (i = 0; i < s->nblobs; i++)
		if (!strcmp(s->blobs[i].name, name))
			return &s->blobs[i];
	return NULL;
}

const char *pt_src_text(const struct pt_src *s, const char *name)
{
	const struct pt_blob *b = pt_src_blob(s, name);

	return b ? b->data : NULL;
}

const char *pt_src_bytes(const struct pt_src *s, const char *name,
			 size_t *len)
{
	const struct pt_blob *b = pt_src_blob(s, name);

	*len = b ? b->len : 0;
	return b ? b->data : NULL;
}

static int load_dir(struct pt_src *s, const char *dir, int want_events)
{
	char path[4096], *data;
	size_t i, len;
	int rc;

	for (i = 0; i <= sizeof(pt_files) / sizeof(pt_files[0]); i++) {
		const char *name = i < sizeof(pt_files) / sizeof(pt_files[0]) ?
					   pt_files[i] :
					   "events.bin";

		if (!strcmp(name, "events.bin") && !want_events)
			break;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		rc = pt_read_file(path, &data, &len, PT_MAX_FILE);
		if (rc == -ENOENT && s->kind == PT_SRC_DIR)
			continue;
		if (rc) {
			pt_err("%s: %s", path, strerror(-rc));
			return -1;
		}
		if (pt_src_add(s, name, data, len))
			return -1;
	}
	return 0;
}

static int load_capture(struct pt_src *s, const char *path)
{
	char *data, err[160];
	size_t len;
	int rc = pt_read_file(path, &data, &len, PT_MAX_FILE);

	if (rc) {
		pt_err("%s: %s", path, strerror(-rc));
		return -1;
	}
	rc = pt_cap_parse(s, data, len, err, sizeof(err));
	free(data);
	if (rc) {
		pt_err("%s: %s", path, err);
		return -1;
	}
	return 0;
}

static int load_events(struct pt_src *s)
{
	const struct pt_blob *b = pt_src_blob(s, "events.bin");
	struct pt_seqinfo si;
	char err[160];

	if (!b)
		return 0;
	if (pt_events_parse(b->data, b->len, &s->rec, &s->nrec, err,
			    sizeof(err))) {
		pt_err("%s: events.bin: %s", s->origin, err);
		return -1;
	}
	pt_records_sort(s->rec, s->nrec);
	pt_seqinfo(s->rec, s->nrec, &si);
	s->seq_gaps = si.gaps;
	return 0;
}

/*
 * The target driver's release line, as a capture carries it: live from
 * /proc/driver/TARGET/version, else the module's MODULE_VERSION; in a
 * directory of copies, its driver_version file. Absent is not an error:
 * the rules that depend on it say the release is unknown.
 */
static int load_driver_version(struct pt_src *s)
{
	static const char *const fmt[] = { "/proc/driver/%s/version",
					   "/sys/module/%s/version" };
	char target[64], path[4096], *data;
	size_t i, len;

	if (s->kind == PT_SRC_DIR) {
		snprintf(path, sizeof(path), "%s/driver_version", s->origin);
		if (pt_read_file(path, &data, &len, 1ul << 16))
			return 0;
		if (pt_src_add(s, "driver_version", data, len)) {
			free(data);
			return -1;
		}
		return 0;
	}
	if (pt_kv_str(pt_src_text(s, "control"), "target", target,
		      sizeof(target)) ||
	    strchr(target, '/') || !target[0])
		return 0;
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		snprintf(path, sizeof(path), fmt[i], target);
		if (pt_read_file(path, &data, &len, 1ul << 16))
			continue;
		if (pt_src_add(s, "driver_version", data, len)) {
			free(data);
			return -1;
		}
		return 0;
	}
	return 0;
}

static int src_load(struct pt_src *s, const struct pt_srcopt *o,
		    int want_events)
{
	struct stat st;

	if (o->from && o->trace) {
		pt_err("--from and --trace exclude each other");
		return -1;
	}
	if (o->trace) {
		s->kind = PT_SRC_TRACE;
		s->origin = o->trace;
		return pt_trace_load(s, o->trace);
	}
	if (o->from) {
		s->origin = o->from;
		if (!stat(o->from, &st) && S_ISDIR(st.st_mode)) {
			s->kind = PT_SRC_DIR;
			if (load_dir(s, o->from, 1) || load_driver_version(s))
				return -1;
			return load_events(s);
		}
		s->kind = PT_SRC_CAPTURE;
		return load_capture(s, o->from) ? -1 : load_events(s);
	}
	s->kind = PT_SRC_LIVE;
	s->origin = o->debugfs ? o->debugfs : getenv("PAGETRAIL_DEBUGFS");
	if (!s->origin)
		s->origin = PT_DEBUGFS;
	if (stat(s->origin, &st) || !S_ISDIR(st.st_mode)) {
		pt_err("%s: no pagetrail debugfs (module not loaded, or debugfs not mounted?)",
		       s->origin);
		return -1;
	}
	if (load_dir(s, s->origin, want_events))
		return -1;
	return load_driver_version(s) ? -1 : load_events(s);
}

/* On failure nothing stays allocated: callers just return. */
int pt_src_load(struct pt_src *s, const struct pt_srcopt *o, int want_events)
{
	memset(s, 0, sizeof(*s));
	if (!src_load(s, o, want_events))
		return 0;
	pt_src_free(s);
	return -1;
}

void pt_src_free(struct pt_src *s)
{
	size_t i;

	for (i = 0; i < s->nblobs; i++) {
		free(s->blobs[i].name);
		free(s->blobs[i].data);
	}
	free(s->blobs);
	free(s->rec);
	memset(s, 0, sizeof(*s));
}

const char *pt_kv(const char *text, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	const char *p = text, *v;

	if (!text)
		return NULL;
	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n' || p[-1] == ' ') &&
		    p[kl] == '=') {
			v = p + kl + 1;
			*len = strcspn(v, " \n");
			return v;
		}
		p += kl;
	}
	return NULL;
}

int pt_kv_str(const char *text, const char *key, char *buf, size_t size)
{
	size_t len;
	const char *v = pt_kv(text, key, &len);

	if (!v || !size)
		return -1;
	if (len >= size)
		len = size - 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return 0;
}

long long pt_kv_ll(const char *text, const char *key, long long dflt)
{
	char buf[32], *end;
	long long v;

	if (pt_kv_str(text, key, buf, sizeof(buf)))
		return dflt;
	errno = 0;
	v = strtoll(buf, &end, 0);
	return (errno || end == buf) ? dflt : v;
}
