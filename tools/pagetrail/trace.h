/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: records from a trace-cmd trace.dat (pagetrail:* events). */
#ifndef PAGETRAIL_TOOL_TRACE_H
#define PAGETRAIL_TOOL_TRACE_H

#include "common.h"

/* Fill s->rec from the file's pagetrail events; 0, or -1 with a one-line error. */
int pt_trace_load(struct pt_src *s, const char *path);

#endif /* PAGETRAIL_TOOL_TRACE_H */
