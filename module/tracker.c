// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: apply one observation. The chunk's shard lock is held from
 * lookup to ring write, with IRQs off: the rules see the chunk as its last
 * record left it, and the record is stamped and written before the next
 * transition of that chunk can start on any CPU, so a chunk's records are
 * in sequence order and each CPU's ring holds increasing seqs. Different
 * chunks share nothing but their shard (a hash collision) and atomics.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <pagetrail/tracker.h>
#include <pagetrail/table.h>
#include <pagetrail/history.h>
#include <pagetrail/reused.h>
#include <pagetrail/rules.h>
#include <pagetrail/recorder.h>
#include <pagetrail/hotprof.h>
#include <pagetrail/hold.h>
#include <pagetrail/stage.h>

struct pt_tracker_pcpu {
	u64 gaps;
	u64 gaps_by_role[PT_ROLE_MAX];
	u64 anomalies;
	u64 anomalies_by_kind[PT_AN_MAX];
	u64 events_by_role[PT_ROLE_MAX];
};

static DEFINE_PER_CPU(struct pt_tracker_pcpu, pt_tracker_pcpu);
/* Readers of the table (debugfs) against a reset clearing it. */
static DEFINE_MUTEX(pt_tracker_readers);

/*
 * Bumped when an attach completes: what a chunk went through while
 * pagetrail was detached, or while its probes were still being planted,
 * was not all seen, so a chunk known from an earlier epoch is unsure until
 * its next fully seen admission. O(1) per attach, whatever the table.
 */
u16 pt_epoch;
/*
 * Between the start of a detach and the end of the next attach, probes
 * and hooks come and go one by one (seconds on a busy machine): frees or
 * takes go unseen while assignments and inserts are still recorded, so
 * every observation in that window is unsure too.
 */
bool pt_partial = true;

/* The anomaly store: written only when an anomaly is raised. */
static DEFINE_RAW_SPINLOCK(pt_anomaly_lock);
static struct pt_anomaly_entry *pt_anomalies;
static unsigned int pt_max_anomalies;
static unsigned int pt_nr_anomalies;
static unsigned int pt_anomaly_stored[PT_AN_MAX]; /* entries per first kind */
static u64 pt_anomalies_dropped;
static u64 pt_anomalies_repeated;
static u64 pt_anomalies_unstacked;

/* With every writer held off. */
static void pt_tracker_clear(void)
{
	unsigned long flags;
	int cpu;

	pt_stage_clear();
	pt_hold_clear();
	pt_table_clear();
	pt_history_clear();
	pt_reused_clear();
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&pt_tracker_pcpu, cpu), 0,
		       sizeof(struct pt_tracker_pcpu));
	raw_spin_lock_irqsave(&pt_anomaly_lock, flags);
	pt_nr_anomalies = 0;
	memset(pt_anomaly_stored, 0, sizeof(pt_anomaly_stored));
	pt_anomalies_dropped = 0;
	pt_anomalies_repeated = 0;
	pt_anomalies_unstacked = 0;
	raw_spin_unlock_irqrestore(&pt_anomaly_lock, flags);
}

/*
 * History: a window of 9/64 entries per chunk of capacity (9 bytes per
 * chunk), so that chunk (48), chain link (4), bucket share (at most 1) and
 * history stay at 62 bytes and a million chunks, fixed costs included, in
 * 64 MiB; enough for the pages that need it, the anomalies, to keep their
 * last transitions through tens of thousands of records.
 */
int pt_tracker_init(unsigned int max_pages, unsigned int max_anomalies)
{
	int ret;

	ret = pt_table_init(max_pages);
	if (ret)
		return ret;
	ret = pt_history_init(max_pages / 64 * 9);
	if (ret)
		goto err_table;
	pt_max_anomalies = max_anomalies;
	pt_anomalies = kvcalloc(max_anomalies, sizeof(*pt_anomalies),
				GFP_KERNEL | __GFP_NOWARN);
	if (!pt_anomalies) {
		ret = -ENOMEM;
		goto err_history;
	}
	pt_tracker_clear();
	return 0;

err_history:
	pt_history_exit();
err_table:
	pt_table_exit();
	return ret;
}

