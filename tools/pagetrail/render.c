// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: statements and return chains as text, under a naming policy. */
#include <stdio.h>
#include <string.h>
#include "analyze.h"

static void raw_pfn(void *ctx, unsigned long long pfn, char *buf, size_t n)
{
	(void)ctx;
	snprintf(buf, n, "pfn 0x%llx", pfn);
}

static void raw_thread(void *ctx, const struct pagetrail_record *r, char *buf,
		       size_t n)
{
	char comm[17];

	(void)ctx;
	pt_record_comm(r, comm);
	snprintf(buf, n, "%s/%u", comm, r->pid);
}

static void raw_alloc(void *ctx, unsigned long long token, unsigned int seq,
		      char *buf, size_t n)
{
	(void)ctx;
	(void)token;
	if (seq)
		snprintf(buf, n, "allocation #%u", seq);
	else
		snprintf(buf, n, "no allocation");
}

const struct pt_namer pt_raw_namer = { raw_pfn, raw_thread, raw_alloc, NULL };

const char *pt_label_name(enum pt_label l)
{
	return l == PT_OBSERVED ? "OBSERVED" :
	       l == PT_DERIVED	? "DERIVED" :
				  "UNKNOWN";
}

static void pflags_str(unsigned int f, char *buf, size_t n)
{
	static const char *const names[] = { "head",  "tail",	  "compound",
					     "buddy", "slab",	  "anon",
					     "typed", "reserved", "invalid",
					     "pp" };
	size_t off = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && off < n; i++)
		if (f & (1u << i))
			off += snprintf(buf + off, n - off, "%s%s",
					off ? "|" : "", names[i]);
	if (!off)
		snprintf(buf, n, "none");
}

/* The value of one {X} directive for record r. */
static void field(char c, const struct pagetrail_record *r,
		  const struct pt_namer *nm, char *v, size_t n)
{
	switch (c) {
	case 'P':
		nm->pfn(nm->ctx, r->pfn, v, n);
		break;
	case 'T':
		nm->thread(nm->ctx, r, v, n);
		break;
	case 'A':
		nm->alloc(nm->ctx, r->token, r->alloc_seq, v, n);
		break;
	case 'a':
		nm->alloc(nm->ctx, r->prev_token, r->prev_alloc_seq, v, n);
		break;
	case 'G':
		snprintf(v, n, "%u", r->generation);
		break;
	case 'R':
		snprintf(v, n, "%d", r->refcount);
		break;
	case 'M':
		snprintf(v, n, "%d", r->mapcount);
		break;
	case 'E':
		snprintf(v, n, "%d", r->ret);
		break;
	case 'F':
		snprintf(v, n, "%s", pt_state_name(r->from_state));
		break;
	case 'S':
		snprintf(v, n, "%s", pt_state_name(r->to_state));
		break;
	case 'C':
		snprintf(v, n, "%s",
			 r->cause ? pt_cause_name(r->cause) :
				    pt_role_name(r->role));
		break;
	case 'W':
		/* Where an admitted chunk came from: the record names it either way. */
		if (r->alloc_seq || r->prev_alloc_seq)
			nm->alloc(nm->ctx,
				  r->alloc_seq ? r->token : r->prev_token,
				  r->alloc_seq ? r->alloc_seq :
						 r->prev_alloc_seq,
				  v, n);
		else
			snprintf(v, n,
				 "an allocation the record does not name");
		break;
	case 'r':
		snprintf(v, n, "%s", pt_role_name(r->role));
		break;
	case 'Q':
		/* a page_pool, by the serial pagetrail gave it at its creation */
		if (r->alloc_seq)
			snprintf(v, n, "pool #%u", r->alloc_seq);
		else
			snprintf(v, n, "a pool created before pagetrail attached");
		break;
	case 'N':
		snprintf(v, n, "%d", (int)r->aux);
		break;
	case 'O':
		snprintf(v, n, "%u", r->order);
		break;
	case 'I':
		snprintf(v, n, "%u", r->index);
		break;
	case 'K':
		pt_kinds_str(r->anomalies, r->anomaly, v, n);
		break;
	case 'X':
		pflags_str(r->page_flags, v, n);
		break;
	default:
		snprintf(v, n, "{%c}", c);
		break;
	}
}

void pt_step_render(const struct pt_step *st, const struct pt_namer *nm,
		    char *buf, size_t n)
{
	const char *p = st->what;
	size_t off = 0;
	char v[96];

	buf[0] = '\0';
	while (*p && off + 1 < n) {
		if (p[0] == '{' && p[1] && p[2] == '}' && st->r) {
			field(p[1], st->r, nm, v, sizeof(v));
			off += snprintf(buf + off, n - off, "%s", v);
			p += 3;
			continue;
		}
		buf[off++] = *p++;
		buf[off] = '\0';
	}
	if (off >= n)
		buf[n - 1] = '\0';
}

