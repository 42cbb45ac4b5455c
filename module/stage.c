// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: record first. A staging ring per CPU, one writer (the probe
 * path, IRQs off), one reader (the consumer, under pt_stage_lock). The
 * probe path writes nothing another CPU writes: its ring, its counters, a
 * section flag, and for an admission one pre-filter counter; under
 * clock=causal its stamp also writes the clock's last stamp (clock.h).
 *
 * Order. Each CPU's entries are in the order of its stamps (clock.h:
 * local_clock() where the CPUs' clocks agree, made causal where they do
 * not). The consumer reads the clock (its limit), then waits until no CPU
 * is inside a staging section, then takes every entry stamped before the
 * limit, all CPUs merged by (time, cpu). A section that starts after the
 * wait reads the clock after the limit was read (the flag, smp_mb(), the
 * clock; against the limit, smp_mb(), the flag), so its stamp is later
 * than the limit and nothing stamped before the limit can appear after it
 * was passed: the merge never goes backwards, and an observation that
 * happened after another on some other CPU (under the pool's lock, say)
 * is interpreted after it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/vmalloc.h>
#include <pagetrail/clock.h>
#include <pagetrail/pending.h>
#include <pagetrail/stage.h>
#include <pagetrail/staged.h>
#include <pagetrail/tracker.h>
#include <pagetrail/events.h>
#include <pagetrail/hold.h>
#include <pagetrail/hotprof.h>
#include <pagetrail/record.h>

#define PT_STAGE_STACKS 64 /* stacks per CPU, a power of two */
#define PT_STAGE_BATCH_MAX 16 /* a walk's observations staged at once */
/* The consumer lets others in this often (entries). */
#define PT_STAGE_BATCH 256

/*
 * The consumer's view of one CPU: where it reads, and who staged the
 * section it is in, and when (a section is published at once, so its head
 * slot is always read before its observations).
 */
struct pt_stage_cursor {
	u64 pos;
	u64 end;
	struct pt_who who;
	u16 epoch;
	bool partial;
};

/* A walk's observations, staged together at its end or when full. */
struct pt_stage_batch {
	struct pt_obs obs[PT_STAGE_BATCH_MAX];
	u8 kinds[PT_STAGE_BATCH_MAX];
	unsigned int n;
	unsigned int level; /* pt_stage_level() of the walk that opened it */
	bool open;
};

struct pt_stage_stack {
	unsigned long ent[PT_STACK_DEPTH];
	unsigned int nr;
};

struct pt_stage_cpu {
	struct pt_slot *slots;
	struct pt_stage_stack *stacks;
	u64 head; /* next slot to write: the writer's, released */
	u64 tail; /* next slot to read: the consumer's, released */
	/* Slots that are not observations (heads, wide halves): written, read */
	u64 extra;
	u64 extra_read;
	u64 wide; /* observations that took two slots */
	u32 stack_head;
	u32 stack_tail;
	int in_section;
	bool busy; /* a section under way on this CPU: refuse nesting (NMI) */
	u64 observed;
	u64 lost;
	u64 stacks_taken;
	u64 stacks_lost;
	/* writes to a cache line other CPUs write too (pending, epoch) */
	u64 shared_writes;
	struct irq_work kick;
};

static DEFINE_PER_CPU(struct pt_stage_cpu, pt_stage_cpu);
static DEFINE_PER_CPU(struct pt_stage_batch, pt_stage_batch);

bool pt_stage_on;
static u32 pt_stage_slots; /* slots per CPU, a power of two */
static u32 pt_stage_wake; /* wake the consumer when this many slots are used */
/* The consumer: one at a time, in process context. */
static DEFINE_MUTEX(pt_stage_lock);
/*
 * Its own thread, made at load: a workqueue may fork a spare worker the
 * first time it is used, and that fork's allocations on the kicking CPU
 * take the pages the traced code just freed there (a freed pool page
 * reused by the tracer's own worker, seen in pt_tracecmd).
 */
static struct task_struct *pt_stage_task;
static bool pt_stage_kicked;
/*
 * Set by a consumer as it finishes, cleared as one starts. A CPU that
 * stages wakes the consumer only when it is idle and enough is staged; the
 * consumer, idle, looks once more: with a full barrier on both sides one
 * of them sees the other, so nothing waits for the next reader.
 */
static bool pt_stage_idle = true;
/* Under pt_stage_lock. */
static u64 pt_stage_consumed;
static u64 pt_stage_runs;
static u64 pt_stage_ns;
static u64 pt_stage_lag_max;
/* Per source CPU: whether its last staged take-or-fresh took the chunk. */
static bool *pt_stage_taken;
/*
 * The consumer's cursors, one per CPU, allocated once: a consumer that
 * allocated would observe itself taking pages the pool freed.
 */
static struct pt_stage_cursor *pt_stage_cur;
/* The CPUs a consumer run found entries on, ascending (its merge's set). */
static int *pt_stage_cpus;

/* A chunk the interpreter may start tracking: admissions and assignments. */
static bool pt_stage_creates(const struct pt_obs *obs, u8 kind)
{
	return obs->create && kind != PT_STAGE_EVENT;
}

/* Whether a stack was taken for @obs: the next of this CPU's stacks. */
static bool pt_stage_take_stack(struct pt_stage_cpu *c,
				const struct pt_obs *obs)
{
	struct pt_stage_stack *st;

	if (!pt_stage_wants_stack(obs))
		return false;
	/* Pairs with the consumer's release of stack_tail. */
	if (c->stack_head - smp_load_acquire(&c->stack_tail) >=
	    PT_STAGE_STACKS) {
		c->stacks_lost++;
		return false;
	}
	st = &c->stacks[c->stack_head & (PT_STAGE_STACKS - 1)];
	st->nr = stack_trace_save(st->ent, PT_STACK_DEPTH, 3);
	c->stack_head++;
	c->stacks_taken++;
	return true;
}

/* Any context but NMI: wake the consumer, which allocates nothing. */
static void pt_stage_wake_consumer(void)
{
	/* The flag before the wake: pairs with the thread's state, then flag. */
	WRITE_ONCE(pt_stage_kicked, true);
	wake_up_process(pt_stage_task);
}

static void pt_stage_kick_fn(struct irq_work *w)
{
	pt_stage_wake_consumer();
}

/*
 * IRQs off: stage @n observations, one who and one clock read for all of
 * them: a head slot, then one slot each (two for one that does not fit
 * one). False when none was staged (paused, full, nested).
 */
static bool pt_stage_write(const struct pt_obs *obs, const u8 *kinds,
			   unsigned int n)
{
	u32 mask = pt_stage_slots - 1;
	struct pt_stage_cpu *c;
	struct pt_slot_head *h;
	unsigned int i, need, used;
	bool staged = false;
	u64 head, in_use;

	if (pt_recorder_paused())
		return false;
	pt_hotprof_begin_stage(n);
	c = this_cpu_ptr(&pt_stage_cpu);
	if (unlikely(c->busy)) {
		/* Inside this CPU's section (an NMI): counted inside it too. */
		c->observed += n;
		c->lost += n;
		c->shared_writes++;
		pt_tracker_new_epoch();
		return false;
	}
	c->busy = true;
	WRITE_ONCE(c->in_section, 1);
	/* The flag before the clock: pairs with pt_stage_drain()'s limit. */
	smp_mb();
	/* Counted inside the section: stats read between sections (exact). */
	c->observed += n;
	pt_hotprof_mark(PT_HP_STAGE_ENTER);
	head = c->head;
	/* Pairs with the consumer's release: its copy of the slot is done. */
	in_use = head - smp_load_acquire(&c->tail);
	/* Which take two slots is counted only where it could matter. */
	need = 1 + n;
	if (unlikely(in_use + 1 + 2 * n > pt_stage_slots))
		for (i = 0; i < n; i++)
			need += !pt_slot_fits(&obs[i]);
	if (in_use + need > pt_stage_slots) {
		/*
		 * The table will not see these: every chunk it knows may
		 * have moved unseen, as while probes come and go.
		 */
		c->lost += n;
		c->shared_writes++;
		pt_tracker_new_epoch();
		goto leave;
	}
	/* Who and when, once, into the section's head slot. */
	h = &c->slots[head & mask].head;
	h->who.ts_ns = pt_clock_now();
	/* The causal clock's last stamp is a line every CPU writes. */
	if (pt_clock_is_causal())
		c->shared_writes++;
	pt_hotprof_mark(PT_HP_STAGE_CLOCK);
	pt_recorder_actor_raw(&h->who);
	pt_tracker_epoch_now(&h->epoch, &h->partial);
	c->slots[head & mask].obs.type = PT_SLOT_HEAD;
	pt_hotprof_mark(PT_HP_STAGE_WHO);
	used = 1;
	for (i = 0; i < n; i++) {
		bool stacked = false;

		/*
		 * A held observation's count was taken when it was held, and
		 * none wants a stack: those are staged at once (hold.c).
		 */
		if (kinds[i] != PT_STAGE_HELD_PAGE) {
			if (pt_stage_creates(&obs[i], kinds[i])) {
				pt_pending_add(obs[i].pfn);
				c->shared_writes++;
			}
			stacked = pt_stage_take_stack(c, &obs[i]);
		}
		used += pt_slot_pack(&c->slots[(head + used) & mask],
				     &c->slots[(head + used + 1) & mask],
				     &obs[i], kinds[i], stacked);
	}
	pt_hotprof_mark(PT_HP_STAGE_WRITE);
	/* The head and the wide halves: slots that are not observations. */
	c->extra += used - n;
	if (unlikely(used - n > 1))
		c->wide += used - n - 1;
	/* Pairs with the consumer's acquire: the slots are whole. */
	smp_store_release(&c->head, head + used);
	staged = true;
	/*
	 * The consumer runs once this CPU has staged enough (stage_wake_pct).
	 * The head, then idle and the tail: pairs with pt_stage_rerun().
	 */
	smp_mb();
	if (READ_ONCE(pt_stage_idle) &&
	    head + used - READ_ONCE(c->tail) >= pt_stage_wake)
		irq_work_queue(&c->kick);
leave:
	/* Pairs with the consumer's and stats' reads: the section is over. */
	smp_store_release(&c->in_section, 0);
	c->busy = false;
	pt_hotprof_mark(PT_HP_STAGE_PUBLISH);
	return staged;
}

/* The context a batch belongs to: task, softirq, hardirq or NMI level. */
static unsigned int pt_stage_level(void)
{
	return preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK);
}

