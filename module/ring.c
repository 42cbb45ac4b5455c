// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: per-CPU flight recorder, an array of fixed-size records per
 * CPU. Every writer runs with IRQs off on its own CPU (the recorder sees
 * to it) and records have one size, so a write is two stores and a copy
 * into the next slot: no space reservation, no commit, no second clock
 * read, as the kernel's general ring_buffer needs (it was a third of the
 * tracker's IRQs-off section). One reader at a time, under a mutex.
 *
 * Positions count records since the last reset and never wrap: slot
 * pos % nr_slots holds record pos until record pos + nr_slots replaces it
 * (the writer keeps that slot index beside head: no division on its side).
 * The writer owns head, and reserved: the record it is writing, announced
 * before it touches the slot, so that a reader can tell a full ring from
 * a slot being replaced. The reader owns tail. In overwrite mode the
 * writer never looks at tail, and the reader skips what was lapped and
 * counts it; in stop mode the writer drops a record when head - tail
 * reaches nr_slots. A CPU's counters agree with its slots whenever it is
 * between two writes: an IPI finds it so, which is how stats are exact
 * without a lock shared by the writers.
 *
 * The reader merges the CPUs by sequence number in rounds. A writer takes
 * its number before it publishes the record, so a CPU that looks empty
 * may still hold a lower number than another CPU's oldest record. While
 * in a section (stamp to publish, IRQs off) a CPU therefore shows a floor,
 * a number no higher than the one it takes; a round reads only records up
 * to a limit below every floor it saw and below the last number handed
 * out. Every record under the limit is then in the slots or lost, never
 * still to come, and the output strictly increases; the reader never
 * waits for a writer unless that is all that stands between it and a
 * record.
 *
 *   field       written by             read by
 *   head        writer (release)       reader (acquire), stats IPI
 *   reserved    writer                 reader, after the slot (smp_rmb)
 *   floor       writer (release)       reader at a round's start (acquire)
 *   tail        reader (release)       stop-mode writer (acquire), stats
 *   pt_ring_cur reader only            reader only (under the mutex)
 */

#include <linux/percpu.h>
#include <asm/local64.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/overflow.h>
#include <asm/div64.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <pagetrail/ring.h>

struct pt_ring_cpu {
	struct pagetrail_record *slots;
	u64 head; /* records written; by this CPU's writer */
	u64 reserved; /* head + 1 from the start of a write to its end */
	u64 tail; /* records consumed or skipped; by the reader */
	u32 head_slot; /* head % pt_ring_slots */
	local64_t produced;
	local64_t dropped_full;
	local64_t dropped_frozen;
	u64 read; /* under pt_ring_read_lock */
	u64 overwritten; /* lapped records the reader skipped; same lock */
	u64 floor; /* in a section: its number is no lower; else U64_MAX */
};

/* What a round still expects of a CPU. */
enum pt_cur_state {
	PT_CUR_DONE, /* nothing left under the round's limit */
	PT_CUR_PEEK, /* look at its oldest record */
	PT_CUR_READY, /* its oldest record, at tail, has seq */
};

/* The reader's view of one CPU, off the writers' cache lines. */
struct pt_ring_cursor {
	u64 round_head; /* head at the round's start: its records lie below */
	u64 seq;
	enum pt_cur_state state;
};

static DEFINE_PER_CPU(struct pt_ring_cpu, pt_ring_cpu);
static DEFINE_MUTEX(pt_ring_read_lock); /* one consumer at a time */
static u32 pt_ring_slots; /* per CPU */
static u32 pt_ring_margin; /* first jump ahead of a writer that laps the reader */
static bool pt_ring_overwrite_flag;
/* Reader state, under pt_ring_read_lock. */
static struct pt_ring_cursor *pt_ring_cur; /* nr_cpu_ids of them */
static u64 pt_ring_limit; /* the round reads records up to this seq */
static u64 (*pt_ring_issued)(void); /* the last sequence number handed out */

/*
 * KUnit's seam: lap the reader between its choice of a slot and its copy,
 * which no test could time otherwise.
 */
#ifndef pt_ring_test_before_copy
#define pt_ring_test_before_copy(cpu) ((void)(cpu))
#endif

/* The reader's way to a slot; the writer has head_slot. */
static struct pagetrail_record *pt_slot(struct pt_ring_cpu *c, u64 pos)
{
	return &c->slots[do_div(pos, pt_ring_slots)];
}

