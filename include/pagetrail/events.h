/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: turn observations into records (tracker) and tracepoints. */
#ifndef PAGETRAIL_EVENTS_H
#define PAGETRAIL_EVENTS_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

struct pt_obs;
struct pt_made;

/* Probe context: observe now, or stage for later (record first). */
bool pt_observe(const struct pt_obs *obs);
void pt_observe_event(const struct pt_obs *obs);
bool pt_observe_take_or_fresh(const struct pt_obs *take, struct pt_obs *assign);

/* Interpret one observation; @made: staged earlier, else NULL (now). */
bool pt_observe_made(const struct pt_obs *obs, const struct pt_made *made);
void pt_observe_event_made(const struct pt_obs *obs,
			   const struct pt_made *made);
bool pt_take_if_pooled(const struct pt_obs *take, const struct pt_made *made);

#endif /* PAGETRAIL_EVENTS_H */
