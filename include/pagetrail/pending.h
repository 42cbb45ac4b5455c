/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: the probe path's pre-filter under record first. A chunk is
 * "maybe tracked" while its admission waits staged (a pending count by pfn
 * hash, raised on the probe path) and once the consumer has put it in the
 * table (the table's filter). The consumer adds the chunk to the table
 * before it drops the pending count, and the probe path reads the pending
 * count before the filter: so no read sees neither, even when the consumer
 * interprets the admission between the two reads. Read the other way
 * round, a release of a page just admitted could be filtered out, and the
 * buddy allocator's free that follows it look like a foreign one.
 */
#ifndef PAGETRAIL_PENDING_H
#define PAGETRAIL_PENDING_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/types.h>

#define PT_PENDING_BITS 12

/* Staged admissions by pfn hash: pt_pending_add() and the calls below. */
extern atomic_t pt_pending[1 << PT_PENDING_BITS];

static inline atomic_t *pt_pending_slot(u64 pfn)
{
	return &pt_pending[hash_64(pfn, PT_PENDING_BITS)];
}

/* Probe path: an admission is staged for @pfn. Inline: it is on every one. */
static inline void pt_pending_add(u64 pfn)
{
	atomic_inc(pt_pending_slot(pfn));
}
/* Consumer: the admission of @pfn was interpreted, its chunk in the table. */
void pt_pending_done(u64 pfn);
/* Nothing staged any more (reset, with writers paused and the consumer out). */
void pt_pending_clear(void);
void pt_pending_enable(bool on);

/* Any context: false means @pfn is certainly neither pending nor tracked. */
bool pt_pending_or_tracked(u64 pfn);

#endif /* PAGETRAIL_PENDING_H */
