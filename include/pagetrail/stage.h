/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: record first (record_first=1). The probe path stages what it
 * observed, with who and when, into this CPU's staging ring and returns;
 * a consumer (a work item, or any reader of pagetrail's files) takes the
 * staged observations of all CPUs in time order and interprets them: the
 * chunk table, the rules, the records, the tracepoints.
 */
#ifndef PAGETRAIL_STAGE_H
#define PAGETRAIL_STAGE_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <pagetrail/tracker.h>

struct seq_file;

/* What a staged entry asks of the interpreter. */
enum pt_stage_kind {
	PT_STAGE_PAGE, /* a page observation: pt_tracker_observe() */
	PT_STAGE_EVENT, /* a record that is not a transition (MAP, VMA) */
	/*
	 * A take of a chunk if the table holds it pooled, and the chunk's
	 * assignment, from the pool if the take was recorded, else fresh:
	 * two entries, staged together (pt_observe_take_or_fresh()).
	 */
	PT_STAGE_TAKE_OR_FRESH,
	PT_STAGE_ASSIGN_AFTER_TAKE,
	/* A page observation a call held (hold.h): pre-filtered when held. */
	PT_STAGE_HELD_PAGE,
};

struct pt_stage_stats {
	u64 observed; /* observations offered: staged + lost */
	u64 consumed; /* interpreted */
	u64 buffered; /* staged, not yet interpreted */
	u64 slots; /* 64-byte slots written: observations, heads, wide halves */
	u64 wide; /* observations that did not fit one slot (staged.h) */
	u64 lost; /* staging full, or an observation nested in another */
	u64 stacks; /* stacks the probe path took */
	u64 stacks_lost; /* wanted, but the stack slots were full */
	/*
	 * Writes the probe path made to a cache line other CPUs write too:
	 * a staged admission's pre-filter counter (one of 256 lines, by
	 * pfn), a loss's new epoch. Everything else it writes is its CPU's.
	 */
	u64 shared_writes;
	u64 consumer_runs;
	u64 consumer_ns; /* the consumer's time, all runs */
	u64 lag_max_ns; /* the longest an observation waited */
};

/*
 * @kb_per_cpu: staging per CPU, 0 leaves record first off; @wake_pct: how
 * full a CPU's staging gets before the consumer is woken (0: at once).
 */
int pt_stage_init(unsigned int kb_per_cpu, unsigned int wake_pct);
void pt_stage_exit(void);
/* Set once at load: whether the probe path stages (stage.c). */
extern bool pt_stage_on;

/* Inline: every probe hit asks. */
static inline bool pt_stage_enabled(void)
{
	return READ_ONCE(pt_stage_on);
}

/*
 * Probe context, any: stage @n (1 or 2) observations of @kind, one after
 * the other. False when none was staged (paused, full, nested).
 */
bool pt_stage_push(enum pt_stage_kind kind, const struct pt_obs *obs,
		   unsigned int n);
/* Probe context: @n page observations in one section (hold.h). */
bool pt_stage_push_pages(const struct pt_obs *obs, unsigned int n);
/*
 * Probe context: @obs, which a call holds, creates its chunk: let the
 * pre-filter pass it from now (pt_stage_pending_drop() if it is dropped).
 */
void pt_stage_pending_hold(const struct pt_obs *obs);
void pt_stage_pending_drop(const struct pt_obs *obs);
/*
 * Whether staging @obs takes the probe path's stack: the stack an
 * interpretation cannot take later, the culprit's where a kernel path
 * outside the pool touches a pool page (pre-filtered), and the observer's
 * where the page itself looks wrong. An anomaly judged only from the
 * chunk's state (DOUBLE_ADMIT on the driver's own path) has none: counted
 * (anomalies_unstacked), and said where it is shown. Inline: asked of
 * every observation staged.
 */
static inline bool pt_stage_wants_stack(const struct pt_obs *obs)
{
	bool no_pool_refs = obs->sampled_pool_refs && obs->pool_refs <= 0;

	switch (obs->role) {
	case PT_ROLE_FREE:
		/* Not the pool's own reclaim: a free of a page it may hold. */
		return obs->cause != PT_CAUSE_RECLAIM;
	case PT_ROLE_ALLOC:
		return true;
	case PT_ROLE_UNREF:
		return no_pool_refs;
	case PT_ROLE_INSERT:
		/* A page mapped twice holds two references: that is fine. */
		return obs->ret || (obs->sampled && obs->refcount <= 0);
	case PT_ROLE_ADMIT:
	case PT_ROLE_TAKE:
		return no_pool_refs || (obs->sampled && obs->refcount != 1);
	default:
		return obs->event_anomaly;
	}
}
/* Probe context: a walk's observations staged together (see stage.c). */
bool pt_stage_batch_open(void);
void pt_stage_batch_close(bool opened);
/* Process context: interpret everything staged before this call. */
void pt_stage_drain(void);
/* With every writer held off (a reset): forget what is staged. */
void pt_stage_clear(void);
void pt_stage_get_stats(struct pt_stage_stats *st);
/* The size of one slot of a staging ring (staged.h). */
size_t pt_stage_slot_bytes(void);

#endif /* PAGETRAIL_STAGE_H */
