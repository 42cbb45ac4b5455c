// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the recorder. No lock of its own: the sequence number is one
 * atomic, whose top bit is the freeze, so "frozen after record N" is
 * decided by the same instruction that hands out N; pausing for a reset
 * waits for an RCU grace period, because every writer runs with IRQs off.
 */
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <pagetrail/recorder.h>
#include <pagetrail/record.h>
#include <pagetrail/ring.h>

#define PT_SEQ_FROZEN BIT_ULL(63)

static atomic64_t pt_seq = ATOMIC64_INIT(0);
bool pt_paused;
static bool pt_freeze_on_anomaly;

void pt_recorder_who(struct pt_who *who)
{
	pt_recorder_who_raw(who);
	/* Once, here: pages, anomalies and tracepoints print it too. */
	pt_comm_sanitize(who->comm, sizeof(who->comm));
}

static void pt_recorder_set_who(struct pagetrail_record *rec,
				const struct pt_who *who)
{
	rec->ts_ns = who->ts_ns;
	rec->cpu = who->cpu;
	rec->rflags = (rec->rflags & ~PT_RF_RUN_MASK) |
		      who->run << PT_RF_RUN_SHIFT;
	rec->pid = who->pid;
	rec->tgid = who->tgid;
	memcpy(rec->comm, who->comm, sizeof(rec->comm));
}

/* The ring's read limit: every number up to this one is handed out. */
u64 pt_recorder_issued(void)
{
	return atomic64_read(&pt_seq) & ~PT_SEQ_FROZEN;
}

bool pt_recorder_stamp(struct pagetrail_record *rec, bool anomaly,
		       const struct pt_who *who)
{
	struct pt_who now;
	s64 old, v;
	bool keep;

	/* Until our record is out, readers stop below the number we take. */
	pt_ring_enter(pt_recorder_issued() + 1);
	if (anomaly && READ_ONCE(pt_freeze_on_anomaly)) {
		/* Take the next number and freeze in one step: it is the last kept. */
		old = atomic64_read(&pt_seq);
		do {
			v = (old + 1) | PT_SEQ_FROZEN;
		} while (!atomic64_try_cmpxchg(&pt_seq, &old, v));
		keep = !(old & PT_SEQ_FROZEN);
	} else {
		v = atomic64_inc_return(&pt_seq);
		keep = !(v & PT_SEQ_FROZEN);
	}
	rec->seq = v & ~PT_SEQ_FROZEN;
	if (!who) {
		pt_recorder_who(&now);
		who = &now;
	}
	pt_recorder_set_who(rec, who);
	return keep;
}

void pt_recorder_write(const struct pagetrail_record *rec, bool keep)
{
	if (keep)
		pt_ring_write(rec);
	else
		pt_ring_count_frozen();
	pt_ring_leave();
}

/* By control: records stamped from now on are counted, not kept. */
void pt_recorder_freeze(bool frozen)
{
	if (frozen)
		atomic64_or(PT_SEQ_FROZEN, &pt_seq);
	else
		atomic64_andnot(PT_SEQ_FROZEN, &pt_seq);
}

bool pt_recorder_frozen(void)
{
	return atomic64_read(&pt_seq) & PT_SEQ_FROZEN;
}

void pt_recorder_set_freeze_on_anomaly(bool on)
{
	WRITE_ONCE(pt_freeze_on_anomaly, on);
}

bool pt_recorder_freeze_on_anomaly(void)
{
	return READ_ONCE(pt_freeze_on_anomaly);
}

/*
 * Clear everything, exactly. Writers check the pause with IRQs off, inside
 * the section that stamps and writes, and such a section is an RCU reader:
 * after the grace period none is left inside the table or the ring, and
 * the ones that start later see the pause. Observations made while paused
 * are neither stamped nor counted; they belong to neither side of the
 * reset. Sequence numbers go on, so a reader sees them increase across
 * resets; a freeze stays as it was.
 */
void pt_recorder_reset(void (*clear)(void *arg), void *arg)
{
	/* Two resets at once: one unpause. */
	static DEFINE_MUTEX(pt_reset_lock);

	mutex_lock(&pt_reset_lock);
	WRITE_ONCE(pt_paused, true);
	synchronize_rcu();
	clear(arg);
	/* Writers that see the pause lifted see everything clear() did. */
	smp_store_release(&pt_paused, false);
	mutex_unlock(&pt_reset_lock);
}

void pt_recorder_ring_stats(struct pt_ring_stats *st)
{
	pt_ring_get_stats(st);
}
