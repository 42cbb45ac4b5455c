// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: per-chunk state table (pfn -> state, owner, generation,
 * history). Each accepted observation is stamped, applied and written to the
 * flight recorder under one lock, so sequence order is transition order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/mutex.h>
#include <linux/log2.h>
#include <pagetrail/tracker.h>
#include <pagetrail/rules.h>
#include <pagetrail/events.h>
#include <pagetrail/ring.h>

/*
 * 2^20 counters: a free or allocation of an untracked page costs one byte
 * read. Counting (not a bitmap) so that forgotten chunks leave it again
 * and the filter stays as selective on day ten as after a fresh load; a
 * counter that reached 255 stays set (never a false "untracked").
 */
#define PT_FILTER_BITS 20
#define PT_FILTER_STUCK U8_MAX

struct pt_entry {
	struct hlist_node node; /* hash bucket, or the free list */
	struct list_head freed_link; /* FIFO of FREED entries, for recycling */
	struct pt_page_view v;
	u8 hist_head; /* next history slot to write */
	bool in_use;
};

static DEFINE_RAW_SPINLOCK(pt_tracker_lock);
static struct pt_entry *pt_entries;
static unsigned int pt_nr_entries;
static struct hlist_head *pt_buckets;
static unsigned int pt_hash_bits;
static HLIST_HEAD(pt_free_entries);
static LIST_HEAD(pt_freed_fifo);
static u8 *pt_filter;
static u32 pt_orders_seen; /* bit per chunk order ever tracked */
static struct pt_tracker_stats pt_stats;
static bool pt_paused; /* a reset is under way: record nothing */
/*
 * Bumped when an attach completes: what a chunk went through while
 * pagetrail was detached, or while its probes were still being planted,
 * was not all seen, so a chunk known from an earlier epoch is unsure until
 * its next fully seen admission. O(1) per attach, whatever the table.
 */
static u16 pt_epoch;
/*
 * Between the start of a detach and the end of the next attach, probes
 * and hooks come and go one by one (seconds on a busy machine): frees or
 * takes go unseen while assignments and inserts are still recorded, so
 * every observation in that window is unsure too.
 */
static bool pt_partial = true;

static struct pt_anomaly_entry *pt_anomalies;
static unsigned int pt_max_anomalies;
static unsigned int pt_nr_anomalies;
static unsigned int pt_anomaly_stored[PT_AN_MAX]; /* entries per first kind */

static void pt_tracker_clear_locked(void)
{
	unsigned int i;

	INIT_HLIST_HEAD(&pt_free_entries);
	INIT_LIST_HEAD(&pt_freed_fifo);
	for (i = 0; i < (1u << pt_hash_bits); i++)
		INIT_HLIST_HEAD(&pt_buckets[i]);
	for (i = pt_nr_entries; i-- > 0;) {
		pt_entries[i].in_use = false;
		hlist_add_head(&pt_entries[i].node, &pt_free_entries);
	}
	memset(pt_filter, 0, 1u << PT_FILTER_BITS);
	pt_orders_seen = 0;
	memset(&pt_stats, 0, sizeof(pt_stats));
	pt_stats.capacity = pt_nr_entries;
	pt_nr_anomalies = 0;
	memset(pt_anomaly_stored, 0, sizeof(pt_anomaly_stored));
}

int pt_tracker_init(unsigned int max_pages, unsigned int max_anomalies)
{
	pt_nr_entries = max_pages;
	pt_hash_bits = ilog2(roundup_pow_of_two(max_pages));
	/* A failure is reported once by the caller, not by the allocator. */
	pt_entries = kvcalloc(max_pages, sizeof(*pt_entries),
			      GFP_KERNEL | __GFP_NOWARN);
	pt_buckets = kvcalloc(1u << pt_hash_bits, sizeof(*pt_buckets),
			      GFP_KERNEL | __GFP_NOWARN);
	pt_filter = kvzalloc(1u << PT_FILTER_BITS, GFP_KERNEL | __GFP_NOWARN);
	pt_max_anomalies = max_anomalies;
	pt_anomalies = kvcalloc(max_anomalies, sizeof(*pt_anomalies),
				GFP_KERNEL | __GFP_NOWARN);
	if (!pt_entries || !pt_buckets || !pt_filter || !pt_anomalies) {
		pt_tracker_exit();
		return -ENOMEM;
	}
	pt_tracker_clear_locked();
	return 0;
}

