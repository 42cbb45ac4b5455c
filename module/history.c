// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the recent-window transition log (see history.h). Positions
 * are claimed with one atomic, so CPUs append without a shared lock; an
 * entry's seq is cleared before and set after its fields are written, and
 * a reader that finds it changed or out of order stops there.
 */
#include <linux/atomic.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <pagetrail/history.h>
#include <pagetrail/table.h>
#include <pagetrail/tracker.h>

static_assert(sizeof(struct pt_hist_entry) == 64);

static struct pt_hist_entry *pt_hist_log;
static unsigned int pt_hist_size;
static atomic_t pt_hist_pos = ATOMIC_INIT(0);

int pt_history_init(unsigned int entries)
{
	pt_hist_size = max(entries, 16u);
	pt_hist_log = pt_table_vzalloc(pt_hist_size, sizeof(*pt_hist_log));
	if (!pt_hist_log)
		return -ENOMEM;
	pt_history_clear();
	return 0;
}

void pt_history_exit(void)
{
	vfree(pt_hist_log);
	pt_hist_log = NULL;
}

/* With every writer held off (a reset, or before use). */
void pt_history_clear(void)
{
	memset(pt_hist_log, 0, pt_hist_size * sizeof(*pt_hist_log));
	atomic_set(&pt_hist_pos, 0);
}

size_t pt_history_bytes(void)
{
	return (size_t)pt_hist_size * sizeof(*pt_hist_log);
}

u32 pt_history_push(const struct pagetrail_record *rec, u64 pfn, u32 newest)
{
	unsigned int slot =
		(unsigned int)atomic_inc_return(&pt_hist_pos) % pt_hist_size;
	struct pt_hist_entry *h = &pt_hist_log[slot];

	WRITE_ONCE(h->seq, 0);
	smp_wmb(); /* a reader sees the entry invalid before it changes */
	h->ts_ns = rec->ts_ns;
	h->token = rec->token;
	memcpy(h->comm, rec->comm, sizeof(h->comm));
	h->pfn = pfn;
	h->to_state = rec->to_state;
	h->anomaly = rec->anomaly;
	h->gap = !!(rec->rflags & PT_RF_GAP);
	h->pid = rec->pid;
	h->generation = rec->generation;
	h->prev = newest;
	h->cpu = rec->cpu;
	h->role = rec->role;
	h->cause = rec->cause;
	smp_wmb(); /* the fields before the seq that validates them */
	WRITE_ONCE(h->seq, rec->seq);
	return slot + 1;
}

/* A consistent copy of the entry at @pos + 1, or false. */
static bool pt_history_copy(u32 pos1, struct pt_hist_entry *out)
{
	const struct pt_hist_entry *h;
	u64 seq;

	if (!pos1 || pos1 > pt_hist_size)
		return false;
	h = &pt_hist_log[pos1 - 1];
	seq = READ_ONCE(h->seq);
	smp_rmb(); /* pairs with the push's second smp_wmb */
	memcpy(out, h, sizeof(*out));
	smp_rmb(); /* pairs with its first: a rewrite since shows in seq */
	return seq && seq == READ_ONCE(h->seq) && out->seq == seq;
}

unsigned int pt_history_read(u64 pfn, u32 newest, struct pt_hist *out,
			     unsigned int max)
{
	struct pt_hist_entry e;
	u64 after = U64_MAX;
	unsigned int n = 0, i;
	u32 pos = newest;

	/* Newest first into the tail of @out, then moved to the front. */
	while (n < max && pt_history_copy(pos, &e)) {
		struct pt_hist *h = &out[max - 1 - n];

		/* Overwritten by another chunk, or by a newer record. */
		if (e.pfn != (pfn & GENMASK_ULL(39, 0)) || e.seq >= after)
			break;
		after = e.seq;
		h->ts_ns = e.ts_ns;
		h->token = e.token;
		h->pid = e.pid;
		h->generation = e.generation;
		memcpy(h->comm, e.comm, sizeof(h->comm));
		h->cpu = e.cpu;
		h->role = e.role;
		h->cause = e.cause;
		h->to_state = e.to_state;
		h->anomaly = e.anomaly;
		h->gap = e.gap;
		n++;
		pos = e.prev;
	}
	for (i = 0; i < n; i++)
		out[i] = out[max - n + i];
	return n;
}
