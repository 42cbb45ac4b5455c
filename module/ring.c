// SPDX-License-Identifier: GPL-2.0
/* pagetrail: per-CPU flight recorder on the kernel's ring_buffer. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ring_buffer.h>
#include <linux/percpu.h>
#include <asm/local64.h>
#include <linux/mutex.h>
#include <linux/cpumask.h>
#include <pagetrail/ring.h>

struct pt_ring_cpu {
	local64_t produced;
	local64_t dropped_full;
	local64_t dropped_frozen;
};

static struct trace_buffer *pt_rb;
static DEFINE_PER_CPU(struct pt_ring_cpu, pt_ring_cpu);
static DEFINE_MUTEX(pt_ring_read_lock); /* one consumer at a time */
static atomic64_t pt_ring_read_count;
static u64 pt_ring_overrun_base; /* overruns before the last reset */
static bool pt_ring_frozen_flag;
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

/* Under the tracker lock (IRQs off): one writer per CPU at a time. */
void pt_ring_write(const struct pagetrail_record *rec)
{
	struct pt_ring_cpu *c;

	preempt_disable_notrace();
	c = this_cpu_ptr(&pt_ring_cpu);
	local64_inc(&c->produced);
	if (READ_ONCE(pt_ring_frozen_flag))
		local64_inc(&c->dropped_frozen);
	else if (ring_buffer_write(pt_rb, sizeof(*rec), (void *)rec))
		local64_inc(&c->dropped_full);
	preempt_enable_notrace();
}

/*
 * Consume the record with the lowest sequence number across all CPUs; false
 * when the ring is empty. Records are written under the tracker's lock, so
 * each CPU's ring is in sequence order and the merge is exact, whatever
 * the CPUs' clocks say.
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
			memcpy(rec, ring_buffer_event_data(ev), sizeof(*rec));
			atomic64_inc(&pt_ring_read_count);
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

void pt_ring_freeze(bool frozen)
{
	WRITE_ONCE(pt_ring_frozen_flag, frozen);
}

bool pt_ring_frozen(void)
{
	return READ_ONCE(pt_ring_frozen_flag);
}

static u64 pt_ring_overruns(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += ring_buffer_overrun_cpu(pt_rb, cpu);
	return sum;
}

/*
 * Discard everything buffered and restart the counters. Only while no
 * writer can run: pt_tracker_reset() holds them off (they write under its
 * lock), which is what makes zeroing other CPUs' counters safe.
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
	}
	atomic64_set(&pt_ring_read_count, 0);
	pt_ring_overrun_base = pt_ring_overruns();
	mutex_unlock(&pt_ring_read_lock);
}

/*
 * A snapshot. Exact (produced = read + buffered + lost) when writers are
 * held off, which pt_tracker_ring_stats() does, and no reader is consuming.
 */
void pt_ring_get_stats(struct pt_ring_stats *st)
{
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		struct pt_ring_cpu *c = per_cpu_ptr(&pt_ring_cpu, cpu);

		st->produced += local64_read(&c->produced);
		st->dropped_full += local64_read(&c->dropped_full);
		st->dropped_frozen += local64_read(&c->dropped_frozen);
	}
	st->read = atomic64_read(&pt_ring_read_count);
	st->buffered = ring_buffer_entries(pt_rb);
	st->overwritten = pt_ring_overruns() - READ_ONCE(pt_ring_overrun_base);
}