void pt_ring_exit(void)
{
	int cpu;

	kfree(pt_ring_cur);
	pt_ring_cur = NULL;
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		vfree(c->slots);
		c->slots = NULL;
	}
}

/*
 * Each CPU's slots on its own node. @issued returns the highest sequence
 * number handed out so far, as the writers' fully ordered atomic saw it.
 */
int pt_ring_init(unsigned long bytes_per_cpu, bool overwrite,
		 u64 (*issued)(void))
{
	unsigned long n = bytes_per_cpu / sizeof(struct pagetrail_record);
	int cpu;

	if (n < 2 || n > U32_MAX)
		return -EINVAL;
	pt_ring_slots = n;
	pt_ring_margin = max_t(u32, n / 16, 1);
	pt_ring_issued = issued;
	pt_ring_limit = 0;
	pt_ring_cur = kcalloc(nr_cpu_ids, sizeof(*pt_ring_cur), GFP_KERNEL);
	if (!pt_ring_cur)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		memset(c, 0, sizeof(*c));
		c->floor = U64_MAX;
		c->slots = vmalloc_node(array_size(pt_ring_slots,
						   sizeof(*c->slots)),
					cpu_to_node(cpu));
		if (!c->slots) {
			pt_ring_exit();
			return -ENOMEM;
		}
	}
	pt_ring_overwrite_flag = overwrite;
	return 0;
}

/*
 * IRQs off, before the caller takes its sequence number with a fully
 * ordered atomic (which orders this store before it). @floor: the last
 * number handed out plus one, read before taking one, so no higher than
 * the one this section takes. Until pt_ring_leave() readers read only
 * records below it.
 */
void pt_ring_enter(u64 floor)
{
	struct pt_ring_cpu *c = this_cpu_ptr(&pt_ring_cpu);

	/* Release: a reader that sees it sees the previous section's record. */
	smp_store_release(&c->floor, floor);
}

/* After the record is written, or counted. */
void pt_ring_leave(void)
{
	struct pt_ring_cpu *c = this_cpu_ptr(&pt_ring_cpu);

	/* Pairs with pt_ring_new_round()'s acquire: the record is whole. */
	smp_store_release(&c->floor, U64_MAX);
}

/* Stop mode: is the slot of @head still unread? */
static bool pt_ring_full(struct pt_ring_cpu *c, u64 head)
{
	/* Pairs with the reader's release of tail after its copy. */
	return head - smp_load_acquire(&c->tail) >= pt_ring_slots;
}

void pt_ring_write(const struct pagetrail_record *rec)
{
	struct pt_ring_cpu *c = this_cpu_ptr(&pt_ring_cpu);
	u64 head = c->head;

	local64_inc(&c->produced);
	/* reserved != head: a write in progress here; refuse a nested one. */
	if (unlikely(c->reserved != head) ||
	    (!READ_ONCE(pt_ring_overwrite_flag) && pt_ring_full(c, head))) {
		local64_inc(&c->dropped_full);
		return;
	}
	WRITE_ONCE(c->reserved, head + 1);
	/*
	 * A reader that sees any byte of this record in the slot must also
	 * see it reserved (pairs with pt_ring_valid).
	 */
	smp_wmb();
	memcpy(&c->slots[c->head_slot], rec, sizeof(*rec));
	c->head_slot = c->head_slot + 1 == pt_ring_slots ? 0 : c->head_slot + 1;
	/* Publish: the reader's acquire of head sees the whole record. */
	smp_store_release(&c->head, head + 1);
}

/* A record stamped after a freeze: produced, and lost to the freeze. */
void pt_ring_count_frozen(void)
{
	struct pt_ring_cpu *c = this_cpu_ptr(&pt_ring_cpu);

	local64_inc(&c->produced);
	local64_inc(&c->dropped_frozen);
}

/*
 * The position of @c's oldest record still in its slots, @margin records
 * ahead of the one the writer replaces next when the ring is full (0:
 * right on it). Records skipped are counted as overwritten here, the only
 * place that moves tail forward past unread records.
 */
static u64 pt_ring_oldest(struct pt_ring_cpu *c, u32 margin)
{
	/* Pairs with the writer's release: records below head are whole. */
	u64 head = smp_load_acquire(&c->head);
	u64 tail = c->tail;

	if (head - tail > pt_ring_slots - margin) {
		c->overwritten += head - (pt_ring_slots - margin) - tail;
		tail = head - (pt_ring_slots - margin);
		/* Pairs with a stop-mode writer's acquire of tail. */
		smp_store_release(&c->tail, tail);
	}
	return tail;
}