void pt_tracker_exit(void)
{
	kvfree(pt_anomalies);
	pt_anomalies = NULL;
	pt_history_exit();
	pt_table_exit();
}

struct pt_reset_ctx {
	void (*reset_outside)(void);
};

static void pt_tracker_reset_clear(void *arg)
{
	const struct pt_reset_ctx *ctx = arg;

	mutex_lock(&pt_tracker_readers);
	ctx->reset_outside();
	pt_tracker_clear();
	mutex_unlock(&pt_tracker_readers);
}

/* Clear the table, the window, the anomalies and @reset_outside's state. */
void pt_tracker_reset(void (*reset_outside)(void))
{
	struct pt_reset_ctx ctx = { .reset_outside = reset_outside };

	pt_recorder_reset(pt_tracker_reset_clear, &ctx);
}

/*
 * @partial: probes and hooks are about to come or go. Clearing it, once
 * everything is planted, starts a new epoch: every chunk known so far,
 * including those seen while probes were going in, may have moved unseen.
 * The epoch is published before the end of partial, so a writer that
 * sees partial cleared compares against the new epoch.
 */
void pt_tracker_set_partial(bool partial)
{
	static DEFINE_MUTEX(pt_partial_lock);

	mutex_lock(&pt_partial_lock);
	if (!partial)
		WRITE_ONCE(pt_epoch, READ_ONCE(pt_epoch) + 1);
	/* Pairs with the acquire in pt_tracker_observe(). */
	smp_store_release(&pt_partial, partial);
	mutex_unlock(&pt_partial_lock);
}

/*
 * Probe context: observations were lost before the table saw them (record
 * first's staging was full). Every chunk known so far may have moved
 * unseen: a new epoch, as after an attach. Racing bumps may collapse into
 * one; each still changes the epoch, which is all it must do.
 */
void pt_tracker_new_epoch(void)
{
	WRITE_ONCE(pt_epoch, READ_ONCE(pt_epoch) + 1);
}

/* Copy out a chunk, its history from the window, oldest first. */
static void pt_chunk_view(const struct pt_chunk *c, struct pt_page_view *v)
{
	memset(v, 0, sizeof(*v));
	v->pfn = c->pfn;
	v->token = c->token;
	v->prev_token = c->prev_token;
	v->generation = c->generation;
	v->alloc_seq = c->alloc_seq;
	v->prev_alloc_seq = c->prev_alloc_seq;
	v->index = c->index;
	v->gaps = c->gaps;
	v->anomalies = c->anomalies;
	v->order = c->order;
	v->state = c->state;
	v->unsure = c->unsure;
	v->epoch = c->epoch;
	v->hist_len = pt_history_read(c->pfn, c->hist, v->hist, PT_HIST_LEN);
}

/* Apply what the owner changes to the chunk, per role. */
static void pt_chunk_update_owner(struct pt_chunk *c, const struct pt_obs *obs,
				  const struct pt_rule_result *res)
{
	switch (obs->role) {
	case PT_ROLE_ASSIGN:
		if (c->alloc_seq && c->alloc_seq != obs->alloc_seq) {
			c->prev_token = c->token;
			c->prev_alloc_seq = c->alloc_seq;
		}
		c->token = obs->token;
		c->alloc_seq = obs->alloc_seq;
		c->index = obs->index;
		break;
	case PT_ROLE_ADMIT:
		if (obs->token)
			c->token = obs->token;
		break;
	default:
		break;
	}
	if (res->new_generation)
		c->generation++;
}

