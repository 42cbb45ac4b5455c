// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: --trace trace.dat (not built yet: says so). */
#include "trace.h"

int pt_trace_load(struct pt_src *s, const char *path)
{
	(void)s;
	pt_err("%s: reading trace.dat is not supported by this build", path);
	return -1;
}