void pt_tracker_exit(void)
{
	kvfree(pt_entries);
	kvfree(pt_buckets);
	kvfree(pt_filter);
	kvfree(pt_anomalies);
	pt_entries = NULL;
	pt_buckets = NULL;
	pt_filter = NULL;
	pt_anomalies = NULL;
}

/*
 * Clear everything, exactly: every ring write happens under our lock after
 * a check of pt_paused, so once paused no writer is inside the ring and its
 * per-CPU counters can be zeroed. Observations made while paused are not
 * stamped or counted; they belong to neither side of the reset. Sequence
 * numbers go on: a reader sees them increase across resets.
 */
void pt_tracker_reset(void (*reset_outside)(void))
{
	static DEFINE_MUTEX(pt_reset_lock); /* two resets at once: one unpause */
	unsigned long flags;

	mutex_lock(&pt_reset_lock);
	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	pt_paused = true;
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	reset_outside();
	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	pt_tracker_clear_locked();
	pt_paused = false;
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	mutex_unlock(&pt_reset_lock);
}

/*
 * @partial: probes and hooks are about to come or go. Clearing it, once
 * everything is planted, starts a new epoch: every chunk known so far,
 * including those seen while probes were going in, may have moved unseen.
 */
void pt_tracker_set_partial(bool partial)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	if (!partial)
		pt_epoch++;
	pt_partial = partial;
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
}

/* Lock-free pre-filter: false means the pfn is certainly not tracked. */
bool pt_tracker_maybe_tracked(u64 pfn)
{
	return READ_ONCE(pt_filter[hash_64(pfn, PT_FILTER_BITS)]);
}

/* Under the tracker lock: the filter follows the table exactly. */
static void pt_filter_add(u64 pfn)
{
	u8 *c = &pt_filter[hash_64(pfn, PT_FILTER_BITS)];

	if (*c == PT_FILTER_STUCK)
		return;
	if (!*c)
		pt_stats.filter_used++;
	WRITE_ONCE(*c, *c + 1);
}

static void pt_filter_remove(u64 pfn)
{
	u8 *c = &pt_filter[hash_64(pfn, PT_FILTER_BITS)];

	if (!*c || *c == PT_FILTER_STUCK)
		return;
	WRITE_ONCE(*c, *c - 1);
	if (!*c)
		pt_stats.filter_used--;
}

static struct pt_entry *pt_find_exact(u64 pfn)
{
	struct pt_entry *e;

	hlist_for_each_entry(e, &pt_buckets[hash_64(pfn, pt_hash_bits)], node)
		if (e->v.pfn == pfn)
			return e;
	return NULL;
}

/* The chunk containing @pfn: itself, or a head aligned to a tracked order. */
static struct pt_entry *pt_find_containing(u64 pfn)
{
	struct pt_entry *e = pt_find_exact(pfn);
	unsigned long orders = pt_orders_seen;
	unsigned int order;

	if (e)
		return e;
	for_each_set_bit(order, &orders, BITS_PER_LONG) {
		if (!order)
			continue;
		e = pt_find_exact(pfn & ~((1ULL << order) - 1));
		if (e && e->v.order == order)
			return e;
	}
	return NULL;
}

static void pt_entry_free(struct pt_entry *e)
{
	if (e->v.state == PT_ST_FREED)
		list_del(&e->freed_link);
	pt_filter_remove(e->v.pfn);
	hlist_del(&e->node);
	e->in_use = false;
	hlist_add_head(&e->node, &pt_free_entries);
	pt_stats.tracked--;
}

/*
 * A chunk of @order at @pfn now exists: chunks freed earlier inside its
 * range are history of other allocations, and would shadow it at lookup.
 */
static void pt_forget_freed_inside(u64 pfn, u8 order)
{
	struct pt_entry *e;
	u64 i;

	if (!order || order >= 32)
		return;
	for (i = 1; i < (1ULL << order); i++) {
		e = pt_find_exact(pfn + i);
		if (e && e->v.state == PT_ST_FREED)
			pt_entry_free(e);
	}
}