/* IRQs off: stage what the open batch holds. */
static void pt_stage_flush(struct pt_stage_batch *b)
{
	if (b->n)
		pt_stage_write(b->obs, b->kinds, b->n);
	b->n = 0;
}

/* Lost (counted) or paused: their pre-filter counts go with them. */
static bool pt_stage_kept(const struct pt_obs *obs, unsigned int n, bool staged)
{
	if (!staged)
		while (n--)
			pt_stage_pending_drop(&obs[n]);
	return staged;
}

bool pt_stage_push(enum pt_stage_kind kind, const struct pt_obs *obs,
		   unsigned int n)
{
	u8 kinds[2] = { kind, PT_STAGE_ASSIGN_AFTER_TAKE };
	struct pt_stage_batch *b;
	unsigned long flags;
	bool staged;
	unsigned int i;

	if (WARN_ON_ONCE(n > ARRAY_SIZE(kinds)))
		return false;
	/*
	 * A walk's observations wait in its batch (pt_stage_batch_open()).
	 * Only its own context level touches it, so appending needs no IRQs
	 * off: an interrupt sees another level and stages on its own. A
	 * preemptible caller has no batch: walks run with preemption off.
	 */
	if (!preemptible()) {
		b = this_cpu_ptr(&pt_stage_batch);
		if (b->open && b->level == pt_stage_level()) {
			if (b->n + n > ARRAY_SIZE(b->obs)) {
				local_irq_save(flags);
				pt_stage_flush(b);
				local_irq_restore(flags);
			}
			for (i = 0; i < n; i++) {
				b->obs[b->n] = obs[i];
				b->kinds[b->n] = kinds[i];
				/* An interrupt reads n: the entry first. */
				WRITE_ONCE(b->n, b->n + 1);
			}
			return true;
		}
	}
	local_irq_save(flags);
	staged = pt_stage_write(obs, kinds, n);
	local_irq_restore(flags);
	return pt_stage_kept(obs, n, staged);
}

