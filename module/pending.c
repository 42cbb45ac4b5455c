// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: admissions staged but not interpreted yet, counted by pfn
 * hash, and the pre-filter that reads them with the table's (pending.h).
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/string.h>
#include <pagetrail/pending.h>
#include <pagetrail/table.h>

atomic_t pt_pending[1 << PT_PENDING_BITS];
/* Off (record_first=0): the probe path skips the counts' cache lines. */
static bool pt_pending_on;

void pt_pending_done(u64 pfn)
{
	/* The chunk in the table's filter, then not pending: pairs below. */
	smp_mb__before_atomic();
	atomic_dec(pt_pending_slot(pfn));
}

void pt_pending_clear(void)
{
	memset(pt_pending, 0, sizeof(pt_pending));
}

void pt_pending_enable(bool on)
{
	WRITE_ONCE(pt_pending_on, on);
}

bool pt_pending_or_tracked(u64 pfn)
{
	if (READ_ONCE(pt_pending_on) && atomic_read(pt_pending_slot(pfn)))
		return true;
	/* Not pending: then its chunk, if any, is in the filter already. */
	smp_rmb();
	return pt_table_maybe_tracked(pfn);
}