static void pt_fill_record(struct pagetrail_record *rec,
			   const struct pt_obs *obs, const struct pt_chunk *c,
			   u8 from, const struct pt_rule_result *res)
{
	memset(rec, 0, sizeof(*rec));
	rec->role = obs->role;
	/* A take whose list was not seen: the list the rule derived. */
	rec->cause = res ? res->cause : obs->cause;
	rec->pfn = obs->pfn;
	rec->order = c ? c->order : obs->order;
	rec->from_state = from;
	rec->to_state = res ? res->to : from;
	rec->aux = obs->aux;
	rec->ret = obs->ret;
	rec->inner_ret = obs->inner_ret;
	rec->token = obs->token;
	rec->alloc_seq = obs->alloc_seq;
	rec->index = obs->index;
	if (c) {
		rec->generation = c->generation;
		if (!rec->token)
			rec->token = c->token;
		if (!rec->alloc_seq) {
			rec->alloc_seq = c->alloc_seq;
			rec->index = c->index;
		}
		rec->prev_token = c->prev_token;
		rec->prev_alloc_seq = c->prev_alloc_seq;
		/* A take names both: the allocation that admitted it and the taker. */
		if (obs->role == PT_ROLE_TAKE) {
			rec->prev_token = c->token;
			rec->prev_alloc_seq = c->alloc_seq;
		}
		if (obs->role == PT_ROLE_INSERT) {
			rec->token = c->token;
			rec->alloc_seq = c->alloc_seq;
			rec->index = c->index + (u32)(obs->pfn - c->pfn);
			/* Inserted through another allocation's VMA: name it. */
			if (obs->owner_known && obs->token != c->token)
				rec->prev_token = obs->token;
		}
	}
	if (obs->sampled) {
		rec->rflags |= PT_RF_SAMPLED;
		rec->refcount = obs->refcount;
		rec->mapcount = obs->mapcount;
		rec->head_pfn = obs->head_pfn;
		rec->compound_order = obs->compound_order;
		rec->page_flags = obs->page_flags;
	}
	if (res) {
		if (res->gap)
			rec->rflags |= PT_RF_GAP;
		rec->anomalies = res->anomalies;
		rec->anomaly = pt_first_anomaly(res->anomalies);
	}
}

/*
 * The slot a new anomaly of @kind on @pfn goes to, or -1 to count it only.
 * A repeat of a (kind, pfn) already stored adds nothing. When the store is
 * full, a burst of one kind must not push out the first of another: the
 * newest entry of the most stored kind gives way to a kind less stored.
 */
static int pt_anomaly_slot_locked(u8 kind, u64 pfn)
{
	unsigned int i, most = 0;
	int slot = -1;

	for (i = 0; i < pt_nr_anomalies; i++)
		if (pt_anomalies[i].rec.anomaly == kind &&
		    pt_anomalies[i].rec.pfn == pfn) {
			pt_anomalies_repeated++;
			return -1;
		}
	if (pt_nr_anomalies < pt_max_anomalies)
		return pt_nr_anomalies++;
	/* Full: one entry is lost either way, the new one or an evicted one. */
	pt_anomalies_dropped++;
	for (i = 1; i < PT_AN_MAX; i++)
		if (pt_anomaly_stored[i] > pt_anomaly_stored[most])
			most = i;
	if (pt_anomaly_stored[most] <= pt_anomaly_stored[kind] + 1)
		return -1;
	for (i = pt_nr_anomalies; i-- > 0;)
		if (pt_anomalies[i].rec.anomaly == most) {
			slot = i;
			break;
		}
	if (slot >= 0)
		pt_anomaly_stored[most]--;
	return slot;
}