void pt_stage_pending_hold(const struct pt_obs *obs)
{
	if (!obs->create)
		return;
	pt_pending_add(obs->pfn);
	/* One instruction: safe against a section in an interrupt here. */
	this_cpu_inc(pt_stage_cpu.shared_writes);
}

void pt_stage_pending_drop(const struct pt_obs *obs)
{
	if (obs->create)
		pt_pending_done(obs->pfn);
}

/*
 * Probe context: @n page observations a driver call held (hold.h), in one
 * section. A walk's open batch of this level, older, goes first.
 */
bool pt_stage_push_pages(const struct pt_obs *obs, unsigned int n)
{
	u8 kinds[PT_HOLD_MAX];
	struct pt_stage_batch *b;
	unsigned long flags;
	bool staged;

	if (WARN_ON_ONCE(n > ARRAY_SIZE(kinds)))
		return false;
	memset(kinds, PT_STAGE_HELD_PAGE, n);
	local_irq_save(flags);
	b = this_cpu_ptr(&pt_stage_batch);
	if (b->open && b->level == pt_stage_level())
		pt_stage_flush(b);
	staged = pt_stage_write(obs, kinds, n);
	local_irq_restore(flags);
	return pt_stage_kept(obs, n, staged);
}

/*
 * Probe context, preemption off: the observations of one walk (a driver
 * call over many chunks) are staged together, one clock read and one
 * section for up to PT_STAGE_BATCH_MAX of them. Returns whether a batch
 * was opened, which pt_stage_batch_close() is then given.
 */
