// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: per-task stacks of driver frames. A kretprobe entry pushes,
 * its return pops; kernel probes (vm_insert_page, up, page free) ask which
 * driver function the current thread is in. Only the owning task touches
 * its slot, so slots need no lock; claiming one is a cmpxchg.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/atomic.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <pagetrail/frames.h>
#include <pagetrail/hold.h>

#define PT_FRAME_PROBE 16 /* slots tried from the hash position */
#define PT_FRAME_DEPTH 6

struct pt_task_frames {
	struct task_struct *task;
	u64 start_time; /* tells a reused task_struct from its owner */
	unsigned int depth;
	struct pt_frame f[PT_FRAME_DEPTH];
};

/*
 * A slot is held while its task is inside a driver function, sleeping ones
 * included (nv_mem_pool_alloc_pages, mmap): sized by CPUs, not fixed
 * (code-review F18): 8 such tasks per CPU at half load, 256 at least.
 */
static struct pt_task_frames *pt_slots;
static unsigned int pt_slots_bits;
atomic_t pt_frame_slots_in_use = ATOMIC_INIT(0);
static atomic64_t pt_frames_overflow = ATOMIC64_INIT(0);
static atomic64_t pt_frames_unbalanced = ATOMIC64_INIT(0);
/*
 * False from the start of a detach until the frames are reset: probes go
 * one by one, and a call whose return probe went first returns unseen,
 * leaving a frame whose per-call data (pt_frame.call) the kernel frees
 * with its probe; a probe still planted must not find it.
 */
static bool pt_frames_live;

int pt_frames_init(void)
{
	unsigned int n = clamp(16u * num_possible_cpus(), 256u, 65536u);

	pt_slots_bits = ilog2(roundup_pow_of_two(n));
	pt_slots = kvcalloc(1u << pt_slots_bits, sizeof(*pt_slots), GFP_KERNEL);
	/* What calls hold (hold.h) lives as long as the frames that hold it. */
	if (!pt_slots || pt_hold_init()) {
		pt_frames_exit();
		return -ENOMEM;
	}
	pt_frames_reset();
	return 0;
}

void pt_frames_exit(void)
{
	pt_hold_exit();
	kvfree(pt_slots);
	pt_slots = NULL;
}

unsigned int pt_frames_slots(void)
{
	return 1u << pt_slots_bits;
}

/* Forget @s's frames and what they held. */
static void pt_frames_drop(struct pt_task_frames *s)
{
	unsigned int d;

	for (d = 0; d < s->depth; d++)
		pt_hold_drop(&s->f[d]);
	s->depth = 0;
}

/* Only while no probe can run (attach/detach). */
void pt_frames_reset(void)
{
	unsigned int i;

	for (i = 0; i < pt_frames_slots(); i++) {
		pt_frames_drop(&pt_slots[i]);
		WRITE_ONCE(pt_slots[i].task, NULL);
	}
	atomic_set(&pt_frame_slots_in_use, 0);
	WRITE_ONCE(pt_frames_live, true);
}

/*
 * Before a detach unplants anything. A handler that still found a frame
 * runs with preemption off, and the kernel frees probe data only after a
 * grace period that follows the unregistering: it reads live memory.
 */
void pt_frames_stop(void)
{
	WRITE_ONCE(pt_frames_live, false);
}

static struct pt_task_frames *pt_slot_of(struct task_struct *task, bool claim)
{
	unsigned int mask = pt_frames_slots() - 1;
	unsigned int start = hash_ptr(task, pt_slots_bits), i;
	struct pt_task_frames *s;

	for (i = 0; i < PT_FRAME_PROBE; i++) {
		s = &pt_slots[(start + i) & mask];
		if (READ_ONCE(s->task) != task)
			continue;
		/*
		 * A task that died with frames left (a missed return) leaves
		 * its slot; a new task at the same address must not inherit
		 * them. Only @task itself gets here, so no race.
		 */
		if (s->start_time != task->start_time) {
			atomic64_inc(&pt_frames_unbalanced);
			s->start_time = task->start_time;
			pt_frames_drop(s);
		}
		return s;
	}
	if (!claim)
		return NULL;
	for (i = 0; i < PT_FRAME_PROBE; i++) {
		s = &pt_slots[(start + i) & mask];
		if (!READ_ONCE(s->task) && !cmpxchg(&s->task, NULL, task)) {
			s->start_time = task->start_time;
			s->depth = 0;
			atomic_inc(&pt_frame_slots_in_use);
			return s;
		}
	}
	return NULL;
}

struct pt_frame *pt_frame_push(u8 ctx)
{
	struct pt_task_frames *s;
	struct pt_frame *f;
	unsigned int d;

	if (!in_task())
		return NULL;
	s = pt_slot_of(current, true);
	if (!s || s->depth >= PT_FRAME_DEPTH) {
		atomic64_inc(&pt_frames_overflow);
		return NULL;
	}
	/*
	 * A nested driver call may observe what the outer calls hold (a
	 * failing allocation releases the chunks it assigned): those first.
	 */
	for (d = 0; d < s->depth; d++)
		pt_hold_flush(&s->f[d]);
	f = &s->f[s->depth++];
	memset(f, 0, sizeof(*f));
	f->ctx = ctx;
	return f;
}

void pt_frame_pop(struct pt_frame *frame)
{
	struct pt_task_frames *s = pt_slot_of(current, false);

	if (!s || !s->depth || &s->f[s->depth - 1] != frame) {
		atomic64_inc(&pt_frames_unbalanced);
		return;
	}
	/* The profile stages them where the call returns; at the latest here. */
	pt_hold_flush(frame);
	if (--s->depth == 0) {
		WRITE_ONCE(s->task, NULL);
		atomic_dec(&pt_frame_slots_in_use);
	}
}

/* The current task's frames, if it is inside any driver function. */
static struct pt_task_frames *pt_current_frames(void)
{
	if (!pt_frames_active() || !READ_ONCE(pt_frames_live) || !in_task())
		return NULL;
	return pt_slot_of(current, false);
}

/* The innermost frame of the current task whose context is in @ctx_mask. */
struct pt_frame *pt_frame_innermost(u32 ctx_mask)
{
	struct pt_task_frames *s = pt_current_frames();
	int i;

	if (!s)
		return NULL;
	for (i = (int)s->depth - 1; i >= 0; i--)
		if (ctx_mask & BIT(s->f[i].ctx))
			return &s->f[i];
	return NULL;
}

struct pt_frame *pt_frame_find(u8 ctx)
{
	return pt_frame_innermost(BIT(ctx));
}

void pt_frame_find2(u8 ctx_a, struct pt_frame **a, u8 ctx_b,
		    struct pt_frame **b)
{
	struct pt_task_frames *s = pt_current_frames();
	int i;

	*a = NULL;
	*b = NULL;
	for (i = s ? (int)s->depth - 1 : -1; i >= 0 && !(*a && *b); i--) {
		if (!*a && s->f[i].ctx == ctx_a)
			*a = &s->f[i];
		else if (!*b && s->f[i].ctx == ctx_b)
			*b = &s->f[i];
	}
}

void pt_frames_reset_stats(void)
{
	atomic64_set(&pt_frames_overflow, 0);
	atomic64_set(&pt_frames_unbalanced, 0);
}

void pt_frames_get_stats(struct pt_frames_stats *st)
{
	st->overflow = atomic64_read(&pt_frames_overflow);
	st->unbalanced = atomic64_read(&pt_frames_unbalanced);
	st->in_use = atomic_read(&pt_frame_slots_in_use);
	st->slots = pt_frames_slots();
}
