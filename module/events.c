// SPDX-License-Identifier: GPL-2.0
/* pagetrail: observations in, records out: the tracker, then the tracepoints. */

#include <pagetrail/events.h>
#include <pagetrail/tracker.h>
#include "trace.h"

/* A page observation: through the state machine, then out. */
bool pt_observe(const struct pt_obs *obs)
{
	struct pagetrail_record rec;

	if (!pt_tracker_observe(obs, &rec))
		return false;
	pt_trace_record(&rec);
	return true;
}

/* A non-page event (MAP, VMA): recorded in sequence, no state. */
void pt_observe_event(const struct pt_obs *obs)
{
	struct pagetrail_record rec;

	if (pt_tracker_record_event(obs, &rec))
		pt_trace_record(&rec);
}
