// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: per-CPU flight recorder on the kernel's ring_buffer. Every
 * writer runs with IRQs off on its own CPU (the recorder sees to it), so a
 * CPU's counters and its part of the ring agree whenever that CPU is not
 * inside a write: an IPI finds it so, which is how stats are exact without
 * a lock shared by the writers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ring_buffer.h>
#include <linux/percpu.h>
#include <asm/local64.h>
#include <linux/mutex.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/smp.h>
#include <pagetrail/ring.h>

struct pt_ring_cpu {
	local64_t produced;
	local64_t dropped_full;
	local64_t dropped_frozen;
	u64 read; /* records of this CPU consumed; under pt_ring_read_lock */
	u64 overrun_base; /* overruns before the last reset */
};

static struct trace_buffer *pt_rb;
static DEFINE_PER_CPU(struct pt_ring_cpu, pt_ring_cpu);
static DEFINE_MUTEX(pt_ring_read_lock); /* one consumer at a time */
static bool pt_ring_overwrite_flag;

int pt_ring_init(unsigned long bytes_per_cpu, bool overwrite)
{
	pt_rb = ring_buffer_alloc(bytes_per_cpu,
				  overwrite ? RB_FL_OVERWRITE : 0);
	if (!pt_rb)
		return -ENOMEM;
	pt_ring_overwrite_flag = overwrite;
	return 0;
}

void pt_ring_exit(void)
{
	if (pt_rb)
		ring_buffer_free(pt_rb);
	pt_rb = NULL;
}

void pt_ring_write(const struct pagetrail_record *rec)
{
	struct pt_ring_cpu *c = this_cpu_ptr(&pt_ring_cpu);

	local64_inc(&c->produced);
	if (ring_buffer_write(pt_rb, sizeof(*rec), (void *)rec))
		local64_inc(&c->dropped_full);
}

/* A record stamped after a freeze: produced, and lost to the freeze. */
void pt_ring_count_frozen(void)
{
	struct pt_ring_cpu *c = this_cpu_ptr(&pt_ring_cpu);

	local64_inc(&c->produced);
	local64_inc(&c->dropped_frozen);
}

/*
 * Consume the record with the lowest sequence number across all CPUs; false
 * when the ring is empty. Each CPU's ring is in sequence order (stamped and
 * written with IRQs off on that CPU), so the merge is exact, whatever the
 * CPUs' clocks say.
 */
bool pt_ring_read(struct pagetrail_record *rec)
{
	struct ring_buffer_event *ev;
	int cpu, oldest = -1;
	u64 ts, seq, oldest_seq = U64_MAX;
	bool found = false;

	mutex_lock(&pt_ring_read_lock);
	for_each_possible_cpu(cpu) {
		ev = ring_buffer_peek(pt_rb, cpu, &ts, NULL);
		if (!ev)
			continue;
		seq = ((struct pagetrail_record *)ring_buffer_event_data(ev))
			      ->seq;
		if (seq < oldest_seq) {
			oldest_seq = seq;
			oldest = cpu;
		}
	}
	if (oldest >= 0) {
		ev = ring_buffer_consume(pt_rb, oldest, &ts, NULL);
		if (ev) {
			struct pt_ring_cpu *c =
				per_cpu_ptr(&pt_ring_cpu, oldest);

			memcpy(rec, ring_buffer_event_data(ev), sizeof(*rec));
			WRITE_ONCE(c->read, c->read + 1);
			found = true;
		}
	}
	mutex_unlock(&pt_ring_read_lock);
	return found;
}

void pt_ring_set_overwrite(bool overwrite)
{
	ring_buffer_change_overwrite(pt_rb, overwrite);
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
	ring_buffer_reset(pt_rb);
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		local64_set(&c->produced, 0);
		local64_set(&c->dropped_full, 0);
		local64_set(&c->dropped_frozen, 0);
		c->read = 0;
		c->overrun_base = ring_buffer_overrun_cpu(pt_rb, cpu);
	}
	mutex_unlock(&pt_ring_read_lock);
}

struct pt_ring_snap {
	int cpu;
	struct pt_ring_stats st;
};

/* On the CPU itself, IRQs off: none of its writes is half done. */
static void pt_ring_snap_cpu(void *arg)
{
	struct pt_ring_snap *s = arg;
	struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, s->cpu);

	s->st.produced += local64_read(&c->produced);
	s->st.dropped_full += local64_read(&c->dropped_full);
	s->st.dropped_frozen += local64_read(&c->dropped_frozen);
	s->st.read += READ_ONCE(c->read);
	s->st.buffered += ring_buffer_entries_cpu(pt_rb, s->cpu);
	s->st.overwritten +=
		ring_buffer_overrun_cpu(pt_rb, s->cpu) - c->overrun_base;
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
