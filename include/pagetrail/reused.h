/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: chunks the driver freed that the kernel then handed to
 * someone else. The table forgets such a chunk, so that the page's later
 * lives outside the driver cost one pre-filter test; this window keeps
 * its head and order, so that a driver that maps it afterwards (a stale
 * mapping context, Z2) is still seen inserting a page it freed. Fixed and
 * lossy: a newer entry overwrites an older one of the same hash. Entries
 * carry the attach epoch: what the driver did while pagetrail was detached
 * is unknown, so an older entry says nothing.
 */
#ifndef PAGETRAIL_REUSED_H
#define PAGETRAIL_REUSED_H

#include <linux/types.h>

void pt_reused_clear(void);
size_t pt_reused_bytes(void);
/* Any context; callers hold the chunk's shard lock. */
void pt_reused_note(u64 pfn, u8 order, u16 epoch);
void pt_reused_drop(u64 pfn);
/* Is @pfn inside a chunk noted here in @epoch (itself or an aligned head)? */
bool pt_reused_contains(u64 pfn, u16 epoch);

#endif /* PAGETRAIL_REUSED_H */
