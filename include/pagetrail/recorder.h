/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: the recorder: sequence numbers, the ring write, freezing and
 * the pause a reset needs. Callers stamp and write with IRQs off (under
 * the chunk's lock for a page transition), so one chunk's records are in
 * sequence order across CPUs and each CPU's ring holds increasing seqs.
 */
#ifndef PAGETRAIL_RECORDER_H
#define PAGETRAIL_RECORDER_H

#include <linux/types.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <pagetrail/clock.h>
#include <uapi/pagetrail.h>

struct pt_ring_stats;

/* Who made an observation, where and when: taken on the probe path. */
struct pt_who {
	u64 ts_ns;
	u32 pid;
	u32 tgid;
	char comm[16]; /* sanitized (pt_comm_sanitize) */
	u16 cpu;
	u8 run; /* enum pagetrail_run */
};

static inline u8 pt_recorder_run(void)
{
	if (in_nmi() || in_hardirq())
		return PT_RUN_IRQ;
	if (in_serving_softirq())
		return PT_RUN_SOFTIRQ;
	/* a task with bottom halves off */
	return in_softirq() ? PT_RUN_BH : PT_RUN_TASK;
}

/*
 * IRQs off: the observer (this CPU, current); from interrupts the
 * interrupted task is not the actor. The thread name as it is (record
 * first sanitizes it later). Inline: the probe path's staging section
 * takes it once per section.
 */
static inline void pt_recorder_actor_raw(struct pt_who *who)
{
	who->cpu = raw_smp_processor_id();
	who->run = pt_recorder_run();
	if (in_task()) {
		who->pid = task_pid_nr(current);
		who->tgid = task_tgid_nr(current);
		memcpy(who->comm, current->comm, sizeof(who->comm));
	} else {
		who->pid = 0;
		who->tgid = 0;
		strscpy_pad(who->comm, "<irq>", sizeof(who->comm));
	}
}

/* IRQs off: the observer, now (pt_clock_now()). */
static inline void pt_recorder_who_raw(struct pt_who *who)
{
	who->ts_ns = pt_clock_now();
	pt_recorder_actor_raw(who);
}

/* The same, the thread name sanitized. */
void pt_recorder_who(struct pt_who *who);

/* Set while a reset is under way: read through pt_recorder_paused(). */
extern bool pt_paused;

/*
 * IRQs off: true while a reset is under way (record nothing, count
 * nothing). Inline: every staging section asks.
 */
static inline bool pt_recorder_paused(void)
{
	/* Pairs with the release in pt_recorder_reset: see the cleared state. */
	return smp_load_acquire(&pt_paused);
}
/*
 * IRQs off: who (@who, or now when NULL), when and the next sequence
 * number. @anomaly with
 * freeze_on_anomaly set freezes the recorder at this very record. Returns
 * false when the record comes after a freeze: it is counted, not kept.
 * Opens the ring's section: pt_recorder_write() must follow in the same
 * IRQs-off section, whatever happens, or readers wait for it.
 */
bool pt_recorder_stamp(struct pagetrail_record *rec, bool anomaly,
		       const struct pt_who *who);
/* IRQs off, on the CPU that stamped @rec: into the ring, or counted frozen. */
void pt_recorder_write(const struct pagetrail_record *rec, bool keep);
/* The highest sequence number handed out (the ring's read limit). */
u64 pt_recorder_issued(void);

void pt_recorder_freeze(bool frozen);
bool pt_recorder_frozen(void);
void pt_recorder_set_freeze_on_anomaly(bool on);
bool pt_recorder_freeze_on_anomaly(void);
void pt_recorder_reset(void (*clear)(void *arg), void *arg);
void pt_recorder_ring_stats(struct pt_ring_stats *st);

#endif /* PAGETRAIL_RECORDER_H */