bool pt_stage_batch_open(void)
{
	struct pt_stage_batch *b;
	unsigned long flags;
	bool opened = false;

	/* Preemptible (an attach-time walk): each observation on its own. */
	if (!pt_stage_enabled() || preemptible())
		return false;
	local_irq_save(flags);
	b = this_cpu_ptr(&pt_stage_batch);
	if (!b->open) {
		b->open = true;
		b->n = 0;
		b->level = pt_stage_level();
		opened = true;
	}
	local_irq_restore(flags);
	return opened;
}

void pt_stage_batch_close(bool opened)
{
	struct pt_stage_batch *b;
	unsigned long flags;

	if (!opened)
		return;
	local_irq_save(flags);
	b = this_cpu_ptr(&pt_stage_batch);
	pt_stage_flush(b);
	b->open = false;
	local_irq_restore(flags);
}

/* Interpret one observation of @kind; @src: the CPU that staged it. */
static void pt_stage_apply(struct pt_obs *obs, u8 kind,
			   const struct pt_made *made, int src)
{
	switch (kind) {
	case PT_STAGE_PAGE:
	case PT_STAGE_HELD_PAGE:
		pt_observe_made(obs, made);
		break;
	case PT_STAGE_EVENT:
		pt_observe_event_made(obs, made);
		break;
	case PT_STAGE_TAKE_OR_FRESH:
		pt_stage_taken[src] = pt_take_if_pooled(obs, made);
		break;
	case PT_STAGE_ASSIGN_AFTER_TAKE:
		obs->cause = pt_stage_taken[src] ? PT_CAUSE_POOL :
						   PT_CAUSE_FRESH;
		pt_observe_made(obs, made);
		break;
	}
	/* Interpreted: its chunk, if it made one, is in the table now. */
	if (pt_stage_creates(obs, kind))
		pt_pending_done(obs->pfn);
}

