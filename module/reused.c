// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the window of freed chunks reused outside the driver (see
 * reused.h). One u64 per slot, written and read whole (WRITE_ONCE and
 * READ_ONCE): writers under different shard locks may race for a slot,
 * and either entry is a valid one.
 */
#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/string.h>
#include <pagetrail/orders.h>
#include <pagetrail/reused.h>

#define PT_REUSED_BITS 12
#define PT_REUSED_VALID BIT_ULL(63)
#define PT_REUSED_ORDER_BITS 6
#define PT_REUSED_PFN GENMASK_ULL(45, PT_REUSED_ORDER_BITS)
#define PT_REUSED_EPOCH GENMASK_ULL(62, 50)

static u64 pt_reused[1u << PT_REUSED_BITS];
static unsigned long pt_reused_orders; /* bit per order ever noted */

static u64 pt_reused_entry(u64 pfn, u8 order, u16 epoch)
{
	return PT_REUSED_VALID | FIELD_PREP(PT_REUSED_EPOCH, epoch) |
	       FIELD_PREP(PT_REUSED_PFN, pfn) | order;
}

static u64 *pt_reused_slot(u64 head)
{
	return &pt_reused[hash_64(head, PT_REUSED_BITS)];
}

/* With every writer held off (a reset, or before use). */
void pt_reused_clear(void)
{
	memset(pt_reused, 0, sizeof(pt_reused));
	WRITE_ONCE(pt_reused_orders, 0);
}

size_t pt_reused_bytes(void)
{
	return sizeof(pt_reused);
}

void pt_reused_note(u64 pfn, u8 order, u16 epoch)
{
	if (order >= BITS_PER_LONG)
		return;
	pt_orders_note(&pt_reused_orders, order);
	WRITE_ONCE(*pt_reused_slot(pfn), pt_reused_entry(pfn, order, epoch));
}

/* The driver has the head again: the window's story about it is over. */
void pt_reused_drop(u64 pfn)
{
	u64 *slot = pt_reused_slot(pfn);
	u64 e = READ_ONCE(*slot);

	if ((e & PT_REUSED_VALID) && FIELD_GET(PT_REUSED_PFN, e) == pfn)
		cmpxchg(slot, e, 0);
}

bool pt_reused_contains(u64 pfn, u16 epoch)
{
	unsigned long orders = READ_ONCE(pt_reused_orders);
	unsigned int order;
	u64 head;

	for_each_set_bit(order, &orders, BITS_PER_LONG) {
		head = pt_order_head(pfn, order);
		if (READ_ONCE(*pt_reused_slot(head)) ==
		    pt_reused_entry(head, order, epoch))
			return true;
	}
	return false;
}
