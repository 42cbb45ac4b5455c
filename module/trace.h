/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: module tracepoints, system "pagetrail": one per role plus anomaly. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pagetrail

#if !defined(_PAGETRAIL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PAGETRAIL_TRACE_H

#include <linux/tracepoint.h>
#include <uapi/pagetrail.h>
#include <pagetrail/devcg.h>
#include "compat.h"

/* Export the enum values so trace-cmd and perf can print the names. */
#define PT_TRACE_ENUM_ST(s, n, d) TRACE_DEFINE_ENUM(PT_ST_##s);
#define PT_TRACE_ENUM_AN(s, n, d) TRACE_DEFINE_ENUM(PT_AN_##s);
#define PT_TRACE_ENUM_CAUSE(s, n, d) TRACE_DEFINE_ENUM(PT_CAUSE_##s);
PAGETRAIL_STATES(PT_TRACE_ENUM_ST)
PAGETRAIL_ANOMALIES(PT_TRACE_ENUM_AN)
PAGETRAIL_CAUSES(PT_TRACE_ENUM_CAUSE)

/* __print_symbolic() lists; the final entry takes the trailing comma. */
#define PT_SYM_ST(s, n, d) { PT_ST_##s, n },
#define PT_SYM_AN(s, n, d) { PT_AN_##s, n },
#define PT_SYM_CAUSE(s, n, d) { PT_CAUSE_##s, n },
#define PT_STATE_SYMBOLS PAGETRAIL_STATES(PT_SYM_ST) { PT_ST_MAX, "?" }
#define PT_ANOMALY_SYMBOLS PAGETRAIL_ANOMALIES(PT_SYM_AN) { PT_AN_MAX, "?" }
#define PT_CAUSE_SYMBOLS PAGETRAIL_CAUSES(PT_SYM_CAUSE) { PT_CAUSE_MAX, "?" }

/*
 * Who made the observation, where and when (ts_ns, pid, tgid, cpu, run,
 * comm, in every event but devcg_deny): ftrace's own pid, CPU and time are
 * the interpreter's, which with record_first=1 is the consumer (its thread,
 * or the reader of a pagetrail file), not the observer. Written out in
 * each class: checkpatch takes a macro of field declarations for a bug.
 */
#define PT_TP_ACTOR_ASSIGN(r)					\
	do {							\
		__entry->ts_ns = (r)->ts_ns;			\
		__entry->pid = (r)->pid;			\
		__entry->tgid = (r)->tgid;			\
		__entry->cpu = (r)->cpu;			\
		__entry->run = PT_RF_RUN(r);			\
		memcpy(__entry->comm, (r)->comm, 16);		\
	} while (0)
#define PT_TP_ACTOR_FMT "pid=%u comm=%.16s cpu=%u ts_ns=%llu "

