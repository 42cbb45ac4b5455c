/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: turn observations into records: ring, tracepoints, freeze. */
#ifndef PAGETRAIL_EVENTS_H
#define PAGETRAIL_EVENTS_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

struct pt_obs;

void pt_events_stamp(struct pagetrail_record *rec);
bool pt_observe(const struct pt_obs *obs);
void pt_observe_event(const struct pt_obs *obs);
void pt_events_set_freeze_on_anomaly(bool on);
bool pt_events_freeze_on_anomaly(void);

#endif /* PAGETRAIL_EVENTS_H */