/* Under the chunk's lock, so the page view is the one this record made. */
static void pt_store_anomaly(const struct pagetrail_record *rec,
			     const struct pt_chunk *c,
			     const struct pt_made *made)
{
	struct pt_anomaly_entry *a;
	int slot;

	raw_spin_lock(&pt_anomaly_lock);
	slot = pt_anomaly_slot_locked(rec->anomaly, rec->pfn);
	if (slot >= 0) {
		pt_anomaly_stored[rec->anomaly]++;
		a = &pt_anomalies[slot];
		a->rec = *rec;
		if (c)
			pt_chunk_view(c, &a->page);
		else
			memset(&a->page, 0, sizeof(a->page));
		/* The current thread: the culprit, or for INSERT_ZERO_REF the victim. */
		if (!made) {
			a->nr_stack =
				stack_trace_save(a->stack, PT_STACK_DEPTH, 2);
		} else {
			/* Record first: the observer's, if the probe took it. */
			a->nr_stack = min_t(unsigned int, made->nr_stack,
					    PT_STACK_DEPTH);
			if (a->nr_stack)
				memcpy(a->stack, made->stack,
				       a->nr_stack * sizeof(a->stack[0]));
			else
				pt_anomalies_unstacked++;
		}
	}
	raw_spin_unlock(&pt_anomaly_lock);
}

/* IRQs off: this CPU's counters. */
static void pt_count(const struct pagetrail_record *rec)
{
	struct pt_tracker_pcpu *st = this_cpu_ptr(&pt_tracker_pcpu);
	unsigned long kinds = rec->anomalies;
	unsigned int kind;

	st->events_by_role[rec->role]++;
	if (rec->rflags & PT_RF_GAP) {
		st->gaps++;
		st->gaps_by_role[rec->role]++;
	}
	if (kinds)
		st->anomalies++;
	for_each_set_bit(kind, &kinds, PT_AN_MAX)
		st->anomalies_by_kind[kind]++;
}

/*
 * Stamp, keep the chunk's history, count, store an anomaly and write the
 * ring: everything a record does, under the caller's lock.
 */
static void pt_record(struct pagetrail_record *rec, struct pt_chunk *c,
		      const struct pt_made *made)
{
	bool keep = pt_recorder_stamp(rec, rec->anomalies,
				      made ? &made->who : NULL);

	pt_hotprof_mark(PT_HP_STAMP);
	if (c)
		c->hist = pt_history_push(rec, c->pfn, c->hist);
	pt_hotprof_mark(PT_HP_HISTORY);
	pt_count(rec);
	if (rec->anomalies)
		pt_store_anomaly(rec, c, made);
	pt_hotprof_mark(PT_HP_COUNT);
	pt_recorder_write(rec, keep);
	pt_hotprof_mark(PT_HP_RING);
}

/*
 * Under the chunk's lock. A freed chunk taken by another allocator leaves
 * the table but not the reused window, if its whole life was seen.
 */
static void pt_tracker_forget(struct pt_chunk *c,
			      const struct pt_rule_result *res, u16 epoch)
{
	if (res->reused_elsewhere && !c->unsure && c->epoch == epoch)
		pt_reused_note(c->pfn, c->order, epoch);
	pt_table_free(c);
}

/* The chunk an observation is about, its shard locked (IRQs are off). */
static struct pt_chunk *pt_tracker_lock_chunk(const struct pt_obs *obs,
					      unsigned int *shard,
					      bool *created, u16 epoch)
	__acquires(pt_shard_lock)
{
	struct pt_chunk *c;

	if (obs->role == PT_ROLE_INSERT)
		return pt_table_lock_containing(obs->pfn, shard);
	*shard = pt_table_shard(obs->pfn);
	pt_table_lock(*shard, obs->pfn);
	c = pt_table_find(obs->pfn);
	if (!obs->create)
		return c;
	if (!c) {
		c = pt_table_alloc(obs->pfn, obs->order);
		if (c) {
			c->epoch = epoch;
			*created = true;
		}
	} else if (c->order != obs->order && c->state == PT_ST_FREED &&
		   obs->order < 32) {
		/* A freed chunk's head reused at another order takes the new order. */
		c->order = obs->order;
		pt_table_note_order(obs->order);
		*created = true;
	}
	return c;
}

/*
 * Apply one observation to the table. Returns true and fills @rec when the
 * observation is worth a record (a transition, a gap or an anomaly).
 */