/* A freed chunk's head reused at another order takes the new order. */
static void pt_entry_reorder(struct pt_entry *e, u8 order)
{
	if (e->v.order == order || e->v.state != PT_ST_FREED || order >= 32)
		return;
	e->v.order = order;
	pt_orders_seen |= BIT(order);
	pt_forget_freed_inside(e->v.pfn, order);
}

static struct pt_entry *pt_entry_alloc(u64 pfn, u8 order)
{
	struct pt_entry *e = NULL;

	if (!hlist_empty(&pt_free_entries)) {
		e = hlist_entry(pt_free_entries.first, struct pt_entry, node);
	} else if (!list_empty(&pt_freed_fifo)) {
		/* Forget the chunk freed longest ago. */
		e = list_first_entry(&pt_freed_fifo, struct pt_entry,
				     freed_link);
		list_del(&e->freed_link);
		pt_filter_remove(e->v.pfn);
		pt_stats.recycled++;
		pt_stats.tracked--;
	} else {
		pt_stats.full++;
		return NULL;
	}
	hlist_del(&e->node);
	memset(&e->v, 0, sizeof(e->v));
	e->hist_head = 0;
	e->in_use = true;
	e->v.pfn = pfn;
	e->v.order = order;
	e->v.state = PT_ST_UNTRACKED;
	e->v.epoch = pt_epoch;
	INIT_LIST_HEAD(&e->freed_link);
	hlist_add_head(&e->node, &pt_buckets[hash_64(pfn, pt_hash_bits)]);
	pt_filter_add(pfn);
	if (order < 32)
		pt_orders_seen |= BIT(order);
	pt_stats.tracked++;
	pt_forget_freed_inside(pfn, order);
	return e;
}

static void pt_entry_set_state(struct pt_entry *e, u8 to)
{
	if (e->v.state == PT_ST_FREED && to != PT_ST_FREED)
		list_del_init(&e->freed_link);
	else if (e->v.state != PT_ST_FREED && to == PT_ST_FREED)
		list_add_tail(&e->freed_link, &pt_freed_fifo);
	e->v.state = to;
}

static void pt_entry_push_history(struct pt_entry *e,
				  const struct pagetrail_record *rec)
{
	struct pt_hist *h = &e->v.hist[e->hist_head];

	h->ts_ns = rec->ts_ns;
	h->token = rec->token;
	h->pid = rec->pid;
	h->generation = rec->generation;
	memcpy(h->comm, rec->comm, sizeof(h->comm));
	h->cpu = rec->cpu;
	h->role = rec->role;
	h->cause = rec->cause;
	h->to_state = rec->to_state;
	h->anomaly = rec->anomaly;
	h->gap = !!(rec->rflags & PT_RF_GAP);
	e->hist_head = (e->hist_head + 1) % PT_HIST_LEN;
	if (e->v.hist_len < PT_HIST_LEN)
		e->v.hist_len++;
}

/* Copy out an entry with its history oldest first. */
static void pt_entry_view(const struct pt_entry *e, struct pt_page_view *view)
{
	unsigned int i, start;

	*view = e->v;
	start = (e->hist_head + PT_HIST_LEN - e->v.hist_len) % PT_HIST_LEN;
	for (i = 0; i < e->v.hist_len; i++)
		view->hist[i] = e->v.hist[(start + i) % PT_HIST_LEN];
}

/* Apply what the owner changes to the entry, per role. */
static void pt_entry_update_owner(struct pt_entry *e, const struct pt_obs *obs,
				  const struct pt_rule_result *res)
{
	switch (obs->role) {
	case PT_ROLE_ASSIGN:
		if (e->v.alloc_seq && e->v.alloc_seq != obs->alloc_seq) {
			e->v.prev_token = e->v.token;
			e->v.prev_alloc_seq = e->v.alloc_seq;
		}
		e->v.token = obs->token;
		e->v.alloc_seq = obs->alloc_seq;
		e->v.index = obs->index;
		break;
	case PT_ROLE_ADMIT:
		if (obs->token)
			e->v.token = obs->token;
		e->v.aux = obs->aux;
		break;
	case PT_ROLE_TAKE:
	case PT_ROLE_SCRUB:
	case PT_ROLE_RECLAIM:
		e->v.aux = obs->aux;
		break;
	default:
		break;
	}
	if (res->new_generation)
		e->v.generation++;
}