/* The stamp of the next slot of @cpu: a head's own, else its section's. */
static u64 pt_stage_next_ts(const struct pt_stage_cursor *cur, int cpu)
{
	const struct pt_slot *s;

	s = &per_cpu_ptr(&pt_stage_cpu, cpu)
		     ->slots[cur->pos & (pt_stage_slots - 1)];
	if (pt_slot_type(s) == PT_SLOT_HEAD)
		return s->head.who.ts_ns;
	return cur->who.ts_ns;
}

/*
 * The CPU whose next slot is the oldest before @limit, or -1; among the
 * @n CPUs of @cpus, those the run found entries on (a walk of every
 * possible CPU's bit for each entry cost as much as the rest of the merge).
 */
static int pt_stage_next(struct pt_stage_cursor *cur, const int *cpus,
			 unsigned int n, u64 limit)
{
	u64 best_ts = limit;
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		int cpu = cpus[i];
		u64 ts;

		if (cur[cpu].pos == cur[cpu].end)
			continue;
		ts = pt_stage_next_ts(&cur[cpu], cpu);
		/* Ties go to the lower CPU: cpus are visited in order. */
		if (ts < best_ts) {
			best_ts = ts;
			best = cpu;
		}
	}
	return best;
}

/* A section's head: who and when for the observations that follow. */
static void pt_stage_take_head(struct pt_stage_cursor *cur,
			       const struct pt_slot_head *h)
{
	cur->who = h->who;
	cur->epoch = h->epoch;
	cur->partial = h->partial;
	/* Off the probe path: the thread name made one token (record.c). */
	pt_comm_sanitize(cur->who.comm, sizeof(cur->who.comm));
}

static void pt_stage_consume(struct pt_stage_cursor *cur, int cpu, u64 limit)
{
	struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);
	u32 mask = pt_stage_slots - 1;
	const struct pt_slot *s, *wide;
	struct pt_stage_stack st;
	struct pt_made made = {};
	struct pt_obs obs;
	u8 kind;
	u16 bits;

	s = &c->slots[cur[cpu].pos & mask];
	if (pt_slot_type(s) == PT_SLOT_HEAD) {
		pt_stage_take_head(&cur[cpu], &s->head);
		cur[cpu].pos++;
		c->extra_read++;
		/* Pairs with the writer's acquire: the slot is free again. */
		smp_store_release(&c->tail, cur[cpu].pos);
		return;
	}
	wide = &c->slots[(cur[cpu].pos + 1) & mask];
	pt_slot_unpack(s, wide, &obs);
	kind = s->obs.type;
	bits = s->obs.bits;
	cur[cpu].pos += bits & PT_SLOT_HAS_WIDE ? 2 : 1;
	c->extra_read += !!(bits & PT_SLOT_HAS_WIDE);
	if (bits & PT_SLOT_STACKED) {
		st = c->stacks[c->stack_tail & (PT_STAGE_STACKS - 1)];
		/* Pairs with the writer's acquire: the stack slot is free. */
		smp_store_release(&c->stack_tail, c->stack_tail + 1);
		made.stack = st.ent;
		made.nr_stack = st.nr;
	}
	/* Pairs with the writer's acquire: the slots are free again. */
	smp_store_release(&c->tail, cur[cpu].pos);
	made.who = cur[cpu].who;
	made.epoch = cur[cpu].epoch;
	made.partial = cur[cpu].partial;
	/* Stamped before the limit: the wait until the consumer got to it. */
	pt_stage_lag_max = max(pt_stage_lag_max, limit - made.who.ts_ns);
	pt_stage_apply(&obs, kind, &made, cpu);
	pt_stage_consumed++;
}

/*
 * Under pt_stage_lock, as a consumer finishes: idle, then whether some CPU
 * staged enough meanwhile that its kick saw this consumer still busy.
 */
static bool pt_stage_rerun(void)
{
	int cpu;

	WRITE_ONCE(pt_stage_idle, true);
	/* Idle, then the heads: pairs with pt_stage_write()'s smp_mb(). */
	smp_mb();
	for_each_possible_cpu(cpu) {
		struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);

		/* Pairs with the writer's release: as in pt_stage_drain(). */
		if (smp_load_acquire(&c->head) - c->tail >= pt_stage_wake)
			return true;
	}
	return false;
}