bool pt_tracker_observe(const struct pt_obs *obs, struct pagetrail_record *rec,
			const struct pt_made *made)
{
	struct pt_rule_input in = {
		.role = obs->role,
		.cause = obs->cause,
		.sampled = obs->sampled,
		.refcount = obs->refcount,
		.ret = obs->ret,
		.owner_dying = obs->owner_dying,
		.sampled_pool_refs = obs->sampled_pool_refs,
		.pool_refs = obs->pool_refs,
	};
	struct pt_rule_result res;
	bool created = false, recorded = false, unsure, partial;
	unsigned long flags;
	struct pt_chunk *c;
	unsigned int shard;
	u16 epoch;
	u8 from;

	local_irq_save(flags);
	if (pt_recorder_paused())
		goto out;
	pt_hotprof_begin();
	if (made) {
		partial = made->partial;
		epoch = made->epoch;
	} else {
		pt_tracker_epoch_now(&epoch, &partial);
	}
	c = pt_tracker_lock_chunk(obs, &shard, &created, epoch);
	pt_hotprof_mark(PT_HP_LOOKUP);
	if (!c && obs->tracked_only)
		goto unlock;
	if (obs->pooled_only && (!c || !pt_state_pooled(c->state)))
		goto unlock;
	from = c ? c->state : PT_ST_UNTRACKED;
	/* Freed by the driver, reused elsewhere, now mapped by the driver. */
	if (!c && obs->role == PT_ROLE_INSERT && obs->owner_known &&
	    pt_reused_contains(obs->pfn, epoch))
		from = PT_ST_FREED;
	in.owner_mismatch = c && obs->owner_known && obs->token != c->token;
	in.same_owner = c && obs->owner_known && obs->token == c->token &&
			obs->alloc_seq == c->alloc_seq;
	unsure = obs->unsure || partial;
	in.unsure = unsure || (c && (c->unsure || c->epoch != epoch));
	in.by_driver = obs->owner_known;
	pt_rule_apply(from, &in, &res);
	pt_hotprof_mark(PT_HP_RULE);
	if (!res.record) {
		if (c && res.forget)
			pt_tracker_forget(c, &res, epoch);
		goto unlock;
	}
	if (c) {
		pt_chunk_update_owner(c, obs, &res);
		c->state = res.to;
		/* A fully seen admission starts a life we know from its start. */
		if (unsure) {
			c->unsure = 1;
		} else if (obs->role == PT_ROLE_ADMIT) {
			c->unsure = 0;
			c->epoch = epoch;
		}
		if (res.gap && c->gaps < U16_MAX)
			c->gaps++;
		if (res.anomalies && c->anomalies < U16_MAX)
			c->anomalies++;
	}
	pt_fill_record(rec, obs, c, from, &res);
	pt_hotprof_mark(PT_HP_FILL);
	pt_record(rec, c, made);
	if (c && res.forget)
		pt_tracker_forget(c, &res, epoch);
	recorded = true;
unlock:
	pt_table_unlock(shard);
	/* Outside the chunk's lock: each freed chunk inside takes its own. */
	if (created && c) {
		pt_reused_drop(obs->pfn);
		pt_table_forget_freed_inside(obs->pfn, obs->order);
	}
	pt_hotprof_mark(PT_HP_UNLOCK);
out:
	local_irq_restore(flags);
	return recorded;
}

/* A record that is not a page transition (MAP, VMA), stamped in order. */
bool pt_tracker_record_event(const struct pt_obs *obs,
			     struct pagetrail_record *rec,
			     const struct pt_made *made)
{
	unsigned long flags;
	bool recorded = false;

	local_irq_save(flags);
	if (!pt_recorder_paused()) {
		pt_hotprof_begin();
		pt_fill_record(rec, obs, NULL, PT_ST_UNTRACKED, NULL);
		if (obs->event_anomaly && obs->event_anomaly < PT_AN_MAX) {
			rec->anomaly = obs->event_anomaly;
			rec->anomalies = BIT(obs->event_anomaly);
		}
		pt_hotprof_mark(PT_HP_FILL);
		pt_record(rec, NULL, made);
		recorded = true;
	}
	local_irq_restore(flags);
	return recorded;
}

