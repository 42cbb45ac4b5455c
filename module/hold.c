// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: a driver call's held observations (hold.h). The buffers are
 * a pool made at load, two per CPU: a call claims one at its first held
 * observation and gives it back as it returns. A call that finds none
 * free stages each observation on its own, as if nothing were held
 * (counted). Only the call's own task touches its buffer, from probe
 * handlers, and interrupts never find task frames: no lock.
 */
#include <linux/atomic.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <pagetrail/events.h>
#include <pagetrail/frames.h>
#include <pagetrail/hold.h>
#include <pagetrail/recorder.h>
#include <pagetrail/stage.h>
#include <pagetrail/tracker.h>

struct pt_hold {
	struct pt_obs obs[PT_HOLD_MAX];
	unsigned int n;
	int busy; /* claimed by a call */
};

static struct pt_hold *pt_holds;
static unsigned int pt_nholds;
static atomic64_t pt_holds_dropped = ATOMIC64_INIT(0);
static atomic64_t pt_holds_unheld = ATOMIC64_INIT(0);

int pt_hold_init(void)
{
	pt_nholds = 2 * num_possible_cpus();
	pt_holds = kvcalloc(pt_nholds, sizeof(*pt_holds), GFP_KERNEL);
	return pt_holds ? 0 : -ENOMEM;
}

void pt_hold_exit(void)
{
	kvfree(pt_holds);
	pt_holds = NULL;
}

u64 pt_hold_dropped(void)
{
	return atomic64_read(&pt_holds_dropped);
}

u64 pt_hold_unheld(void)
{
	return atomic64_read(&pt_holds_unheld);
}

/* A free buffer, looked for from this CPU's two first. */
static struct pt_hold *pt_hold_claim(void)
{
	unsigned int start = raw_smp_processor_id() * 2, i;

	for (i = 0; i < pt_nholds; i++) {
		struct pt_hold *h = &pt_holds[(start + i) % pt_nholds];

		if (!READ_ONCE(h->busy) && !cmpxchg(&h->busy, 0, 1)) {
			h->n = 0;
			return h;
		}
	}
	atomic64_inc(&pt_holds_unheld);
	return NULL;
}

static void pt_hold_stage(struct pt_hold *h)
{
	if (h->n)
		pt_stage_push_pages(h->obs, h->n);
	h->n = 0;
}

void pt_hold_observe(struct pt_frame *f, const struct pt_obs *obs)
{
	struct pt_hold *h = f ? f->hold : NULL;

	/* A reset under way records nothing (pt_hold_clear()). */
	if (pt_recorder_paused())
		return;
	if (!f || !pt_stage_enabled() || pt_stage_wants_stack(obs)) {
		/* What the call holds happened first. */
		if (h)
			pt_hold_stage(h);
		pt_observe(obs);
		return;
	}
	if (!h) {
		h = pt_hold_claim();
		if (!h) {
			pt_observe(obs);
			return;
		}
		f->hold = h;
	}
	if (h->n == PT_HOLD_MAX)
		pt_hold_stage(h);
	/* A free of its chunk before the call returns must not be filtered. */
	pt_stage_pending_hold(obs);
	h->obs[h->n++] = *obs;
}

static void pt_hold_give_back(struct pt_frame *f, struct pt_hold *h)
{
	h->n = 0;
	f->hold = NULL;
	/* Pairs with the claim's cmpxchg: the next call sees it empty. */
	smp_store_release(&h->busy, 0);
}

void pt_hold_flush(struct pt_frame *f)
{
	struct pt_hold *h = f->hold;

	if (!h)
		return;
	pt_hold_stage(h);
	pt_hold_give_back(f, h);
}

void pt_hold_drop(struct pt_frame *f)
{
	struct pt_hold *h = f->hold;

	unsigned int i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++)
		pt_stage_pending_drop(&h->obs[i]);
	atomic64_add(h->n, &pt_holds_dropped);
	pt_hold_give_back(f, h);
}

void pt_hold_clear(void)
{
	unsigned int i;

	for (i = 0; i < pt_nholds; i++) {
		struct pt_hold *h = &pt_holds[i];

		/* Their pre-filter counts are cleared with the rest. */
		if (READ_ONCE(h->busy))
			h->n = 0;
	}
	/* As every other count: from the reset on. */
	atomic64_set(&pt_holds_dropped, 0);
	atomic64_set(&pt_holds_unheld, 0);
}
