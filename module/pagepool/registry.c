// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail page_pool profile: the pools seen, each with a serial number.
 * A pool's memory is kfree'd at its end and reused by the next pool, so
 * its address (the records' token) names it only together with the serial
 * (the records' alloc_seq). Lookups come from softirq on every page event
 * and take no lock: an open-addressed table with tombstones, written under
 * a lock, read with READ_ONCE.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/spinlock.h>
#include "pagepool.h"

#define PP_REG_BITS 9
#define PP_REG_SIZE (1u << PP_REG_BITS)
#define PP_REG_TOMB 1UL /* a removed entry: probing goes on past it */

struct pp_reg_entry {
	unsigned long pool;
	u32 serial;
};

static struct pp_reg_entry pp_reg[PP_REG_SIZE];
static DEFINE_RAW_SPINLOCK(pp_reg_lock);
static u32 pp_reg_next_serial;
static unsigned int pp_reg_used; /* live entries, under the lock */

static unsigned int pp_reg_slot(unsigned long pool, unsigned int i)
{
	return (hash_long(pool, PP_REG_BITS) + i) & (PP_REG_SIZE - 1);
}

/* Returns the serial given to @pool, 0 if the table is full. */
u32 pp_registry_add(const struct page_pool *pool)
{
	unsigned long key = (unsigned long)pool, cur;
	struct pp_reg_entry *free = NULL, *e;
	unsigned long flags;
	unsigned int i;
	u32 serial = 0;

	raw_spin_lock_irqsave(&pp_reg_lock, flags);
	for (i = 0; i < PP_REG_SIZE; i++) {
		e = &pp_reg[pp_reg_slot(key, i)];
		cur = e->pool;
		if (cur == key) {
			/* create() nested in create_percpu(): seen once */
			serial = e->serial;
			goto out;
		}
		if (cur == PP_REG_TOMB && !free)
			free = e;
		if (!cur) {
			if (!free)
				free = e;
			break;
		}
	}
	if (!free || pp_reg_used >= PP_REG_SIZE - 1) {
		atomic64_inc(&pp_stats.registry_full);
		goto out;
	}
	serial = ++pp_reg_next_serial;
	WRITE_ONCE(free->serial, serial);
	/* Readers match the address first: the serial must be there by then. */
	smp_store_release(&free->pool, key);
	pp_reg_used++;
out:
	raw_spin_unlock_irqrestore(&pp_reg_lock, flags);
	return serial;
}

u32 pp_registry_serial(const struct page_pool *pool)
{
	unsigned long key = (unsigned long)pool, cur;
	unsigned int i;

	for (i = 0; i < PP_REG_SIZE; i++) {
		const struct pp_reg_entry *e = &pp_reg[pp_reg_slot(key, i)];

		cur = smp_load_acquire(&e->pool);
		if (cur == key)
			return READ_ONCE(e->serial);
		if (!cur)
			break;
	}
	return 0;
}

/* The pool is freed: returns its serial (0: not known). */
u32 pp_registry_remove(const struct page_pool *pool)
{
	unsigned long key = (unsigned long)pool, cur;
	unsigned long flags;
	unsigned int i;
	u32 serial = 0;

	raw_spin_lock_irqsave(&pp_reg_lock, flags);
	for (i = 0; i < PP_REG_SIZE; i++) {
		struct pp_reg_entry *e = &pp_reg[pp_reg_slot(key, i)];

		cur = e->pool;
		if (cur == key) {
			serial = e->serial;
			WRITE_ONCE(e->pool, PP_REG_TOMB);
			pp_reg_used--;
			break;
		}
		if (!cur)
			break;
	}
	raw_spin_unlock_irqrestore(&pp_reg_lock, flags);
	return serial;
}

/* At attach: pools of an earlier attach may be gone unseen. */
void pp_registry_reset(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pp_reg_lock, flags);
	memset(pp_reg, 0, sizeof(pp_reg));
	pp_reg_used = 0;
	raw_spin_unlock_irqrestore(&pp_reg_lock, flags);
}

unsigned int pp_registry_live(void)
{
	return READ_ONCE(pp_reg_used);
}
