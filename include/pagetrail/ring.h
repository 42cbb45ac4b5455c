/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: per-CPU flight recorder of binary records, with loss accounting. */
#ifndef PAGETRAIL_RING_H
#define PAGETRAIL_RING_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

/* Every record produced ends up in exactly one of the other counters. */
struct pt_ring_stats {
	u64 produced; /* records offered to the ring */
	u64 read; /* consumed by readers of events / events.bin */
	u64 buffered; /* still in the ring */
	u64 overwritten; /* overwrite mode: oldest records replaced */
	u64 dropped_full; /* stop mode: ring full; or the ring refused (nesting) */
	u64 dropped_frozen; /* recorder frozen (after an anomaly or by control) */
};

int pt_ring_init(unsigned long bytes_per_cpu, bool overwrite,
		 u64 (*issued)(void));
void pt_ring_exit(void);
/*
 * A writer's section, IRQs off throughout: pt_ring_enter(the last number
 * handed out + 1), take the sequence number with a fully ordered atomic,
 * pt_ring_write() or pt_ring_count_frozen(), pt_ring_leave(). One writer
 * per CPU at a time, in seq order; readers never return a record before a
 * lower-numbered one.
 */
void pt_ring_enter(u64 floor);
void pt_ring_leave(void);
void pt_ring_write(const struct pagetrail_record *rec);
void pt_ring_count_frozen(void);
bool pt_ring_read(struct pagetrail_record *rec);
void pt_ring_set_overwrite(bool overwrite);
bool pt_ring_overwrite(void);
void pt_ring_reset(void);
void pt_ring_get_stats(struct pt_ring_stats *st);

/* Pure arithmetic, tested by KUnit: produced - (all destinations). */
s64 pt_ring_unaccounted(const struct pt_ring_stats *st);
u64 pt_ring_lost(const struct pt_ring_stats *st);

#endif /* PAGETRAIL_RING_H */
