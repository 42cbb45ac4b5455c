/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: record first's raw record, one 64-byte slot of a CPU's
 * staging ring (16,384 a MiB of stage_kb). A section (one clock read, one
 * who) is a head slot, then its observations, one slot each. The compact
 * form keeps every field of struct pt_obs exactly: an observation whose
 * compound head is not at most 2^32 pages below it, whose pool_refs does
 * not fit 32 bits (page_pool's fragment bias) or whose page flags do not
 * fit 16 takes a second slot with those three whole.
 */
#ifndef PAGETRAIL_STAGED_H
#define PAGETRAIL_STAGED_H

#include <asm/byteorder.h>
#include <linux/build_bug.h>
#include <linux/limits.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <pagetrail/recorder.h>
#include <pagetrail/tracker.h>

/* Slot types beside enum pt_stage_kind (an observation's). */
#define PT_SLOT_HEAD 0x80
#define PT_SLOT_WIDE 0x81

/* pt_slot_obs.bits */
#define PT_SLOT_SAMPLED BIT(0)
#define PT_SLOT_SAMPLED_POOL_REFS BIT(1)
#define PT_SLOT_OWNER_KNOWN BIT(2)
#define PT_SLOT_CREATE BIT(3)
#define PT_SLOT_TRACKED_ONLY BIT(4)
#define PT_SLOT_POOLED_ONLY BIT(5)
#define PT_SLOT_UNSURE BIT(6)
#define PT_SLOT_OWNER_DYING BIT(7)
#define PT_SLOT_STACKED BIT(8) /* the next of this CPU's stacks is ours */
#define PT_SLOT_HAS_WIDE BIT(9) /* the next slot holds head_pfn, pool_refs */

struct pt_slot_obs {
	u64 pfn;
	u64 token;
	u32 head_back; /* pfn - head_pfn */
	s32 pool_refs;
	u32 alloc_seq;
	u32 index;
	u32 aux;
	s32 ret;
	s32 inner_ret;
	s32 refcount;
	s32 mapcount;
	u16 page_flags;
	u8 role;
	u8 cause;
	u8 order;
	u8 compound_order;
	u8 event_anomaly;
	u8 type; /* enum pt_stage_kind, or PT_SLOT_HEAD/WIDE: every slot's */
	u16 bits;
};

/* A section's first slot: who and when, for every observation after it. */
struct pt_slot_head {
	struct pt_who who;
	u16 epoch; /* the attach epoch then (pt_tracker_epoch_now) */
	bool partial; /* probes were coming or going then */
};

/* After an observation with PT_SLOT_HAS_WIDE: its fields that may not fit. */
struct pt_slot_wide {
	u64 head_pfn;
	s64 pool_refs;
	u32 page_flags;
};

struct pt_slot {
	union {
		struct pt_slot_obs obs;
		struct pt_slot_head head;
		struct pt_slot_wide wide;
	};
};

static_assert(sizeof(struct pt_slot) == 64);
static_assert(sizeof(struct pt_slot_head) <=
	      offsetof(struct pt_slot_obs, type));
static_assert(sizeof(struct pt_slot_wide) <=
	      offsetof(struct pt_slot_obs, type));
/* The defined page flags fit the compact form. */
static_assert(PT_PF_PP <= U16_MAX);

static inline u8 pt_slot_type(const struct pt_slot *s)
{
	return s->obs.type;
}

/* Whether @o fits one slot; else it takes two (pt_slot_pack()). */
static inline bool pt_slot_fits(const struct pt_obs *o)
{
	return o->pfn - o->head_pfn <= U32_MAX &&
	       o->pool_refs == (s32)o->pool_refs && o->page_flags <= U16_MAX;
}

/*
 * The eight flags of @o, one bool (0 or 1) a byte in PT_SLOT_* order, into
 * their bits: the multiply moves byte i's low bit to bit 56 + i, and no two
 * other products meet there. One load and a multiply where eight loads,
 * shifts and ors were, for every observation staged.
 */
static inline u16 pt_slot_bits(const struct pt_obs *o)
{
	u64 flags;

	BUILD_BUG_ON(sizeof(o->flags) != sizeof(flags));
	BUILD_BUG_ON(offsetof(struct pt_obs, owner_dying) !=
		     offsetof(struct pt_obs, sampled) + 7);
#ifdef __LITTLE_ENDIAN
	memcpy(&flags, &o->flags, sizeof(flags));
	return (flags * 0x0102040810204080ULL) >> 56;
#else
	return (o->sampled ? PT_SLOT_SAMPLED : 0) |
	       (o->sampled_pool_refs ? PT_SLOT_SAMPLED_POOL_REFS : 0) |
	       (o->owner_known ? PT_SLOT_OWNER_KNOWN : 0) |
	       (o->create ? PT_SLOT_CREATE : 0) |
	       (o->tracked_only ? PT_SLOT_TRACKED_ONLY : 0) |
	       (o->pooled_only ? PT_SLOT_POOLED_ONLY : 0) |
	       (o->unsure ? PT_SLOT_UNSURE : 0) |
	       (o->owner_dying ? PT_SLOT_OWNER_DYING : 0);
#endif
}

/*
 * Write @o (of @kind) at @s; @wide is the next slot, written only when @o
 * does not fit one. Returns the slots used, 1 or 2.
 */
static inline unsigned int pt_slot_pack(struct pt_slot *s, struct pt_slot *wide,
					const struct pt_obs *o, u8 kind,
					bool stacked)
{
	struct pt_slot_obs *so = &s->obs;
	bool fits = pt_slot_fits(o);
	u16 bits = pt_slot_bits(o);

	so->pfn = o->pfn;
	so->token = o->token;
	so->alloc_seq = o->alloc_seq;
	so->index = o->index;
	so->aux = o->aux;
	so->ret = o->ret;
	so->inner_ret = o->inner_ret;
	so->refcount = o->refcount;
	so->mapcount = o->mapcount;
	so->role = o->role;
	so->cause = o->cause;
	so->order = o->order;
	so->compound_order = o->compound_order;
	so->event_anomaly = o->event_anomaly;
	so->type = kind;
	if (stacked)
		bits |= PT_SLOT_STACKED;
	if (likely(fits)) {
		so->head_back = o->pfn - o->head_pfn;
		so->pool_refs = o->pool_refs;
		so->page_flags = o->page_flags;
		so->bits = bits;
		return 1;
	}
	so->head_back = 0;
	so->pool_refs = 0;
	so->page_flags = 0;
	so->bits = bits | PT_SLOT_HAS_WIDE;
	wide->wide.head_pfn = o->head_pfn;
	wide->wide.pool_refs = o->pool_refs;
	wide->wide.page_flags = o->page_flags;
	wide->obs.type = PT_SLOT_WIDE;
	return 2;
}

/* The observation at @s (and @wide, if it has one) back into @o. */
static inline void pt_slot_unpack(const struct pt_slot *s,
				  const struct pt_slot *wide, struct pt_obs *o)
{
	const struct pt_slot_obs *so = &s->obs;
	u16 bits = so->bits;

	*o = (struct pt_obs){
		.pfn = so->pfn,
		.token = so->token,
		.alloc_seq = so->alloc_seq,
		.index = so->index,
		.aux = so->aux,
		.ret = so->ret,
		.inner_ret = so->inner_ret,
		.refcount = so->refcount,
		.mapcount = so->mapcount,
		.page_flags = so->page_flags,
		.role = so->role,
		.cause = so->cause,
		.order = so->order,
		.compound_order = so->compound_order,
		.event_anomaly = so->event_anomaly,
		.sampled = bits & PT_SLOT_SAMPLED,
		.sampled_pool_refs = bits & PT_SLOT_SAMPLED_POOL_REFS,
		.owner_known = bits & PT_SLOT_OWNER_KNOWN,
		.create = bits & PT_SLOT_CREATE,
		.tracked_only = bits & PT_SLOT_TRACKED_ONLY,
		.pooled_only = bits & PT_SLOT_POOLED_ONLY,
		.unsure = bits & PT_SLOT_UNSURE,
		.owner_dying = bits & PT_SLOT_OWNER_DYING,
	};
	if (bits & PT_SLOT_HAS_WIDE) {
		o->head_pfn = wide->wide.head_pfn;
		o->pool_refs = wide->wide.pool_refs;
		o->page_flags = wide->wide.page_flags;
	} else {
		o->head_pfn = so->pfn - so->head_back;
		o->pool_refs = so->pool_refs;
	}
}

#endif /* PAGETRAIL_STAGED_H */