/*
 * Was the slot of @pos untouched while it was read? Record pos + nr_slots
 * replaces it, and is reserved before its first byte is written. A ring
 * full to the last slot and idle has reserved = pos + nr_slots: valid.
 */
static bool pt_ring_valid(struct pt_ring_cpu *c, u64 pos)
{
	/* The slot's bytes, then reserved: pairs with the writer's smp_wmb(). */
	smp_rmb();
	return READ_ONCE(c->reserved) - pos <= pt_ring_slots;
}

/*
 * The round's next record of one CPU, into its cursor. @lapped: the writer
 * just replaced the slot the reader wanted, so start ahead of it, and
 * further each time it happens again. The position only moves forward and
 * stops at round_head, so a writer that keeps lapping cannot hold the
 * reader here.
 */
static void pt_ring_peek(struct pt_ring_cpu *c, struct pt_ring_cursor *cur,
			 bool lapped)
{
	u32 margin = lapped ? pt_ring_margin : 0;
	u64 pos, seq;

	for (;;) {
		pos = pt_ring_oldest(c, margin);
		if (pos >= cur->round_head) {
			cur->state = PT_CUR_DONE;
			return;
		}
		seq = READ_ONCE(pt_slot(c, pos)->seq);
		if (pt_ring_valid(c, pos))
			break;
		margin = min(margin ? 2 * margin : pt_ring_margin,
			     pt_ring_slots - 1);
	}
	/* A CPU's numbers increase: one past the limit ends its round. */
	cur->seq = seq;
	cur->state = seq <= pt_ring_limit ? PT_CUR_READY : PT_CUR_DONE;
}

/*
 * Start a round: the last number handed out, then each CPU's floor. A CPU
 * seen outside a section either published its record (the acquire pairs
 * with pt_ring_leave()'s release, or with the next pt_ring_enter()'s) or
 * takes its number after the limit (the limit, then smp_mb(), then the
 * floor: pairs with the writer's floor store, then its fully ordered
 * atomic); one seen inside caps the limit below its own number. Returns
 * whether any CPU has records below its round_head.
 */
static bool pt_ring_new_round(void)
{
	bool any = false;
	int cpu;

	pt_ring_limit = pt_ring_issued();
	/* The limit before the floors: pairs with the stamp's atomic. */
	smp_mb();
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);
		struct pt_ring_cursor *cur = &pt_ring_cur[cpu];
		/* Pairs with pt_ring_leave() and pt_ring_enter(). */
		u64 floor = smp_load_acquire(&c->floor);

		if (floor <= pt_ring_limit)
			pt_ring_limit = floor - 1;
		/* Pairs with the writer's release: records below it are whole. */
		cur->round_head = smp_load_acquire(&c->head);
		cur->state = PT_CUR_PEEK;
		any |= cur->round_head != READ_ONCE(c->tail);
	}
	return any;
}

/*
 * A round found records, none it could hand out: a writer's floor capped
 * it, or writers replaced them all meanwhile. Let every section under way
 * end first (each is one IRQs-off section).
 */
static void pt_ring_wait_sections(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);
		u64 floor = READ_ONCE(c->floor);

		while (floor != U64_MAX && READ_ONCE(c->floor) == floor)
			cpu_relax();
	}
}

/* The CPU whose next record of the round has the lowest seq; -1: none. */
static int pt_ring_pick(void)
{
	u64 lowest = U64_MAX;
	int cpu, best = -1;

	for_each_possible_cpu(cpu) {
		struct pt_ring_cursor *cur = &pt_ring_cur[cpu];

		if (cur->state == PT_CUR_PEEK)
			pt_ring_peek(per_cpu_ptr(&pt_ring_cpu, cpu), cur,
				     false);
		if (cur->state == PT_CUR_READY && cur->seq < lowest) {
			lowest = cur->seq;
			best = cpu;
		}
	}
	return best;
}

/* Rounds that found records but none to hand out, before giving up. */
#define PT_RING_ROUNDS 8