DECLARE_EVENT_CLASS(pagetrail_page,
	TP_PROTO(const struct pagetrail_record *r),
	TP_ARGS(r),
	TP_STRUCT__entry(
		__field(u64, ts_ns)
		__field(u32, pid)
		__field(u32, tgid)
		__field(u16, cpu)
		__field(u8, run)
		__array(char, comm, 16)
		__field(u64, seq)
		__field(u64, pfn)
		__field(u64, token)
		__field(u64, prev_token)
		__field(u64, head_pfn)
		__field(u32, generation)
		__field(u32, alloc_seq)
		__field(u32, index)
		__field(s32, refcount)
		__field(s32, mapcount)
		__field(s32, ret)
		__field(u32, page_flags)
		__field(u32, aux)
		__field(u8, order)
		__field(u8, cause)
		__field(u8, from_state)
		__field(u8, to_state)
		__field(u8, anomaly)
		__field(u8, gap)
	),
	TP_fast_assign(
		PT_TP_ACTOR_ASSIGN(r);
		__entry->seq = r->seq;
		__entry->pfn = r->pfn;
		__entry->token = r->token;
		__entry->prev_token = r->prev_token;
		__entry->head_pfn = r->head_pfn;
		__entry->generation = r->generation;
		__entry->alloc_seq = r->alloc_seq;
		__entry->index = r->index;
		__entry->refcount = r->refcount;
		__entry->mapcount = r->mapcount;
		__entry->ret = r->ret;
		__entry->page_flags = r->page_flags;
		__entry->aux = r->aux;
		__entry->order = r->order;
		__entry->cause = r->cause;
		__entry->from_state = r->from_state;
		__entry->to_state = r->to_state;
		__entry->anomaly = r->anomaly;
		__entry->gap = !!(r->rflags & PT_RF_GAP);
	),
	TP_printk(PT_TP_ACTOR_FMT "seq=%llu pfn=0x%llx order=%u %s->%s cause=%s gen=%u token=%016llx alloc=%u idx=%u ref=%d map=%d head=0x%llx ret=%d gap=%u anomaly=%s",
		  __entry->pid, __entry->comm, __entry->cpu, __entry->ts_ns, __entry->seq, __entry->pfn, __entry->order,
		  __print_symbolic(__entry->from_state, PT_STATE_SYMBOLS),
		  __print_symbolic(__entry->to_state, PT_STATE_SYMBOLS),
		  __print_symbolic(__entry->cause, PT_CAUSE_SYMBOLS),
		  __entry->generation, __entry->token, __entry->alloc_seq, __entry->index,
		  __entry->refcount, __entry->mapcount, __entry->head_pfn, __entry->ret,
		  __entry->gap, __print_symbolic(__entry->anomaly, PT_ANOMALY_SYMBOLS))
);

#define PT_PAGE_EVENT(name)						\
	DEFINE_EVENT(pagetrail_page, name,				\
		     TP_PROTO(const struct pagetrail_record *r), TP_ARGS(r))

PT_PAGE_EVENT(admit);
PT_PAGE_EVENT(scrub);
PT_PAGE_EVENT(take);
PT_PAGE_EVENT(assign);
PT_PAGE_EVENT(reclaim);
PT_PAGE_EVENT(free);
PT_PAGE_EVENT(release);
PT_PAGE_EVENT(alloc);
PT_PAGE_EVENT(insert);

DECLARE_EVENT_CLASS(pagetrail_map,
	TP_PROTO(const struct pagetrail_record *r),
	TP_ARGS(r),
	TP_STRUCT__entry(
		__field(u64, ts_ns)
		__field(u32, pid)
		__field(u32, tgid)
		__field(u16, cpu)
		__field(u8, run)
		__array(char, comm, 16)
		__field(u64, seq)
		__field(u64, token)
		__field(u64, failed_pfn)
		__field(u32, inserts)
		__field(s32, ret)
		__field(s32, inner_ret)
		__field(u32, usage)
		__field(u8, cause)
	),
	TP_fast_assign(
		PT_TP_ACTOR_ASSIGN(r);
		__entry->seq = r->seq;
		__entry->token = r->token;
		__entry->failed_pfn = r->pfn;
		__entry->inserts = r->index;
		__entry->ret = r->ret;
		__entry->inner_ret = r->inner_ret;
		__entry->usage = r->aux;
		__entry->cause = r->cause;
	),
	TP_printk(PT_TP_ACTOR_FMT "seq=%llu token=%016llx cause=%s inserts=%u ret=%d inner_ret=%d failed_pfn=0x%llx usage=%u",
		  __entry->pid, __entry->comm, __entry->cpu, __entry->ts_ns, __entry->seq, __entry->token,
		  __print_symbolic(__entry->cause, PT_CAUSE_SYMBOLS),
		  __entry->inserts, __entry->ret, __entry->inner_ret, __entry->failed_pfn,
		  __entry->usage)
);

/* map: the driver's mmap returned; vma: its VMA was opened or closed. */
DEFINE_EVENT(pagetrail_map, map,
	     TP_PROTO(const struct pagetrail_record *r), TP_ARGS(r));
DEFINE_EVENT(pagetrail_map, vma,
	     TP_PROTO(const struct pagetrail_record *r), TP_ARGS(r));