/* Interpret, oldest first, every entry stamped before @limit. */
static void pt_stage_consume_before(u64 limit)
{
	struct pt_stage_cursor *cur = pt_stage_cur;
	unsigned int done = 0, ncpus = 0;
	bool more = false;
	u64 t0;
	int cpu;

	mutex_lock(&pt_stage_lock);
	WRITE_ONCE(pt_stage_idle, false);
	t0 = local_clock();
	/* The limit before the flags: pairs with pt_stage_push()'s smp_mb(). */
	smp_mb();
	for_each_possible_cpu(cpu) {
		struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);

		/* A section is a few hundred ns with IRQs off: wait it out. */
		while (READ_ONCE(c->in_section))
			cpu_relax();
		cur[cpu].pos = c->tail;
		/* Pairs with the writer's release: entries below are whole. */
		cur[cpu].end = smp_load_acquire(&c->head);
		if (cur[cpu].pos != cur[cpu].end)
			pt_stage_cpus[ncpus++] = cpu;
	}
	while ((cpu = pt_stage_next(cur, pt_stage_cpus, ncpus, limit)) >= 0) {
		pt_stage_consume(cur, cpu, limit);
		if (++done % PT_STAGE_BATCH == 0)
			cond_resched();
	}
	for_each_possible_cpu(cpu)
		more |= cur[cpu].pos != cur[cpu].end;
	pt_stage_runs++;
	pt_stage_ns += local_clock() - t0;
	/* Staged after the limit, or enough while this ran: run again. */
	if (pt_stage_rerun() || more)
		pt_stage_wake_consumer();
	mutex_unlock(&pt_stage_lock);
}

/*
 * Process context: interpret everything staged before now, oldest first.
 * Every reader and the consumer come here first: where the clock is
 * checked again (clock=auto: the TSC marked unstable since load).
 */
void pt_stage_drain(void)
{
	pt_clock_recheck();
	if (pt_stage_enabled())
		pt_stage_consume_before(pt_clock_now());
}

/*
 * At the default priority, sharing a CPU fairly: at nice -20 a consumer
 * that keeps up took a busy CPU from the flight recorder's own reader
 * (make bench's ring phase lost half its records with a reader every
 * 50 ms); one the traced load starves fills its staging, counted.
 */
static int pt_stage_thread(void *unused)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			return 0;
		}
		if (!READ_ONCE(pt_stage_kicked)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		WRITE_ONCE(pt_stage_kicked, false);
		pt_stage_drain();
	}
}

void pt_stage_clear(void)
{
	int cpu;

	if (!pt_stage_enabled())
		return;
	mutex_lock(&pt_stage_lock);
	for_each_possible_cpu(cpu) {
		struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);

		c->tail = c->head;
		c->extra = 0;
		c->extra_read = 0;
		c->wide = 0;
		c->stack_tail = c->stack_head;
		c->observed = 0;
		c->lost = 0;
		c->stacks_taken = 0;
		c->stacks_lost = 0;
		c->shared_writes = 0;
	}
	pt_pending_clear();
	pt_stage_consumed = 0;
	pt_stage_runs = 0;
	pt_stage_ns = 0;
	pt_stage_lag_max = 0;
	mutex_unlock(&pt_stage_lock);
}

