/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: where the data comes from (live debugfs, a capture, a trace). */
#ifndef PAGETRAIL_TOOL_COMMON_H
#define PAGETRAIL_TOOL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define PT_DEBUGFS "/sys/kernel/debug/pagetrail"

/* One named piece of what pagetrail knows: a debugfs file or an identity fact. */
struct pt_blob {
	char *name;
	char *data; /* NUL-terminated; len excludes the NUL */
	size_t len;
};

struct pagetrail_record;

struct pt_src {
	const char *origin; /* "live debugfs", the capture path, the trace path */
	int kind; /* PT_SRC_* */
	struct pt_blob *blobs;
	size_t nblobs;
	struct pagetrail_record *rec; /* events, in sequence order */
	size_t nrec;
	unsigned long long
		seq_gaps; /* records missing between first and last seq */
};

enum { PT_SRC_LIVE, PT_SRC_DIR, PT_SRC_CAPTURE, PT_SRC_TRACE };

/* Options every reading subcommand accepts. */
struct pt_srcopt {
	const char
		*from; /* capture file, or a directory holding debugfs copies */
	const char *trace; /* trace-cmd's trace.dat */
	const char *debugfs;
	int json;
};

struct pt_cmdspec;

/* A source option (PT_KEY_*) into o: 1 when key was one, else 0. */
int pt_srcopt_set(struct pt_srcopt *o, int key, const char *val);
/*
 * A subcommand that takes only the options in its table, every one a
 * source option: -1 to go on, else the exit status (0 after --help, 2
 * after a usage error, already said in one line).
 */
int pt_srcopt_args(const struct pt_cmdspec *c, int argc, char **argv,
		   struct pt_srcopt *o);

/* Load everything the subcommand may read; 0 or -1 with a one-line error. */
int pt_src_load(struct pt_src *s, const struct pt_srcopt *o, int want_events);
void pt_src_free(struct pt_src *s);
const char *pt_src_text(const struct pt_src *s, const char *name);
/* A section's bytes (events.bin is binary): NULL when absent. */
const char *pt_src_bytes(const struct pt_src *s, const char *name,
			 size_t *len);
int pt_src_add(struct pt_src *s, const char *name, char *data, size_t len);

/*
 * key=value files (control, stats): pt_kv finds KEY at the start of a line
 * or after a blank; unknown keys are ignored so the module may add more.
 * Returns a pointer to the value (up to blank or newline) and its length.
 */
const char *pt_kv(const char *text, const char *key, size_t *len);
int pt_kv_str(const char *text, const char *key, char *buf, size_t size);
long long pt_kv_ll(const char *text, const char *key, long long dflt);

/* Read a whole file (regular, proc or debugfs) into a NUL-terminated buffer. */
int pt_read_file(const char *path, char **data, size_t *len, size_t max);

/*
 * Before writing PATH: an existing regular file becomes PATH.old (as perf
 * keeps perf.data.old), said on stderr; with force it is overwritten. 0 or
 * -1 with one line said.
 */
int pt_keep_old(const char *cmd, const char *path, int force);

/* "1 record", "2 records": the word for n. */
static inline const char *pt_pl(long long n, const char *one,
				const char *many)
{
	return n == 1 ? one : many;
}

/*
 * Every --json output is one object that starts with "format"
 * ("pagetrail-SUB N", N = PT_JSON_VERSION, raised when a field changes
 * meaning or type) and "source" ({kind, path}); lists are arrays, absent
 * values null. Schemas: tools/pagetrail/schema/SUB.json.
 */
#define PT_JSON_VERSION 1
struct json_object;
struct json_object *pt_json_source(const char *kind, const char *path);
struct json_object *pt_src_json(const struct pt_src *s, int with_path);
struct json_object *pt_json_new(const char *cmd, struct json_object *source);
void pt_json_print(struct json_object *o); /* and frees it */

void pt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PAGETRAIL_TOOL_COMMON_H */
