/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: turn observations into records (tracker) and tracepoints. */
#ifndef PAGETRAIL_EVENTS_H
#define PAGETRAIL_EVENTS_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

struct pt_obs;

bool pt_observe(const struct pt_obs *obs);
void pt_observe_event(const struct pt_obs *obs);

#endif /* PAGETRAIL_EVENTS_H */
