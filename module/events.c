// SPDX-License-Identifier: GPL-2.0
/* pagetrail: stamp records, feed the flight recorder and the tracepoints. */

#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/atomic.h>
#include <linux/preempt.h>
#include <pagetrail/events.h>
#include <pagetrail/tracker.h>
#include <pagetrail/ring.h>
#include <pagetrail/record.h>
#include "trace.h"

static atomic64_t pt_seq = ATOMIC64_INIT(0);
static bool pt_freeze_on_anomaly;

/* Who and when; from interrupts the interrupted task is not the actor. */
void pt_events_stamp(struct pagetrail_record *rec)
{
	rec->seq = atomic64_inc_return(&pt_seq);
	rec->ts_ns = local_clock();
	rec->cpu = raw_smp_processor_id();
	if (in_task()) {
		rec->pid = task_pid_nr(current);
		rec->tgid = task_tgid_nr(current);
		memcpy(rec->comm, current->comm, sizeof(rec->comm));
		/* Once, here: pages, anomalies and tracepoints print it too. */
		pt_comm_sanitize(rec->comm, sizeof(rec->comm));
	} else {
		rec->pid = 0;
		rec->tgid = 0;
		strscpy_pad(rec->comm, "<irq>", sizeof(rec->comm));
	}
}

/* The tracker already wrote the ring (and froze it); now the tracepoints. */
static void pt_emit(const struct pagetrail_record *rec)
{
	pt_trace_record(rec);
}

/* A page observation: through the state machine, then out. */
bool pt_observe(const struct pt_obs *obs)
{
	struct pagetrail_record rec;

	if (!pt_tracker_observe(obs, &rec))
		return false;
	pt_emit(&rec);
	return true;
}

/* A non-page event (MAP, VMA): recorded in sequence, no state. */
void pt_observe_event(const struct pt_obs *obs)
{
	struct pagetrail_record rec;

	if (pt_tracker_record_event(obs, &rec))
		pt_emit(&rec);
}

void pt_events_set_freeze_on_anomaly(bool on)
{
	WRITE_ONCE(pt_freeze_on_anomaly, on);
}

bool pt_events_freeze_on_anomaly(void)
{
	return READ_ONCE(pt_freeze_on_anomaly);
}

