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

/* pid -> thread name, from scheduler and task events recorded alongside. */
#define PT_NAMES 65536

struct pt_name {
	int pid;
	char comm[16];
};

struct pt_trace_ctx {
	struct pt_name *names; /* open addressing, pid 0 free */
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

/*
 * The context, from the flags ftrace stamps on every event (the kernel's
 * TRACE_FLAG_HARDIRQ 0x08, _SOFTIRQ 0x10 (serving one), _NMI 0x40 and
 * _BH_OFF 0x80).
 */
static __u8 run_of(struct tep_event *ev, struct tep_record *r)
{
	unsigned long long f = 0;

	if (tep_get_common_field_val(NULL, ev, "common_flags", r, &f, 0))
		return PT_RUN_TASK;
	if (f & (0x08 | 0x40))
		return PT_RUN_IRQ;
	if (f & 0x10)
		return PT_RUN_SOFTIRQ;
	return f & 0x80 ? PT_RUN_BH : PT_RUN_TASK;
}

/*
 * The observer, where the event carries it (pagetrail 0.x since record
 * first): with record_first=1 ftrace's pid, CPU and time are the
 * consumer's that interpreted the observation, not the observer's.
 */
static void actor_fields(struct pagetrail_record *p, struct tep_event *ev,
			 struct tep_record *r)
{
	const char *comm;
	int len = 0;

	if (!tep_find_field(ev, "ts_ns") || !tep_find_field(ev, "comm"))
		return;
	p->ts_ns = fv(ev, r, "ts_ns");
	p->pid = (__u32)fv(ev, r, "pid");
	p->tgid = (__u32)fv(ev, r, "tgid");
	p->cpu = (__u16)fv(ev, r, "cpu");
	p->rflags = (__u8)((p->rflags & ~PT_RF_RUN_MASK) |
			   ((fv(ev, r, "run") << PT_RF_RUN_SHIFT) &
			    PT_RF_RUN_MASK));
	comm = tep_get_field_raw(NULL, ev, "comm", r, &len, 0);
	memset(p->comm, 0, sizeof(p->comm));
	if (comm && len > 0)
		memcpy(p->comm, comm,
		       strnlen(comm, (size_t)len < sizeof(p->comm) ?
					     (size_t)len :
					     sizeof(p->comm)));
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
	p->rflags |= PT_RF_SAMPLED | (fv(ev, r, "gap") ? PT_RF_GAP : 0);
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

static void name_set(struct pt_trace_ctx *c, int pid, const char *comm,
		     int len)
{
	unsigned int i, h;

	if (!c->names || pid <= 0 || !comm || len <= 0)
		return;
	h = (unsigned int)pid * 2654435761u;
	for (i = 0; i < PT_NAMES; i++) {
		struct pt_name *n = &c->names[(h + i) % PT_NAMES];

		if (n->pid && n->pid != pid)
			continue;
		n->pid = pid;
		memset(n->comm, 0, sizeof(n->comm));
		memcpy(n->comm, comm, strnlen(comm, (size_t)len < sizeof(n->comm) ?
						      (size_t)len : sizeof(n->comm)));
		return;
	}
}

static const char *name_get(const struct pt_trace_ctx *c, int pid)
{
	unsigned int i, h = (unsigned int)pid * 2654435761u;

	for (i = 0; c->names && i < PT_NAMES; i++) {
		const struct pt_name *n = &c->names[(h + i) % PT_NAMES];

		if (!n->pid)
			return NULL;
		if (n->pid == pid)
			return n->comm;
	}
	return NULL;
}

/*
 * trace-cmd record -N sends the saved command lines when it connects, so
 * a thread born later has no name there; sched_switch and task_rename, when
 * recorded too, carry it. task_newtask does not: its comm is the parent's
 * (a kernel thread is "kthreadd" until renamed), so when the rename is among
 * lost records the thread stays unnamed rather than misnamed.
 */
static void learn_name(struct pt_trace_ctx *c, struct tep_event *ev,
		       struct tep_record *r)
{
	static const struct {
		const char *system, *name, *pid, *comm;
	} src[] = {
		{ "sched", "sched_switch", "next_pid", "next_comm" },
		{ "sched", "sched_switch", "prev_pid", "prev_comm" },
		{ "task", "task_rename", "pid", "newcomm" },
	};
	size_t i;
	int len;

	for (i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		const char *comm;

		if (strcmp(ev->system, src[i].system) ||
		    strcmp(ev->name, src[i].name))
			continue;
		comm = tep_get_field_raw(NULL, ev, src[i].comm, r, &len, 0);
		name_set(c, (int)fv(ev, r, src[i].pid), comm, len);
	}
}

/* Records whose thread the command lines did not name get a learnt name. */
static void fill_names(struct pt_trace_ctx *c, size_t n)
{
	const char *comm;
	size_t i;

	for (i = 0; i < n; i++) {
		if (c->rec[i].comm[0] && strcmp(c->rec[i].comm, "<...>"))
			continue;
		comm = name_get(c, (int)c->rec[i].pid);
		if (!comm)
			continue;
		memset(c->rec[i].comm, 0, sizeof(c->rec[i].comm));
		memcpy(c->rec[i].comm, comm, strnlen(comm, sizeof(c->rec[i].comm)));
	}
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

	if (!ev || !ev->system || !ev->name)
		return 0;
	if (strcmp(ev->system, "pagetrail")) {
		learn_name(c, ev, r);
		return 0;
	}
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
	p->rflags = (__u8)(run_of(ev, r) << PT_RF_RUN_SHIFT);
	actor_fields(p, ev, r);
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
	c.names = calloc(PT_NAMES, sizeof(*c.names));
	if (tracecmd_iterate_events(h, NULL, 0, on_event, &c) < 0 && !c.full &&
	    !c.n) {
		tracecmd_close(h);
		pt_err("%s: reading its events failed", path);
		free(c.rec);
		free(c.kinds);
		free(c.names);
		return -1;
	}
	tracecmd_close(h);
	if (c.full)
		pt_err("%s: more than %u pagetrail events, the rest ignored",
		       path, PT_TRACE_MAX);
	s->nrec = merge_anomalies(&c);
	fill_names(&c, s->nrec);
	s->rec = c.rec;
	free(c.kinds);
	free(c.names);
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
