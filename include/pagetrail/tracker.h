/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: apply observations to the chunk table (the pure rules under
 * the chunk's shard lock), record them, and keep the anomaly store.
 */
#ifndef PAGETRAIL_TRACKER_H
#define PAGETRAIL_TRACKER_H

#include <linux/stddef.h>
#include <linux/types.h>
#include <linux/stacktrace.h>
#include <uapi/pagetrail.h>
#include <pagetrail/recorder.h>
#include <pagetrail/pending.h>
#include <pagetrail/table.h>

#define PT_HIST_LEN 8
#define PT_STACK_DEPTH 16

/* One transition in a chunk's own short history. */
struct pt_hist {
	u64 ts_ns;
	u64 token;
	u32 pid;
	u32 generation;
	char comm[16];
	u16 cpu;
	u8 role;
	u8 cause;
	u8 to_state;
	u8 anomaly;
	u8 gap;
};

/* A snapshot of one tracked chunk, its history from the recent window. */
struct pt_page_view {
	u64 pfn;
	u64 token;
	u64 prev_token;
	u32 generation;
	u32 alloc_seq;
	u32 prev_alloc_seq;
	u32 index;
	u32 gaps;
	u32 anomalies;
	u8 order;
	u8 state;
	u8 hist_len;
	bool unsure; /* touched by a call in flight at attach, since its admission */
	u16 epoch; /* attach epoch of its last fully seen admission (or creation) */
	struct pt_hist hist[PT_HIST_LEN]; /* oldest first */
};

/* The page facts a probe sampled, and who observed what. */
/* Laid out without holes: record first copies it into its staging. */
struct pt_obs {
	u64 pfn; /* chunk head, or the page itself for INSERT */
	u64 token; /* owner allocation (ASSIGN/ADMIT/TAKE/INSERT) */
	long pool_refs; /* the pool's own references to the page */
	u64 head_pfn; /* sampled: the compound head */
	u32 alloc_seq;
	u32 index;
	u32 aux;
	int ret;
	int inner_ret;
	/* sampled page facts */
	int refcount;
	int mapcount;
	u32 page_flags;
	u8 role;
	u8 cause;
	u8 order;
	u8 compound_order; /* sampled */
	/* Eight flags, in the order of their PT_SLOT_* bits (staged.h). */
	struct_group(flags,
		bool sampled;
		bool sampled_pool_refs; /* pool_refs above is valid */
		bool owner_known; /* INSERT: token is the VMA's allocation */
		bool create; /* start tracking the chunk if unknown */
		bool tracked_only; /* an untracked chunk: nothing to say */
		/* only a chunk the table holds pooled: a take seen after */
		bool pooled_only;
		bool unsure; /* made by a driver call that began before attach */
		bool owner_dying; /* the owning pool's teardown has begun */
	);
	/*
	 * A non-page event (pt_observe_event) that is itself an anomaly: no
	 * state machine judges it, so the profile names the kind.
	 */
	u8 event_anomaly;
};

/*
 * Record first: what the probe path alone knew when it staged an
 * observation that is interpreted later. NULL where interpretation runs
 * on the probe path itself.
 */
struct pt_made {
	struct pt_who who;
	u16 epoch; /* the attach epoch then (pt_tracker_epoch_now) */
	bool partial; /* probes were coming or going then */
	u8 nr_stack; /* 0: the probe path took no stack */
	const unsigned long *stack;
};

struct pt_anomaly_entry {
	struct pagetrail_record rec;
	struct pt_page_view page;
	unsigned long stack[PT_STACK_DEPTH];
	unsigned int nr_stack;
};

struct pt_tracker_stats {
	u64 tracked; /* chunks in the table now */
	u64 capacity;
	u64 recycled; /* freed chunks forgotten to make room */
	u64 full; /* observations lost: table full */
	u64 filter_used; /* pre-filter slots that let a pfn through */
	u64 gaps; /* transitions whose predecessor was not observed */
	u64 gaps_by_role[PT_ROLE_MAX];
	u64 anomalies;
	u64 anomalies_by_kind[PT_AN_MAX];
	u64 anomalies_dropped; /* anomaly store full: one entry lost */
	u64 anomalies_repeated; /* same kind on the same pfn: counted only */
	u64 anomalies_unstacked; /* record first: the probe path took no stack */
	u64 events_by_role[PT_ROLE_MAX];
	/* memory: what grows with the capacity, and per chunk of capacity */
	u64 table_bytes;
	u64 fixed_bytes; /* pre-filter, shards and anomaly store */
	u64 bytes_per_chunk;
	u64 history_entries;
	u64 shards;
	u64 shard_locked;
	u64 shard_contended_same;
	u64 shard_contended_other;
};

int pt_tracker_init(unsigned int max_pages, unsigned int max_anomalies);
void pt_tracker_exit(void);
void pt_tracker_reset(void (*reset_outside)(void));
void pt_tracker_set_partial(bool partial);

/* The probe path's pre-filter, staged admissions included (pending.h). */
static inline bool pt_tracker_maybe_tracked(u64 pfn)
{
	return pt_pending_or_tracked(pfn);
}

bool pt_tracker_observe(const struct pt_obs *obs, struct pagetrail_record *rec,
			const struct pt_made *made);
bool pt_tracker_record_event(const struct pt_obs *obs,
			     struct pagetrail_record *rec,
			     const struct pt_made *made);
/* The attach epoch and the partial flag: pt_tracker_epoch_now() reads them. */
extern u16 pt_epoch;
extern bool pt_partial;

static inline u16 pt_epoch_bits(u16 epoch)
{
	return epoch & ((1u << PT_CHUNK_EPOCH_BITS) - 1);
}

/*
 * Record first: what an observation staged now must carry for later.
 * Inline: every staging section asks.
 */
static inline void pt_tracker_epoch_now(u16 *epoch, bool *partial)
{
	/* Pairs with pt_tracker_set_partial(): partial, then its epoch. */
	*partial = smp_load_acquire(&pt_partial);
	*epoch = pt_epoch_bits(READ_ONCE(pt_epoch));
}
void pt_tracker_new_epoch(void);
bool pt_tracker_page_at(unsigned int slot, struct pt_page_view *view);
unsigned int pt_tracker_slots(void);
void pt_tracker_get_stats(struct pt_tracker_stats *st);

unsigned int pt_anomaly_count(void);
bool pt_anomaly_copy(unsigned int i, struct pt_anomaly_entry *out);

#endif /* PAGETRAIL_TRACKER_H */