/*
 * Consume the record with the lowest sequence number of the round; false
 * when the ring holds none. Each CPU's slots are in sequence order
 * (stamped and written with IRQs off on that CPU), and a round holds every
 * record up to its limit, so the output strictly increases whatever the
 * CPUs' clocks say. A slot replaced while it was copied costs one more
 * look at that CPU, not at all of them; a record costs a compare per CPU.
 * Every loop is bounded: a look moves forward and stops at round_head, and
 * a round that hands out nothing is retried PT_RING_ROUNDS times at most.
 */
bool pt_ring_read(struct pagetrail_record *rec)
{
	unsigned int rounds = 0;
	bool found = false;
	int cpu;

	mutex_lock(&pt_ring_read_lock);
	for (;;) {
		struct pt_ring_cursor *cur;
		struct pt_ring_cpu *c;
		u64 pos;

		cpu = pt_ring_pick();
		if (cpu < 0) {
			/* The round is over: a new one, unless it would be empty. */
			if (++rounds > PT_RING_ROUNDS)
				break;
			if (rounds > 1) {
				pt_ring_wait_sections();
				cond_resched();
			}
			if (!pt_ring_new_round())
				break;
			continue;
		}
		c = per_cpu_ptr(&pt_ring_cpu, cpu);
		cur = &pt_ring_cur[cpu];
		pos = c->tail;
		pt_ring_test_before_copy(cpu);
		memcpy(rec, pt_slot(c, pos), sizeof(*rec));
		if (!pt_ring_valid(c, pos)) {
			pt_ring_peek(c, cur, true);
			continue;
		}
		WRITE_ONCE(c->read, c->read + 1);
		/* The slot is free for a stop-mode writer only after the copy. */
		smp_store_release(&c->tail, pos + 1);
		cur->state = PT_CUR_PEEK;
		found = true;
		break;
	}
	mutex_unlock(&pt_ring_read_lock);
	return found;
}

void pt_ring_set_overwrite(bool overwrite)
{
	WRITE_ONCE(pt_ring_overwrite_flag, overwrite);
}

bool pt_ring_overwrite(void)
{
	return READ_ONCE(pt_ring_overwrite_flag);
}

/*
 * Discard everything buffered and restart the counters. Only while no
 * writer can run: the recorder's reset holds them off.
 */
void pt_ring_reset(void)
{
	int cpu;

	mutex_lock(&pt_ring_read_lock);
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		c->head = 0;
		c->reserved = 0;
		c->head_slot = 0;
		c->tail = 0;
		local64_set(&c->produced, 0);
		local64_set(&c->dropped_full, 0);
		local64_set(&c->dropped_frozen, 0);
		c->read = 0;
		c->overwritten = 0;
		/* The next read starts a round. */
		pt_ring_cur[cpu].round_head = 0;
		pt_ring_cur[cpu].state = PT_CUR_DONE;
	}
	mutex_unlock(&pt_ring_read_lock);
}

struct pt_ring_snap {
	int cpu;
	struct pt_ring_stats st;
};

/*
 * On the CPU itself, IRQs off: none of its writes is half done, and the
 * reader, held off, moves nothing. Lapped records not yet skipped by the
 * reader are overwritten ones too.
 */
static void pt_ring_snap_cpu(void *arg)
{
	struct pt_ring_snap *s = arg;
	struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, s->cpu);
	u64 in_ring = READ_ONCE(c->head) - c->tail;
	u64 buffered = min_t(u64, in_ring, pt_ring_slots);

	s->st.produced += local64_read(&c->produced);
	s->st.dropped_full += local64_read(&c->dropped_full);
	s->st.dropped_frozen += local64_read(&c->dropped_frozen);
	s->st.read += c->read;
	s->st.buffered += buffered;
	s->st.overwritten += c->overwritten + (in_ring - buffered);
}

/*
 * An exact snapshot (produced = read + buffered + lost) taken CPU by CPU:
 * each CPU's numbers are read between two of its writes, and readers are
 * held off, so every CPU's share balances and so does the sum.
 */
void pt_ring_get_stats(struct pt_ring_stats *st)
{
	struct pt_ring_snap s = {};
	int cpu;

	mutex_lock(&pt_ring_read_lock);
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		s.cpu = cpu;
		/* An offline CPU runs no writer: read it from here. */
		if (!cpu_online(cpu) ||
		    smp_call_function_single(cpu, pt_ring_snap_cpu, &s, 1))
			pt_ring_snap_cpu(&s);
	}
	cpus_read_unlock();
	mutex_unlock(&pt_ring_read_lock);
	*st = s.st;
}
