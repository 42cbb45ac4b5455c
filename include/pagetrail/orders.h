/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: the set of chunk orders a lookup by pfn must try. A page may
 * sit inside a chunk of any order the driver used, so a lookup tries the
 * head at each order ever seen, and no other: one bit per order, set once
 * and never cleared until a reset.
 */
#ifndef PAGETRAIL_ORDERS_H
#define PAGETRAIL_ORDERS_H

#include <linux/bitops.h>
#include <linux/types.h>

/* Any context; test first, so that the common case writes nothing. */
static inline void pt_orders_note(unsigned long *orders, unsigned int order)
{
	if (order < BITS_PER_LONG && !test_bit(order, orders))
		set_bit(order, orders);
}

static inline u64 pt_order_head(u64 pfn, unsigned int order)
{
	return pfn & ~((1ULL << order) - 1);
}

#endif /* PAGETRAIL_ORDERS_H */