bool pt_tracker_page_at(unsigned int slot, struct pt_page_view *view)
{
	const struct pt_chunk *c = pt_table_slot(slot);
	struct pt_chunk peek;
	unsigned long flags;
	unsigned int shard;
	bool used = false;
	u64 pfn;

	if (!c)
		return false;
	mutex_lock(&pt_tracker_readers);
	/* Unlocked peek for the shard; rechecked under it. */
	peek.key = READ_ONCE(c->key);
	pfn = peek.pfn;
	if (peek.in_use) {
		shard = pt_table_shard(pfn);
		local_irq_save(flags);
		pt_table_lock(shard, pfn);
		if (c->in_use && c->pfn == pfn) {
			pt_chunk_view(c, view);
			used = true;
		}
		pt_table_unlock(shard);
		local_irq_restore(flags);
	}
	mutex_unlock(&pt_tracker_readers);
	return used;
}

unsigned int pt_tracker_slots(void)
{
	return pt_table_capacity();
}

void pt_tracker_get_stats(struct pt_tracker_stats *st)
{
	struct pt_table_stats ts;
	unsigned long flags;
	unsigned int i;
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct pt_tracker_pcpu *c =
			per_cpu_ptr(&pt_tracker_pcpu, cpu);

		st->gaps += READ_ONCE(c->gaps);
		st->anomalies += READ_ONCE(c->anomalies);
		for (i = 0; i < PT_ROLE_MAX; i++) {
			st->gaps_by_role[i] += READ_ONCE(c->gaps_by_role[i]);
			st->events_by_role[i] +=
				READ_ONCE(c->events_by_role[i]);
		}
		for (i = 0; i < PT_AN_MAX; i++)
			st->anomalies_by_kind[i] +=
				READ_ONCE(c->anomalies_by_kind[i]);
	}
	pt_table_get_stats(&ts);
	st->tracked = max_t(s64, ts.tracked, 0);
	st->capacity = pt_table_capacity();
	st->recycled = ts.recycled;
	st->full = ts.full;
	st->filter_used = max_t(s64, ts.filter_used, 0);
	st->shards = pt_table_shards();
	st->shard_locked = ts.locked;
	st->shard_contended_same = ts.contended_same;
	st->shard_contended_other = ts.contended_other;
	st->table_bytes = pt_table_bytes() + pt_history_bytes();
	st->fixed_bytes = pt_table_fixed_bytes() + pt_reused_bytes() +
			  (u64)pt_max_anomalies * sizeof(*pt_anomalies);
	st->bytes_per_chunk = DIV_ROUND_UP(st->table_bytes, st->capacity);
	st->history_entries = pt_history_bytes() / sizeof(struct pt_hist_entry);
	raw_spin_lock_irqsave(&pt_anomaly_lock, flags);
	st->anomalies_dropped = pt_anomalies_dropped;
	st->anomalies_repeated = pt_anomalies_repeated;
	st->anomalies_unstacked = pt_anomalies_unstacked;
	raw_spin_unlock_irqrestore(&pt_anomaly_lock, flags);
}

unsigned int pt_anomaly_count(void)
{
	return READ_ONCE(pt_nr_anomalies);
}

bool pt_anomaly_copy(unsigned int i, struct pt_anomaly_entry *out)
{
	unsigned long flags;
	bool ok = false;

	raw_spin_lock_irqsave(&pt_anomaly_lock, flags);
	if (i < pt_nr_anomalies) {
		*out = pt_anomalies[i];
		ok = true;
	}
	raw_spin_unlock_irqrestore(&pt_anomaly_lock, flags);
	return ok;
}
