// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: observations in, records out: the tracker, then the
 * tracepoints. With record first (stage.h) the probe path only stages an
 * observation; the consumer brings it here later, with who made it.
 */

#include <pagetrail/events.h>
#include <pagetrail/stage.h>
#include <pagetrail/tracker.h>
#include "trace.h"

bool pt_observe_made(const struct pt_obs *obs, const struct pt_made *made)
{
	struct pagetrail_record rec;

	if (!pt_tracker_observe(obs, &rec, made))
		return false;
	pt_trace_record(&rec);
	return true;
}

void pt_observe_event_made(const struct pt_obs *obs, const struct pt_made *made)
{
	struct pagetrail_record rec;

	if (pt_tracker_record_event(obs, &rec, made))
		pt_trace_record(&rec);
}

/* A non-page event (MAP, VMA): recorded in sequence, no state. */
void pt_observe_event(const struct pt_obs *obs)
{
	if (pt_stage_enabled())
		pt_stage_push(PT_STAGE_EVENT, obs, 1);
	else
		pt_observe_event_made(obs, NULL);
}

/*
 * @take (pooled_only) if the table holds the chunk pooled; a chunk it
 * does not, found with no reference, is a take too: a fresh page never
 * has refcount 0, so the pool handed out a page the buddy allocator owns
 * (a foreign put), the take 595.x would show as TAKE_UNPOOLED.
 */
bool pt_take_if_pooled(const struct pt_obs *take, const struct pt_made *made)
{
	struct pt_obs any;

	if (pt_observe_made(take, made))
		return true;
	if (!take->sampled || take->refcount != 0)
		return false;
	any = *take;
	any.pooled_only = false;
	return pt_observe_made(&any, made);
}

/*
 * One chunk handed out where the take itself was not seen: @take if the
 * chunk was pooled, then @assign, whose cause is the pool's if the take
 * was recorded, else fresh. Returns whether it was taken; record first:
 * staged together, decided by the interpreter, false.
 */
bool pt_observe_take_or_fresh(const struct pt_obs *take, struct pt_obs *assign)
{
	struct pt_obs both[2];
	bool taken;

	if (pt_stage_enabled()) {
		both[0] = *take;
		both[1] = *assign;
		pt_stage_push(PT_STAGE_TAKE_OR_FRESH, both, 2);
		return false;
	}
	taken = pt_take_if_pooled(take, NULL);
	assign->cause = taken ? PT_CAUSE_POOL : PT_CAUSE_FRESH;
	pt_observe_made(assign, NULL);
	return taken;
}
