/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: where the tracker's IRQs-off section spends its time. Sampling
 * profilers cannot see inside it (their interrupt waits for the section to
 * end), so a build for make bench (PAGETRAIL_HOTPROF=1) reads the clock
 * between its parts and sums per CPU. In every other build these are empty.
 */
#ifndef PAGETRAIL_HOTPROF_H
#define PAGETRAIL_HOTPROF_H

struct seq_file;

/* The parts, in the order the section runs them. */
enum pt_hotprof_part {
	PT_HP_LOOKUP, /* find or create the chunk, take its shard lock */
	PT_HP_RULE, /* the transition rule */
	PT_HP_FILL, /* the record's fields */
	PT_HP_STAMP, /* sequence number, clock, pid and comm */
	PT_HP_HISTORY, /* the chunk's recent-history entry */
	PT_HP_COUNT, /* per-CPU counters, an anomaly's store */
	PT_HP_RING, /* the ring write */
	PT_HP_UNLOCK, /* forgetting, the unlock, what follows it */
	/* record first: the probe path's staging section */
	PT_HP_STAGE_ENTER, /* IRQs off, pause and nesting checks, the fence */
	PT_HP_STAGE_CLOCK, /* the stamp (clock.h) */
	PT_HP_STAGE_WHO, /* cpu, pid, comm, epoch */
	PT_HP_STAGE_WRITE, /* the entries into this CPU's staging */
	PT_HP_STAGE_PUBLISH, /* the release of head, the consumer's kick */
	PT_HP_MAX
};

#ifdef PAGETRAIL_HOTPROF
void pt_hotprof_begin(void);
void pt_hotprof_begin_stage(unsigned int n);
void pt_hotprof_mark(enum pt_hotprof_part part);
void pt_hotprof_show(struct seq_file *m);
#else
static inline void pt_hotprof_begin(void)
{
}
static inline void pt_hotprof_begin_stage(unsigned int n)
{
}
static inline void pt_hotprof_mark(enum pt_hotprof_part part)
{
}
static inline void pt_hotprof_show(struct seq_file *m)
{
}
#endif

#endif
