// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: events.bin parsing and the record's text form. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "records.h"
#include <uapi/pagetrail_text.h>

#define NAME(s, n, d) n,
static const char *const role_names[] = { PAGETRAIL_ROLES(NAME) };
static const char *const state_names[] = { PAGETRAIL_STATES(NAME) };
static const char *const anomaly_names[] = { PAGETRAIL_ANOMALIES(NAME) };
static const char *const cause_names[] = { PAGETRAIL_CAUSES(NAME) };
#undef NAME

#define NELEM(t) (sizeof(t) / sizeof((t)[0]))
#define LOOKUP(tbl, i) ((i) < NELEM(tbl) ? tbl[i] : "unknown")

const char *pt_role_name(unsigned int i)
{
	return LOOKUP(role_names, i);
}
const char *pt_state_name(unsigned int i)
{
	return LOOKUP(state_names, i);
}
const char *pt_anomaly_name(unsigned int i)
{
	return LOOKUP(anomaly_names, i);
}
const char *pt_cause_name(unsigned int i)
{
	return LOOKUP(cause_names, i);
}

static int lookup_id(const char *const *tbl, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(tbl[i], name))
			return (int)i;
	return -1;
}

int pt_role_id(const char *name)
{
	return lookup_id(role_names, NELEM(role_names), name);
}
int pt_state_id(const char *name)
{
	return lookup_id(state_names, NELEM(state_names), name);
}
int pt_anomaly_id(const char *name)
{
	return lookup_id(anomaly_names, NELEM(anomaly_names), name);
}
int pt_cause_id(const char *name)
{
	return lookup_id(cause_names, NELEM(cause_names), name);
}

/* Anything larger than this is not a record a version-1 module writes. */
#define PT_MAX_SIZE 4096

static int check_header(const struct pagetrail_file_header *h, size_t len,
			char *err, size_t errlen)
{
	if (h->magic != PAGETRAIL_MAGIC) {
		snprintf(err, errlen,
			 "not a pagetrail events.bin (magic 0x%08x)", h->magic);
		return -1;
	}
	if (h->version != PAGETRAIL_ABI_VERSION) {
		snprintf(err, errlen, "ABI version %u, this tool reads %u",
			 h->version, PAGETRAIL_ABI_VERSION);
		return -1;
	}
	if (h->header_size < sizeof(*h) ||
	    h->record_size < sizeof(struct pagetrail_record) ||
	    h->header_size > PT_MAX_SIZE || h->record_size > PT_MAX_SIZE) {
		snprintf(err, errlen,
			 "header_size %u / record_size %u out of range",
			 h->header_size, h->record_size);
		return -1;
	}
	if (len < h->header_size) {
		snprintf(err, errlen, "truncated header");
		return -1;
	}
	return 0;
}

int pt_events_parse(const void *buf, size_t len, struct pagetrail_record **out,
		    size_t *n, char *err, size_t errlen)
{
	struct pagetrail_file_header h;
	const unsigned char *p = buf;
	size_t body, cnt, i;

	*out = NULL;
	*n = 0;
	if (len < sizeof(h)) {
		snprintf(err, errlen, "too short for a header");
		return -1;
	}
	memcpy(&h, p, sizeof(h));
	if (check_header(&h, len, err, errlen))
		return -1;
	body = len - h.header_size;
	cnt = body / h.record_size;
	if (body % h.record_size) {
		snprintf(err, errlen, "truncated record after %zu %s", cnt,
			 cnt == 1 ? "record" : "records");
		return -1;
	}
	if (!cnt)
		return 0;
	*out = calloc(cnt, sizeof(**out));
	if (!*out) {
		snprintf(err, errlen, "out of memory for %zu records", cnt);
		return -1;
	}
	for (i = 0; i < cnt; i++)
		memcpy(&(*out)[i], p + h.header_size + i * h.record_size,
		       sizeof(**out));
	*n = cnt;
	return 0;
}

void pt_seqinfo(const struct pagetrail_record *r, size_t n,
		struct pt_seqinfo *si)
{
	size_t i;