void pt_stage_get_stats(struct pt_stage_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	if (!pt_stage_enabled())
		return;
	mutex_lock(&pt_stage_lock);
	for_each_possible_cpu(cpu) {
		struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);
		u64 observed, lost, head, extra;

		/*
		 * Between two of this CPU's sections, so that observed =
		 * consumed + buffered + lost holds exactly (the consumer
		 * cannot move: pt_stage_lock is held).
		 */
		do {
			while (READ_ONCE(c->in_section))
				cpu_relax();
			/* The flag, then the counters: pairs with its release. */
			smp_rmb();
			observed = READ_ONCE(c->observed);
			lost = READ_ONCE(c->lost);
			extra = READ_ONCE(c->extra);
			/* Pairs with the writer's release of head. */
			head = smp_load_acquire(&c->head);
			/* The counters, then the flag again. */
			smp_rmb();
		} while (READ_ONCE(c->in_section) ||
			 READ_ONCE(c->observed) != observed);
		st->observed += observed;
		st->lost += lost;
		st->stacks += READ_ONCE(c->stacks_taken);
		st->stacks_lost += READ_ONCE(c->stacks_lost);
		st->shared_writes += READ_ONCE(c->shared_writes);
		/* Slots between the reader and the writer, less heads and halves. */
		st->buffered += head - c->tail - (extra - c->extra_read);
		st->slots += observed - lost + extra;
		st->wide += READ_ONCE(c->wide);
	}
	st->consumed = pt_stage_consumed;
	st->consumer_runs = pt_stage_runs;
	st->consumer_ns = pt_stage_ns;
	st->lag_max_ns = pt_stage_lag_max;
	mutex_unlock(&pt_stage_lock);
}

size_t pt_stage_slot_bytes(void)
{
	return sizeof(struct pt_slot);
}

static void pt_stage_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);

		vfree(c->slots);
		kvfree(c->stacks);
		c->slots = NULL;
		c->stacks = NULL;
	}
	kfree(pt_stage_taken);
	pt_stage_taken = NULL;
	kfree(pt_stage_cur);
	pt_stage_cur = NULL;
	kfree(pt_stage_cpus);
	pt_stage_cpus = NULL;
}

int pt_stage_init(unsigned int kb_per_cpu, unsigned int wake_pct)
{
	int cpu;

	if (!kb_per_cpu)
		return 0;
	pt_stage_slots = rounddown_pow_of_two(
		((unsigned long)kb_per_cpu << 10) / sizeof(struct pt_slot));
	/* 0: at the first entry, the shortest lag; more: fewer, larger runs. */
	pt_stage_wake = max_t(u32, 1, (u64)pt_stage_slots * wake_pct / 100);
	pt_stage_taken =
		kcalloc(nr_cpu_ids, sizeof(*pt_stage_taken), GFP_KERNEL);
	pt_stage_cur = kcalloc(nr_cpu_ids, sizeof(*pt_stage_cur), GFP_KERNEL);
	pt_stage_cpus = kcalloc(nr_cpu_ids, sizeof(*pt_stage_cpus), GFP_KERNEL);
	if (!pt_stage_taken || !pt_stage_cur || !pt_stage_cpus) {
		pt_stage_free();
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct pt_stage_cpu *c = per_cpu_ptr(&pt_stage_cpu, cpu);

		c->slots = vzalloc_node(pt_stage_slots * sizeof(*c->slots),
					cpu_to_node(cpu));
		c->stacks = kvcalloc(PT_STAGE_STACKS, sizeof(*c->stacks),
				     GFP_KERNEL);
		if (!c->slots || !c->stacks) {
			pt_stage_free();
			return -ENOMEM;
		}
		init_irq_work(&c->kick, pt_stage_kick_fn);
	}
	pt_stage_task = kthread_run(pt_stage_thread, NULL, "pagetrail_stage");
	if (IS_ERR(pt_stage_task)) {
		int err = PTR_ERR(pt_stage_task);

		pr_err("record first: cannot start the consumer thread (%d)\n",
		       err);
		pt_stage_task = NULL;
		pt_stage_free();
		return err;
	}
	pt_pending_enable(true);
	WRITE_ONCE(pt_stage_on, true);
	return 0;
}

/* After every probe and hook is gone: nothing stages any more. */
void pt_stage_exit(void)
{
	int cpu;

	if (!pt_stage_enabled())
		return;
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&pt_stage_cpu, cpu)->kick);
	/* No drain starts now; one under way may still wake the thread. */
	WRITE_ONCE(pt_stage_on, false);
	pt_pending_enable(false);
	kthread_stop(pt_stage_task);
	pt_stage_task = NULL;
	pt_stage_free();
}
