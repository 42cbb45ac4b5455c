// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail command: --trace trace.dat. The pagetrail:* events of a
 * trace-cmd recording (or of one host of trace-cmd listen / record -N)
 * become records through libtracecmd and libtraceevent; the anomaly event
 * adds its kind bits to the record of the same seq. What a tracepoint does
 * not carry (previous allocation, compound order) stays 0, and there is no
 * stats, coverage or anomalies file: coverage says so.
 */
#include <stdlib.h>
#include <string.h>
#include "trace.h"
#include "records.h"

#ifdef PT_NO_TRACECMD
int pt_trace_load(struct pt_src *s, const char *path)
{
	(void)s;
	pt_err("%s: this pagetrail was built without libtracecmd", path);
	return -1;
}
#else
#include <trace-cmd.h>
#include <event-parse.h>

#define PT_TRACE_MAX (1u << 24)

struct pt_trace_ctx {
	struct pagetrail_record *rec;
	size_t n, cap;
	unsigned int *kinds; /* anomaly bits by record index, merged at the end */
	int full;
};

static unsigned long long fv(struct tep_event *ev, struct tep_record *r,
			     const char *name)
{
	unsigned long long v = 0;

	if (tep_get_field_val(NULL, ev, name, r, &v, 0))
		return 0;
	return v;
}

static struct pagetrail_record *grow(struct pt_trace_ctx *c)
{
	struct pagetrail_record *nr;
	unsigned int *nk;
	size_t cap;

	if (c->n < c->cap)
		return &c->rec[c->n];
	if (c->cap >= PT_TRACE_MAX) {
		c->full = 1;
		return NULL;
	}
	cap = c->cap ? c->cap * 2 : 4096;
	nr = realloc(c->rec, cap * sizeof(*nr));
	if (!nr)
		return NULL;
	c->rec = nr;
	nk = realloc(c->kinds, cap * sizeof(*nk));
	if (!nk)
		return NULL;
	c->kinds = nk;
	c->cap = cap;
	return &c->rec[c->n];
}

static void page_fields(struct pagetrail_record *p, struct tep_event *ev,
			struct tep_record *r)
{
	p->pfn = fv(ev, r, "pfn");
	p->token = fv(ev, r, "token");
	p->prev_token = fv(ev, r, "prev_token");
	p->head_pfn = fv(ev, r, "head_pfn");
	p->generation = (__u32)fv(ev, r, "generation");
	p->alloc_seq = (__u32)fv(ev, r, "alloc_seq");
	p->index = (__u32)fv(ev, r, "index");
	p->refcount = (__s32)fv(ev, r, "refcount");
	p->mapcount = (__s32)fv(ev, r, "mapcount");
	p->ret = (__s32)fv(ev, r, "ret");
	p->page_flags = (__u32)fv(ev, r, "page_flags");
	p->aux = (__u32)fv(ev, r, "aux");
	p->order = (__u8)fv(ev, r, "order");
	p->cause = (__u8)fv(ev, r, "cause");
	p->from_state = (__u8)fv(ev, r, "from_state");
	p->to_state = (__u8)fv(ev, r, "to_state");
	p->anomaly = (__u8)fv(ev, r, "anomaly");
	p->rflags = PT_RF_SAMPLED | (fv(ev, r, "gap") ? PT_RF_GAP : 0);
}

static void map_fields(struct pagetrail_record *p, struct tep_event *ev,
		       struct tep_record *r)
{
	p->token = fv(ev, r, "token");
	p->pfn = fv(ev, r, "failed_pfn");
	p->index = (__u32)fv(ev, r, "inserts");
	p->ret = (__s32)fv(ev, r, "ret");
	p->inner_ret = (__s32)fv(ev, r, "inner_ret");
	p->aux = (__u32)fv(ev, r, "usage");
	p->cause = (__u8)fv(ev, r, "cause");
}

static int on_event(struct tracecmd_input *h, struct tep_record *r, int cpu,
		    void *data)
{
	struct pt_trace_ctx *c = data;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event_by_record(tep, r);
	struct pagetrail_record *p;
	const char *comm;
	int role;

	if (!ev || !ev->system || strcmp(ev->system, "pagetrail") || !ev->name)
		return 0;
	role = strcmp(ev->name, "anomaly") ? pt_role_id(ev->name) : -2;
	if (role == -1 || role == PT_ROLE_DENY || !(p = grow(c)))
		return c->full ? -1 : 0;
	memset(p, 0, sizeof(*p));
	p->seq = fv(ev, r, "seq");
	p->ts_ns = r->ts;
	p->cpu = (__u16)cpu;
	p->pid = (__u32)tep_data_pid(tep, r);
	p->tgid = p->pid;
	comm = tep_data_comm_from_pid(tep, (int)p->pid);
	if (comm)
		memcpy(p->comm, comm, strnlen(comm, sizeof(p->comm)));
	c->kinds[c->n] = 0;
	if (role == -2) {
		/* Kinds only: merged into the record of the same seq below. */
		c->kinds[c->n] = (unsigned int)fv(ev, r, "anomalies");
		p->role = PT_ROLE_NONE;
	} else if (role == PT_ROLE_MAP || role == PT_ROLE_VMA) {
		p->role = (__u8)role;
		map_fields(p, ev, r);
	} else {
		p->role = (__u8)role;
		page_fields(p, ev, r);
	}
	c->n++;
	return 0;
}

/* Anomaly events give their kinds to the record they describe, then go. */
static size_t merge_anomalies(struct pt_trace_ctx *c)
{
	size_t i, j, out = 0;

	for (i = 0; i < c->n; i++) {
		if (c->rec[i].role != PT_ROLE_NONE)
			continue;
		for (j = 0; j < c->n; j++)
			if (c->rec[j].role != PT_ROLE_NONE &&
			    c->rec[j].seq == c->rec[i].seq)
				c->rec[j].anomalies |= c->kinds[i];
	}
	for (i = 0; i < c->n; i++)
		if (c->rec[i].role != PT_ROLE_NONE)
			c->rec[out++] = c->rec[i];
	return out;
}

int pt_trace_load(struct pt_src *s, const char *path)
{
	struct pt_trace_ctx c = { 0 };
	struct tracecmd_input *h;
	struct pt_seqinfo si;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(path, 0);
	if (!h) {
		pt_err("%s: not a readable trace-cmd trace.dat", path);
		return -1;
	}
	if (tracecmd_iterate_events(h, NULL, 0, on_event, &c) < 0 && !c.full &&
	    !c.n) {
		tracecmd_close(h);
		pt_err("%s: reading its events failed", path);
		free(c.rec);
		free(c.kinds);
		return -1;
	}
	tracecmd_close(h);
	if (c.full)
		pt_err("%s: more than %u pagetrail events, the rest ignored",
		       path, PT_TRACE_MAX);
	s->nrec = merge_anomalies(&c);
	s->rec = c.rec;
	free(c.kinds);
	if (!s->nrec) {
		pt_err("%s: no pagetrail events (recorded with -e pagetrail?)",
		       path);
		return -1;
	}
	pt_records_sort(s->rec, s->nrec);
	pt_seqinfo(s->rec, s->nrec, &si);
	s->seq_gaps = si.gaps;
	return 0;
}
#endif