	memset(si, 0, sizeof(*si));
	for (i = 0; i < n; i++) {
		if (i == 0)
			si->first = r[i].seq;
		else if (r[i].seq <= si->last)
			si->backwards = 1;
		else
			si->gaps += r[i].seq - si->last - 1;
		si->last = r[i].seq;
	}
	si->n = n;
}

static int by_seq(const void *a, const void *b)
{
	const struct pagetrail_record *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pt_records_sort(struct pagetrail_record *r, size_t n)
{
	if (n > 1)
		qsort(r, n, sizeof(*r), by_seq);
}

void pt_record_comm(const struct pagetrail_record *r, char out[17])
{
	char *c;

	memcpy(out, r->comm, sizeof(r->comm));
	out[sizeof(r->comm)] = '\0';
	for (c = out; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == '=' ||
		    (unsigned char)*c >= 0x7f)
			*c = '_';
	if (!out[0])
		strcpy(out, "?");
}

void pt_record_print(FILE *f, const struct pagetrail_record *r)
{
	char comm[17];

	pt_record_comm(r, comm);
	/* An empty comm prints as "" in the kernel's text; keep that. */
	if (!r->comm[0])
		comm[0] = '\0';
	fprintf(f, PAGETRAIL_TEXT_FMT, PAGETRAIL_TEXT_ARGS(r, comm));
}

int pt_record_covers(const struct pagetrail_record *r, unsigned long long pfn)
{
	unsigned int order = r->order > 20 ? 20 : r->order;

	if (r->role == PT_ROLE_INSERT || r->role == PT_ROLE_MAP ||
	    r->role == PT_ROLE_VMA || r->role == PT_ROLE_DENY)
		return r->pfn == pfn;
	return pfn >= r->pfn && pfn - r->pfn < (1ull << order);
}

unsigned int pt_record_kinds(const struct pagetrail_record *r)
{
	/* A record from a file is not trusted to name a kind that exists. */
	return (r->anomalies & ((1u << PT_AN_MAX) - 1)) |
	       (r->anomaly && r->anomaly < PT_AN_MAX ? 1u << r->anomaly : 0);
}

void pt_kinds_str(unsigned int kinds, unsigned int first, char *buf,
		  size_t size)
{
	size_t off = 0;
	unsigned int b;

	buf[0] = '\0';
	if (!kinds && first && first < PT_AN_MAX)
		kinds = 1u << first;
	for (b = 1; b < PT_AN_MAX && off < size; b++) {
		if (!(kinds & (1u << b)))
			continue;
		off += snprintf(buf + off, size - off, "%s%s", off ? "," : "",
				pt_anomaly_name(b));
	}
	if (!buf[0])
		snprintf(buf, size, "-");
}

static int parse_num(const char *v, int hex, unsigned long long *out)
{
	char *end;

	if (!*v)
		return -1;
	errno = 0;
	if (*v == '-')
		*out = (unsigned long long)strtoll(v, &end, 0);
	else
		*out = strtoull(v, &end, hex ? 16 : 0);
	return (errno || *end) ? -1 : 0;
}

static int set_kinds(struct pagetrail_record *r, char *v)
{
	char *k, *save = NULL;
	int id;

	r->anomalies = 0;
	for (k = strtok_r(v, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		id = pt_anomaly_id(k);
		if (id < 0)
			return -1;
		r->anomalies |= 1u << id;
		if (!r->anomaly)
			r->anomaly = (__u8)id;
	}
	return 0;
}

static int set_states(struct pagetrail_record *r, char *v)
{
	char *arrow = strstr(v, "->");
	int a, b;

	if (!arrow)
		return -1;
	*arrow = '\0';
	a = pt_state_id(v);
	b = pt_state_id(arrow + 2);
	if (a < 0 || b < 0)
		return -1;
	r->from_state = (__u8)a;
	r->to_state = (__u8)b;
	return 0;
}

static int set_name(__u8 *dst, int id)
{
	if (id < 0)
		return -1;
	*dst = (__u8)id;
	return 0;
}

/* Keys whose value is an enum name or a composite. */
static int set_named(struct pagetrail_record *r, const char *k, char *v)
{
	if (!strcmp(k, "role"))
		return set_name(&r->role, pt_role_id(v));
	if (!strcmp(k, "cause"))
		return set_name(&r->cause, pt_cause_id(v));
	if (!strcmp(k, "from"))
		return set_name(&r->from_state, pt_state_id(v));
	if (!strcmp(k, "to"))
		return set_name(&r->to_state, pt_state_id(v));
	if (!strcmp(k, "anomaly"))
		return set_name(&r->anomaly, pt_anomaly_id(v));
	if (!strcmp(k, "kind"))
		return set_kinds(r, v);
	if (!strcmp(k, "state"))
		return set_states(r, v);
	if (!strcmp(k, "ctx")) {
		unsigned int c;

		for (c = PT_RUN_TASK; c <= PT_RUN_IRQ; c++)
			if (!strcmp(v, PAGETRAIL_RUN_NAME(c)))
				break;
		if (c > PT_RUN_IRQ)
			return -1;
		r->rflags = (r->rflags & ~PT_RF_RUN_MASK) |
			    c << PT_RF_RUN_SHIFT;
		return 0;
	}
	if (!strcmp(k, "comm")) {
		memset(r->comm, 0, sizeof(r->comm));
		memcpy(r->comm, v, strnlen(v, sizeof(r->comm)));
		return 0;
	}
	return 1;
}

struct pt_numkey {
	const char *key;
	size_t off;
	unsigned char size;
	unsigned char hex;
};

#define NK(k, f, h)                                                  \
	{                                                            \
		k, offsetof(struct pagetrail_record, f),             \
			sizeof(((struct pagetrail_record *)0)->f), h \
	}
static const struct pt_numkey pt_numkeys[] = {
	NK("seq", seq, 0),
	NK("ts", ts_ns, 0),
	NK("cpu", cpu, 0),
	NK("pid", pid, 0),
	NK("tgid", tgid, 0),
	NK("pfn", pfn, 0),
	NK("order", order, 0),
	NK("gen", generation, 0),
	NK("token", token, 1),
	NK("prev_token", prev_token, 1),
	NK("alloc", alloc_seq, 0),
	NK("prev_alloc", prev_alloc_seq, 0),
	NK("idx", index, 0),
	NK("ref", refcount, 0),
	NK("map", mapcount, 0),
	NK("head", head_pfn, 0),
	NK("corder", compound_order, 0),
	NK("pflags", page_flags, 0),
	NK("ret", ret, 0),
	NK("inner_ret", inner_ret, 0),
	NK("aux", aux, 0),
	NK("anomalies", anomalies, 0),
};

static void store(void *dst, unsigned int size, unsigned long long v)
{
	__u8 b = (__u8)v;
	__u16 h = (__u16)v;
	__u32 w = (__u32)v;

	if (size == 1)
		memcpy(dst, &b, 1);
	else if (size == 2)
		memcpy(dst, &h, 2);
	else if (size == 4)
		memcpy(dst, &w, 4);
	else
		memcpy(dst, &v, 8);
}

static int set_key(struct pagetrail_record *r, const char *k, char *v)
{
	unsigned long long n;
	size_t i;
	int rc = set_named(r, k, v);

	if (rc <= 0)
		return rc;
	if (!strcmp(k, "gap")) {
		if (parse_num(v, 0, &n))
			return -1;
		r->rflags |= n ? PT_RF_GAP : 0;
		return 0;
	}
	for (i = 0; i < NELEM(pt_numkeys); i++) {
		if (strcmp(k, pt_numkeys[i].key))
			continue;
		if (parse_num(v, pt_numkeys[i].hex, &n))
			return -1;
		store((char *)r + pt_numkeys[i].off, pt_numkeys[i].size, n);
		if (!strcmp(k, "ref"))
			r->rflags |= PT_RF_SAMPLED;
		return 0;
	}
	return 1;
}

int pt_record_from_kv(const char *line, struct pagetrail_record *r)
{
	char buf[1024], *tok, *save = NULL, *eq;
	int n = 0, rc;

	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "\n")] = '\0';
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		rc = set_key(r, tok, eq + 1);
		if (rc < 0)
			return -1;
		n += rc == 0;
	}
	return n;
}