TRACE_EVENT(anomaly,
	TP_PROTO(const struct pagetrail_record *r),
	TP_ARGS(r),
	TP_STRUCT__entry(
		__field(u64, ts_ns)
		__field(u32, pid)
		__field(u32, tgid)
		__field(u16, cpu)
		__field(u8, run)
		__array(char, comm, 16)
		__field(u64, seq)
		__field(u64, pfn)
		__field(u64, token)
		__field(u64, prev_token)
		__field(u32, generation)
		__field(u32, anomalies)
		__field(s32, refcount)
		__field(u8, anomaly)
		__field(u8, role)
		__field(u8, from_state)
	),
	TP_fast_assign(
		PT_TP_ACTOR_ASSIGN(r);
		__entry->seq = r->seq;
		__entry->pfn = r->pfn;
		__entry->token = r->token;
		__entry->prev_token = r->prev_token;
		__entry->generation = r->generation;
		__entry->anomalies = r->anomalies;
		__entry->refcount = r->refcount;
		__entry->anomaly = r->anomaly;
		__entry->role = r->role;
		__entry->from_state = r->from_state;
	),
	TP_printk(PT_TP_ACTOR_FMT "seq=%llu kind=%s pfn=0x%llx state=%s gen=%u ref=%d token=%016llx prev_token=%016llx all=0x%x",
		  __entry->pid, __entry->comm, __entry->cpu, __entry->ts_ns, __entry->seq, __print_symbolic(__entry->anomaly, PT_ANOMALY_SYMBOLS),
		  __entry->pfn, __print_symbolic(__entry->from_state, PT_STATE_SYMBOLS),
		  __entry->generation, __entry->refcount, __entry->token,
		  __entry->prev_token, __entry->anomalies)
);

/* devcg_deny: a device-cgroup denial, emitted once its strings are known. */
/* @e: the strings, octal escaped (comm is sanitised at capture). */
TRACE_EVENT(devcg_deny,
	TP_PROTO(const struct pt_devcg_denial *d,
		 const struct pt_devcg_escaped *e),
	TP_ARGS(d, e),
	TP_STRUCT__entry(
		__field(u64, id)
		__field(u64, cgroup_id)
		__field(u32, pid)
		__field(u32, tgid)
		__field(u32, major)
		__field(u32, minor)
		__field(s32, err)
		__field(u16, type)
		__field(u16, access)
		__field(u8, source)
		__array(char, comm, 16)
		__string(name, e->name)
		__string(cgroup, e->cgroup)
		__string(path, e->path)
	),
	TP_fast_assign(
		__entry->id = d->id;
		__entry->cgroup_id = d->cgroup_id;
		__entry->pid = d->pid;
		__entry->tgid = d->tgid;
		__entry->major = d->major;
		__entry->minor = d->minor;
		__entry->err = d->err;
		__entry->type = d->type;
		__entry->access = d->access;
		__entry->source = d->source;
		memcpy(__entry->comm, d->comm, 16);
		pt_assign_str(name, e->name);
		pt_assign_str(cgroup, e->cgroup);
		pt_assign_str(path, e->path);
	),
	TP_printk("id=%llu pid=%u tgid=%u comm=%.16s type=%s dev=%u:%u name=%s access=%s err=%d source=%s cgroup_id=%llu cgroup=%s path=%s",
		  __entry->id, __entry->pid, __entry->tgid, __entry->comm,
		  __entry->type == 1 ? "b" : "c", __entry->major, __entry->minor,
		  __get_str(name), __print_flags(__entry->access, "",
		  { 2, "r" }, { 4, "w" }, { 1, "m" }), __entry->err,
		  __print_symbolic(__entry->source, { 0, "unknown" }, { 1, "v1" },
				   { 2, "bpf" }),
		  __entry->cgroup_id, __get_str(cgroup), __get_str(path))
);

#endif /* _PAGETRAIL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

#ifndef PAGETRAIL_TRACE_DISPATCH
#define PAGETRAIL_TRACE_DISPATCH
void pt_trace_record(const struct pagetrail_record *rec);
#endif
