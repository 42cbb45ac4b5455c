/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: turn observations into records (tracker) and tracepoints. */
#ifndef PAGETRAIL_EVENTS_H
#define PAGETRAIL_EVENTS_H

#include <linux/types.h>
#include <uapi/pagetrail.h>
#include <pagetrail/stage.h>

struct pt_obs;
struct pt_made;

/* Interpret one observation; @made: staged earlier, else NULL (now). */
bool pt_observe_made(const struct pt_obs *obs, const struct pt_made *made);

/*
 * Probe context: a page observation through the state machine, then out.
 * Record first: staged; true means staged, not recorded (the interpreter
 * decides later). Inline: the probe path's one call per observation.
 */
static inline bool pt_observe(const struct pt_obs *obs)
{
	if (pt_stage_enabled())
		return pt_stage_push(PT_STAGE_PAGE, obs, 1);
	return pt_observe_made(obs, NULL);
}

void pt_observe_event(const struct pt_obs *obs);
bool pt_observe_take_or_fresh(const struct pt_obs *take, struct pt_obs *assign);

void pt_observe_event_made(const struct pt_obs *obs,
			   const struct pt_made *made);
bool pt_take_if_pooled(const struct pt_obs *take, const struct pt_made *made);

#endif /* PAGETRAIL_EVENTS_H */
