/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: the time every observation is stamped with. Where the CPUs'
 * clocks agree (one synchronized, invariant TSC, or an architecture whose
 * sched_clock is always stable) it is local_clock(). Where they do not
 * (x86 without an invariant TSC, the TSC marked unstable, a hypervisor's
 * clock, TCG) each CPU's local_clock() is kept near the time of day on its
 * own and CPUs disagree by up to a tick: a take on one CPU was stamped
 * 37 us before the scrub on another that put the chunk where the take
 * found it. There the stamp is made causal: the larger of local_clock()
 * and one more than the last stamp any CPU took, so an observation that
 * happens after another (a lock, a wakeup, a store seen) is stamped after
 * it, and no two stamps are equal. It costs one shared cache line written
 * per stamp; ftrace makes the same choice ("switching default tracing
 * clock to global").
 */
#ifndef PAGETRAIL_CLOCK_H
#define PAGETRAIL_CLOCK_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/minmax.h>
#include <linux/sched/clock.h>
#include <linux/types.h>

DECLARE_STATIC_KEY_FALSE(pt_clock_causal_key);

/* The last causal stamp any CPU took. */
extern atomic64_t pt_clock_last;

/* Inline: every staging section takes one. */
static __always_inline u64 pt_clock_causal(void)
{
	u64 now = local_clock();
	s64 last = atomic64_read(&pt_clock_last);
	u64 next;

	/* Fully ordered: a stamp taken after this one is seen is larger. */
	do {
		next = max(now, (u64)last + 1);
	} while (!atomic64_try_cmpxchg(&pt_clock_last, &last, next));
	return next;
}

/* Any context, NMI included. */
static __always_inline u64 pt_clock_now(void)
{
	if (static_branch_unlikely(&pt_clock_causal_key))
		return pt_clock_causal();
	return local_clock();
}

static inline bool pt_clock_is_causal(void)
{
	return static_branch_unlikely(&pt_clock_causal_key);
}

/* Chooses the clock (clock=auto|local|causal); -EINVAL says why. */
int pt_clock_init(const char *mode);
/*
 * Process context (pt_stage_drain(): every reader, the consumer): under
 * clock=auto, local becomes causal once the kernel marks the TSC unstable
 * (its clocksource watchdog, after load).
 */
void pt_clock_recheck(void);
/* "local" or "causal", and why. */
const char *pt_clock_name(void);
const char *pt_clock_reason(void);

#endif