void pt_chain_render(const struct pagetrail_record *ins,
		     const struct pagetrail_record *map,
		     const struct pt_namer *nm, char *buf, size_t n)
{
	char page[64], thr[64];

	nm->pfn(nm->ctx, map ? map->pfn : ins->pfn, page, sizeof(page));
	nm->thread(nm->ctx, map ? map : ins, thr, sizeof(thr));
	if (!map) {
		snprintf(
			buf, n,
			"vm_insert_page(%s) = %d on %s; no failed mmap recorded after it",
			page, ins->ret, thr);
		return;
	}
	/* aux of a map record holds nvidia_mmap_helper's return, 32 bits. */
	snprintf(
		buf, n,
		"vm_insert_page(%s) = %d -> nvidia_mmap_helper = %d -> nvidia_mmap = %d -> mmap(2) fails with %s on %s",
		page, map->inner_ret, (int)map->aux, map->ret,
		map->ret == -11 ? "EAGAIN" : "an error", thr);
}

size_t pt_page_records(const struct pt_src *s, unsigned long long pfn,
		       const struct pagetrail_record **out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrec && n < max; i++)
		if (pt_record_covers(&s->rec[i], pfn))
			out[n++] = &s->rec[i];
	return n;
}

void pt_row_header(FILE *f)
{
	fprintf(f,
		"  %-8s %10s  %-22s %3s %-7s %-8s %-27s %3s %5s %4s %4s %4s  %s\n",
		"seq", "time(ms)", "thread", "cpu", "role", "cause", "state",
		"gen", "alloc", "idx", "ref", "ret", "anomaly");
}

void pt_row_print(FILE *f, const struct pagetrail_record *r,
		  unsigned long long t0)
{
	char comm[17], thr[40], st[40], kinds[160], ref[16];

	pt_record_comm(r, comm);
	snprintf(thr, sizeof(thr), "%s/%u", comm, r->pid);
	snprintf(st, sizeof(st), "%s->%s", pt_state_name(r->from_state),
		 pt_state_name(r->to_state));
	if (r->role == PT_ROLE_MAP)
		snprintf(st, sizeof(st), "(mmap returns, inner %d)",
			 r->inner_ret);
	pt_kinds_str(r->anomalies, r->anomaly, kinds, sizeof(kinds));
	if (r->rflags & PT_RF_SAMPLED)
		snprintf(ref, sizeof(ref), "%d", r->refcount);
	else
		snprintf(ref, sizeof(ref), "-");
	fprintf(f,
		"  %-8llu %10.3f  %-22s %3u %-7s %-8s %-27s %3u %5u %4u %4s %4d  %s%s\n",
		(unsigned long long)r->seq, (double)(r->ts_ns - t0) / 1e6, thr,
		r->cpu, pt_role_name(r->role), pt_cause_name(r->cause), st,
		r->generation, r->alloc_seq, r->index, ref, r->ret, kinds,
		(r->rflags & PT_RF_GAP) ? " gap" : "");
}

struct json_object *pt_row_json(const struct pagetrail_record *r)
{
	struct json_object *o = json_object_new_object(),
			   *k = json_object_new_array();
	char buf[32], comm[17];
	unsigned int b;

#define I64(n, v) json_object_object_add(o, n, json_object_new_int64(v))
#define STR(n, v) json_object_object_add(o, n, json_object_new_string(v))
	I64("seq", (long long)r->seq);
	I64("ts_ns", (long long)r->ts_ns);
	pt_record_comm(r, comm);
	STR("comm", comm);
	I64("pid", r->pid);
	I64("tgid", r->tgid);
	I64("cpu", r->cpu);
	STR("role", pt_role_name(r->role));
	json_object_object_add(o, "cause",
			       r->cause ? json_object_new_string(
						  pt_cause_name(r->cause)) :
					  NULL);
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)r->pfn);
	STR("pfn", buf);
	I64("order", r->order);
	STR("from", pt_state_name(r->from_state));
	STR("to", pt_state_name(r->to_state));
	I64("generation", r->generation);
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)r->token);
	STR("token", buf);
	I64("alloc", r->alloc_seq);
	I64("prev_alloc", r->prev_alloc_seq);
	I64("index", r->index);
	/* Not sampled: the page was not read, null rather than absent. */
	if (r->rflags & PT_RF_SAMPLED) {
		I64("refcount", r->refcount);
		I64("mapcount", r->mapcount);
		snprintf(buf, sizeof(buf), "0x%llx",
			 (unsigned long long)r->head_pfn);
		STR("head_pfn", buf);
		I64("page_flags", r->page_flags);
	} else {
		json_object_object_add(o, "refcount", NULL);
		json_object_object_add(o, "mapcount", NULL);
		json_object_object_add(o, "head_pfn", NULL);
		json_object_object_add(o, "page_flags", NULL);
	}
	I64("ret", r->ret);
	json_object_object_add(o, "inner_ret",
			       r->role == PT_ROLE_MAP ?
				       json_object_new_int64(r->inner_ret) :
				       NULL);
	json_object_object_add(o, "gap",
			       json_object_new_boolean(r->rflags & PT_RF_GAP));
	STR("context", PAGETRAIL_RUN_NAME(PT_RF_RUN(r)));
	for (b = 1; b < PT_AN_MAX; b++)
		if (pt_record_kinds(r) & (1u << b))
			json_object_array_add(
				k, json_object_new_string(pt_anomaly_name(b)));
	json_object_object_add(o, "anomalies", k);
#undef I64
#undef STR
	return o;
}
