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
 */

#include <linux/percpu.h>
#include <asm/local64.h>
#include <linux/mutex.h>
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
};

static DEFINE_PER_CPU(struct pt_ring_cpu, pt_ring_cpu);
static DEFINE_MUTEX(pt_ring_read_lock); /* one consumer at a time */
static u32 pt_ring_slots; /* per CPU */
static bool pt_ring_overwrite_flag;

/* The reader's way to a slot; the writer has head_slot. */
static struct pagetrail_record *pt_slot(struct pt_ring_cpu *c, u64 pos)
{
	return &c->slots[do_div(pos, pt_ring_slots)];
}

void pt_ring_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		vfree(c->slots);
		c->slots = NULL;
	}
}

/* Each CPU's slots on its own node. */
int pt_ring_init(unsigned long bytes_per_cpu, bool overwrite)
{
	unsigned long n = bytes_per_cpu / sizeof(struct pagetrail_record);
	int cpu;

	if (n < 2 || n > U32_MAX)
		return -EINVAL;
	pt_ring_slots = n;
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		memset(c, 0, sizeof(*c));
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
 * The oldest record of @c still in its slots, its position in *@pos; false
 * when the CPU has none. Lapped records are skipped and counted here, the
 * only place that moves tail forward past unread records.
 */
static bool pt_ring_oldest(struct pt_ring_cpu *c, u64 *pos)
{
	/* Pairs with the writer's release: records below head are whole. */
	u64 head = smp_load_acquire(&c->head);
	u64 tail = c->tail;

	if (head - tail > pt_ring_slots) {
		c->overwritten += head - pt_ring_slots - tail;
		tail = head - pt_ring_slots;
		/* Pairs with a stop-mode writer's acquire of tail. */
		smp_store_release(&c->tail, tail);
	}
	*pos = tail;
	return head != tail;
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
 * Consume the record with the lowest sequence number across all CPUs; false
 * when the ring is empty. Each CPU's slots are in sequence order (stamped
 * and written with IRQs off on that CPU), so the merge is exact, whatever
 * the CPUs' clocks say. A slot replaced while it was read is read again
 * from the new oldest record.
 */
bool pt_ring_read(struct pagetrail_record *rec)
{
	struct pt_ring_cpu *c, *oldest;
	u64 pos, oldest_pos = 0, seq, oldest_seq;
	int cpu;

	mutex_lock(&pt_ring_read_lock);
again:
	oldest = NULL;
	oldest_seq = U64_MAX;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&pt_ring_cpu, cpu);
		if (!pt_ring_oldest(c, &pos))
			continue;
		seq = READ_ONCE(pt_slot(c, pos)->seq);
		if (!pt_ring_valid(c, pos))
			goto again;
		if (seq < oldest_seq) {
			oldest_seq = seq;
			oldest = c;
			oldest_pos = pos;
		}
	}
	if (oldest) {
		memcpy(rec, pt_slot(oldest, oldest_pos), sizeof(*rec));
		if (!pt_ring_valid(oldest, oldest_pos))
			goto again;
		WRITE_ONCE(oldest->read, oldest->read + 1);
		/* The slot is free for a stop-mode writer only after the copy. */
		smp_store_release(&oldest->tail, oldest_pos + 1);
	}
	mutex_unlock(&pt_ring_read_lock);
	return oldest;
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
