/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for what module/ring.c uses, so that the real ring
 * runs with threads as CPUs (tests/host/ring_model.c). A "CPU" is a
 * thread that sets pt_shim_cpu; its IRQs-off sections hold its irq lock,
 * which is also what an IPI (smp_call_function_single) waits for.
 * Barriers and one-time accesses map onto GCC's __atomic builtins.
 */
#ifndef PT_RINGSHIM_H
#define PT_RINGSHIM_H
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

typedef __u64 u64;
typedef __s64 s64;
typedef __u32 u32;
typedef __u16 u16;
typedef __u8 u8;

#define NR_CPUS 64
#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)
#define GFP_KERNEL 0
#define __must_check
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

extern int pt_shim_nr_cpus;
extern __thread int pt_shim_cpu;
extern pthread_mutex_t pt_shim_irq[NR_CPUS];

#define nr_cpu_ids pt_shim_nr_cpus
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < pt_shim_nr_cpus; (cpu)++)
#define cpu_online(cpu) 1
#define cpu_to_node(cpu) 0
static inline void cpus_read_lock(void)
{
}
static inline void cpus_read_unlock(void)
{
}

#define DEFINE_PER_CPU(type, name) type name[NR_CPUS]
#define per_cpu_ptr(ptr, cpu) (&(*(ptr))[cpu])
#define this_cpu_ptr(ptr) per_cpu_ptr(ptr, pt_shim_cpu)

/* The target CPU "with IRQs off": between two of its sections. */
static inline int smp_call_function_single(int cpu, void (*fn)(void *),
					   void *arg, int wait)
{
	(void)wait;
	pthread_mutex_lock(&pt_shim_irq[cpu]);
	fn(arg);
	pthread_mutex_unlock(&pt_shim_irq[cpu]);
	return 0;
}

#define READ_ONCE(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
/* A pause, as in the kernel: a waiting reader does not give its CPU away. */
#define cpu_relax() __builtin_ia32_pause()
#define cond_resched() sched_yield()

typedef struct {
	u64 v;
} local64_t;
#define local64_inc(l) __atomic_fetch_add(&(l)->v, 1, __ATOMIC_RELAXED)
#define local64_read(l) __atomic_load_n(&(l)->v, __ATOMIC_RELAXED)
#define local64_set(l, x) __atomic_store_n(&(l)->v, (x), __ATOMIC_RELAXED)

struct mutex {
	pthread_mutex_t m;
};
#define DEFINE_MUTEX(name) struct mutex name = { PTHREAD_MUTEX_INITIALIZER }
#define mutex_lock(l) pthread_mutex_lock(&(l)->m)
#define mutex_unlock(l) pthread_mutex_unlock(&(l)->m)

#define min(a, b) ((a) < (b) ? (a) : (b))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define array_size(a, b) ((size_t)(a) * (size_t)(b))
#define do_div(n, base)                          \
	({                                       \
		u32 __rem = (u32)((n) % (base)); \
		(n) /= (base);                   \
		__rem;                           \
	})

#define vmalloc_node(size, node) malloc(size)
#define vfree(p) free(p)
#define kcalloc(n, size, gfp) calloc(n, size)
#define kfree(p) free(p)
#endif
