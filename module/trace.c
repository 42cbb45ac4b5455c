// SPDX-License-Identifier: GPL-2.0
/* pagetrail: the one file that instantiates the tracepoints, and role dispatch. */

#define CREATE_TRACE_POINTS
#include "trace.h"

void pt_trace_record(const struct pagetrail_record *rec)
{
	switch (rec->role) {
	case PT_ROLE_ADMIT:
		trace_admit(rec);
		break;
	case PT_ROLE_SCRUB:
		trace_scrub(rec);
		break;
	case PT_ROLE_TAKE:
		trace_take(rec);
		break;
	case PT_ROLE_ASSIGN:
		trace_assign(rec);
		break;
	case PT_ROLE_RECLAIM:
		trace_reclaim(rec);
		break;
	case PT_ROLE_FREE:
		trace_free(rec);
		break;
	case PT_ROLE_RELEASE:
		trace_release(rec);
		break;
	case PT_ROLE_ALLOC:
		trace_alloc(rec);
		break;
	case PT_ROLE_INSERT:
		trace_insert(rec);
		break;
	case PT_ROLE_MAP:
		trace_map(rec);
		break;
	case PT_ROLE_VMA:
		trace_vma(rec);
		break;
	default:
		break;
	}
	if (rec->anomalies)
		trace_anomaly(rec);
}
