// SPDX-License-Identifier: GPL-2.0
/* pagetrail: flight recorder loss accounting (produced = read + lost + buffered). */

#include <pagetrail/ring.h>

/* Zero when every produced record is accounted for; anything else is a bug. */
s64 pt_ring_unaccounted(const struct pt_ring_stats *st)
{
	return (s64)(st->produced - st->read - st->buffered - pt_ring_lost(st));
}

u64 pt_ring_lost(const struct pt_ring_stats *st)
{
	return st->overwritten + st->dropped_full + st->dropped_frozen;
}
