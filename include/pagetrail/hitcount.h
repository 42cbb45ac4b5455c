/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: counters every probe hit may bump, one array of u64 per CPU:
 * a hit writes its own CPU's copy, never a cache line another CPU writes.
 * Reading sums the CPUs; a reset zeroes them one by one while handlers on
 * other CPUs go on counting, like every counter here.
 */
#ifndef PAGETRAIL_HITCOUNT_H
#define PAGETRAIL_HITCOUNT_H

#include <linux/percpu.h>
#include <linux/string.h>

/* @var: DEFINE_PER_CPU(u64 [N], var); any context, preemptible included. */
#define pt_hit_inc(var, idx) this_cpu_inc((var)[idx])

#define pt_hit_sum(var, idx)                                          \
	({                                                            \
		u64 __sum = 0;                                        \
		int __cpu;                                            \
		for_each_possible_cpu(__cpu)                          \
			__sum += READ_ONCE(per_cpu(var, __cpu)[idx]); \
		__sum;                                                \
	})

#define pt_hit_reset(var)                                                   \
	do {                                                                \
		int __cpu;                                                  \
		for_each_possible_cpu(__cpu)                                \
			memset(per_cpu_ptr(&(var), __cpu), 0, sizeof(var)); \
	} while (0)

#endif /* PAGETRAIL_HITCOUNT_H */