static void pt_fill_record(struct pagetrail_record *rec,
			   const struct pt_obs *obs, const struct pt_entry *e,
			   u8 from, const struct pt_rule_result *res)
{
	memset(rec, 0, sizeof(*rec));
	pt_events_stamp(rec);
	rec->role = obs->role;
	rec->cause = obs->cause;
	rec->pfn = obs->pfn;
	rec->order = e ? e->v.order : obs->order;
	rec->from_state = from;
	rec->to_state = res ? res->to : from;
	rec->aux = obs->aux;
	rec->ret = obs->ret;
	rec->inner_ret = obs->inner_ret;
	rec->token = obs->token;
	rec->alloc_seq = obs->alloc_seq;
	rec->index = obs->index;
	if (e) {
		rec->generation = e->v.generation;
		if (!rec->token)
			rec->token = e->v.token;
		if (!rec->alloc_seq) {
			rec->alloc_seq = e->v.alloc_seq;
			rec->index = e->v.index;
		}
		rec->prev_token = e->v.prev_token;
		rec->prev_alloc_seq = e->v.prev_alloc_seq;
		/* A take names both: the allocation that admitted it and the taker. */
		if (obs->role == PT_ROLE_TAKE) {
			rec->prev_token = e->v.token;
			rec->prev_alloc_seq = e->v.alloc_seq;
		}
		if (obs->role == PT_ROLE_INSERT) {
			rec->token = e->v.token;
			rec->alloc_seq = e->v.alloc_seq;
			rec->index = e->v.index + (u32)(obs->pfn - e->v.pfn);
			/* Inserted through another allocation's VMA: name it. */
			if (obs->owner_known && obs->token != e->v.token)
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
			pt_stats.anomalies_repeated++;
			return -1;
		}
	if (pt_nr_anomalies < pt_max_anomalies)
		return pt_nr_anomalies++;
	/* Full: one entry is lost either way, the new one or an evicted one. */
	pt_stats.anomalies_dropped++;
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

static void pt_store_anomaly_locked(const struct pagetrail_record *rec,
				    const struct pt_entry *e)
{
	struct pt_anomaly_entry *a;
	int slot = pt_anomaly_slot_locked(rec->anomaly, rec->pfn);

	if (slot < 0)
		return;
	pt_anomaly_stored[rec->anomaly]++;
	a = &pt_anomalies[slot];
	a->rec = *rec;
	if (e)
		pt_entry_view(e, &a->page);
	else
		memset(&a->page, 0, sizeof(a->page));
	/* The current thread: the culprit, or for INSERT_ZERO_REF the victim. */
	a->nr_stack = stack_trace_save(a->stack, PT_STACK_DEPTH, 2);
}

static void pt_count_locked(const struct pagetrail_record *rec)
{
	unsigned long kinds = rec->anomalies;
	unsigned int kind;

	pt_stats.events_by_role[rec->role]++;
	if (rec->rflags & PT_RF_GAP) {
		pt_stats.gaps++;
		pt_stats.gaps_by_role[rec->role]++;
	}
	if (kinds)
		pt_stats.anomalies++;
	for_each_set_bit(kind, &kinds, PT_AN_MAX)
		pt_stats.anomalies_by_kind[kind]++;
}

/*
 * In sequence order on every CPU (readers merge by seq). An anomaly freezes
 * the recorder here, under the lock, so it is the last record kept.
 */
static void pt_write_locked(const struct pagetrail_record *rec)
{
	pt_ring_write(rec);
	if (rec->anomalies && pt_events_freeze_on_anomaly())
		pt_ring_freeze(true);
}

/*
 * Apply one observation to the table. Returns true and fills @rec when the
 * observation is worth a record (a transition, a gap or an anomaly).
 */
bool pt_tracker_observe(const struct pt_obs *obs, struct pagetrail_record *rec)
{
	struct pt_rule_input in = {
		.role = obs->role,
		.cause = obs->cause,
		.sampled = obs->sampled,
		.refcount = obs->refcount,
		.ret = obs->ret,
	};
	struct pt_rule_result res;
	struct pt_entry *e;
	unsigned long flags;
	bool unsure;
	u8 from;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	if (pt_paused) {
		raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
		return false;
	}
	e = obs->role == PT_ROLE_INSERT ? pt_find_containing(obs->pfn) :
					  pt_find_exact(obs->pfn);
	if (!e && obs->create)
		e = pt_entry_alloc(obs->pfn, obs->order);
	else if (e && obs->create)
		pt_entry_reorder(e, obs->order);
	if (!e && obs->tracked_only) {
		raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
		return false;
	}
	from = e ? e->v.state : PT_ST_UNTRACKED;
	in.owner_mismatch = e && obs->owner_known && obs->token != e->v.token;
	in.same_owner = e && obs->owner_known && obs->token == e->v.token &&
			obs->alloc_seq == e->v.alloc_seq;
	unsure = obs->unsure || pt_partial;
	in.unsure = unsure || (e && (e->v.unsure || e->v.epoch != pt_epoch));
	in.by_driver = obs->owner_known;
	pt_rule_apply(from, &in, &res);
	if (!res.record) {
		if (e && res.forget)
			pt_entry_free(e);
		raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
		return false;
	}
	if (e) {
		pt_entry_update_owner(e, obs, &res);
		pt_entry_set_state(e, res.to);
		/* A fully seen admission starts a life we know from its start. */
		if (unsure) {
			e->v.unsure = true;
		} else if (obs->role == PT_ROLE_ADMIT) {
			e->v.unsure = false;
			e->v.epoch = pt_epoch;
		}
		e->v.gaps += res.gap;
		e->v.anomalies += !!res.anomalies;
	}
	pt_fill_record(rec, obs, e, from, &res);
	if (e)
		pt_entry_push_history(e, rec);
	pt_count_locked(rec);
	if (rec->anomalies)
		pt_store_anomaly_locked(rec, e);
	if (e && res.forget)
		pt_entry_free(e);
	pt_write_locked(rec);
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	return true;
}

/* A record that is not a page transition (MAP, VMA), stamped in order. */
bool pt_tracker_record_event(const struct pt_obs *obs,
			     struct pagetrail_record *rec)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	if (pt_paused) {
		raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
		return false;
	}
	pt_fill_record(rec, obs, NULL, PT_ST_UNTRACKED, NULL);
	pt_count_locked(rec);
	pt_write_locked(rec);
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	return true;
}

bool pt_tracker_lookup(u64 pfn, struct pt_page_view *view)
{
	struct pt_entry *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	e = pt_find_containing(pfn);
	if (e)
		pt_entry_view(e, view);
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	return e;
}

bool pt_tracker_page_at(unsigned int slot, struct pt_page_view *view)
{
	unsigned long flags;
	bool used = false;

	if (slot >= pt_nr_entries)
		return false;
	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	if (pt_entries[slot].in_use) {
		pt_entry_view(&pt_entries[slot], view);
		used = true;
	}
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	return used;
}

unsigned int pt_tracker_slots(void)
{
	return pt_nr_entries;
}

/* Ring counters with every writer held off: all of them write under our lock. */
void pt_tracker_ring_stats(struct pt_ring_stats *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	pt_ring_get_stats(st);
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
}

void pt_tracker_get_stats(struct pt_tracker_stats *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	*st = pt_stats;
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
}

unsigned int pt_anomaly_count(void)
{
	return READ_ONCE(pt_nr_anomalies);
}

bool pt_anomaly_copy(unsigned int i, struct pt_anomaly_entry *out)
{
	unsigned long flags;
	bool ok = false;

	raw_spin_lock_irqsave(&pt_tracker_lock, flags);
	if (i < pt_nr_anomalies) {
		*out = pt_anomalies[i];
		ok = true;
	}
	raw_spin_unlock_irqrestore(&pt_tracker_lock, flags);
	return ok;
}
