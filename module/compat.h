/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: every kernel-version difference (6.1 .. 6.12 and later) lives here. */
#ifndef PAGETRAIL_COMPAT_H
#define PAGETRAIL_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/kprobes.h>

#define PT_KERNEL(a, b, c) KERNEL_VERSION(a, b, c)
#define PT_KERNEL_CODE LINUX_VERSION_CODE

#if PT_KERNEL_CODE < PT_KERNEL(6, 1, 0)
#error "pagetrail needs Linux 6.1 or later (kretprobe entry data on rethook, folio page refs)"
#endif
#if !defined(CONFIG_KPROBES) || !defined(CONFIG_KRETPROBES)
#error "pagetrail needs CONFIG_KPROBES and CONFIG_KRETPROBES"
#endif
#if !defined(CONFIG_TRACEPOINTS) || !defined(CONFIG_DEBUG_FS)
#error "pagetrail needs CONFIG_TRACEPOINTS and CONFIG_DEBUG_FS"
#endif

/* __assign_str() lost its source argument in 6.10. */
#if PT_KERNEL_CODE >= PT_KERNEL(6, 10, 0)
#define pt_assign_str(dst, src) __assign_str(dst)
#else
#define pt_assign_str(dst, src) __assign_str(dst, src)
#endif

/*
 * fprobe with entry data and the (entry_ip, ret_ip, regs, data) handler
 * signature exists from 6.5. Until 6.13 it ran on rethook: the handlers get
 * pt_regs and nr_maxactive sizes the return pool. 6.14 moved it onto the
 * function-graph tracer: the handlers get ftrace_regs (the argument and
 * return registers only), entry data lives on the fgraph shadow stack
 * (MAX_FPROBE_DATA_SIZE bytes at most) and nr_maxactive is gone.
 */
#if defined(CONFIG_FPROBE) && PT_KERNEL_CODE >= PT_KERNEL(6, 5, 0)
#define PT_HAVE_FPROBE 1
#include <linux/fprobe.h>
#else
#define PT_HAVE_FPROBE 0
#endif

#if PT_HAVE_FPROBE && PT_KERNEL_CODE >= PT_KERNEL(6, 14, 0)
/* What an fprobe handler receives: struct pt_fprobe_regs *. */
#define pt_fprobe_regs ftrace_regs

/*
 * The handlers read arguments and return values through pt_regs accessors.
 * Where ftrace_regs embeds a pt_regs (x86), ftrace_partial_regs() returns
 * that one and copies nothing. Elsewhere it copies the saved registers out:
 * into one buffer per CPU and context level (task, softirq, hardirq, NMI),
 * since fprobe handlers run with preemption off and fgraph lets none recur
 * within a level; not on the stack, where the compiler's stack zeroing and
 * KASAN's redzones would cost every hit.
 */
#ifdef CONFIG_HAVE_FTRACE_REGS_HAVING_PT_REGS
static __always_inline struct pt_regs *
pt_fprobe_pt_regs(struct ftrace_regs *fregs)
{
	return ftrace_partial_regs(fregs, NULL);
}
#else
#define PT_FPROBE_CONTEXTS 4 /* probes.c defines the buffers */
DECLARE_PER_CPU(struct pt_regs, pt_fprobe_regs_buf[PT_FPROBE_CONTEXTS]);

static __always_inline struct pt_regs *
pt_fprobe_pt_regs(struct ftrace_regs *fregs)
{
	unsigned char level = interrupt_context_level();

	return ftrace_partial_regs(fregs,
				   this_cpu_ptr(&pt_fprobe_regs_buf[level]));
}
#endif

/* Returns are tracked on the fgraph shadow stack: no pool to size. */
static inline void pt_fprobe_set_maxactive(struct fprobe *fp, int n)
{
}
#elif PT_HAVE_FPROBE
#define pt_fprobe_regs pt_regs

static __always_inline struct pt_regs *pt_fprobe_pt_regs(struct pt_regs *regs)
{
	return regs;
}

static inline void pt_fprobe_set_maxactive(struct fprobe *fp, int n)
{
	fp->nr_maxactive = n;
}
#endif

/* The shrinker's private_data replaced container_of() in 6.7. */
#if PT_KERNEL_CODE >= PT_KERNEL(6, 7, 0)
#define PT_SHRINKER_HAS_PRIVATE_DATA 1
#else
#define PT_SHRINKER_HAS_PRIVATE_DATA 0
#endif

/*
 * The NVIDIA driver sizes sysmem_page_pools with NV_MAX_PAGE_ORDER:
 * MAX_PAGE_ORDER from 6.8, MAX_ORDER - 1 on 6.4-6.7 (MAX_ORDER became
 * inclusive there, the driver still subtracts one), MAX_ORDER - 1 before.
 */
#if defined(MAX_PAGE_ORDER)
#define PT_NV_MAX_PAGE_ORDER MAX_PAGE_ORDER
#else
#define PT_NV_MAX_PAGE_ORDER (MAX_ORDER - 1)
#endif

/* Mapcount of one page; typed pages (buddy, slab on 6.12) reuse the field. */
static inline int pt_page_mapcount(struct page *page)
{
	if (page_has_type(page))
		return 0;
	return atomic_read(&page->_mapcount) + 1;
}

static inline bool pt_page_is_slab(struct page *page)
{
	return PageSlab(page);
}

/*
 * Open a file by path from a work item. From 7.3 a kernel thread's root is
 * nullfs (every lookup fails) unless it borrows PID 1's filesystem state.
 */
#include <linux/fs.h>
#if PT_KERNEL_CODE >= PT_KERNEL(7, 3, 0)
#include <linux/fs_struct.h>
static inline struct file *pt_filp_open_kthread(const char *path, int flags)
{
	struct file *f;

	scoped_with_init_fs() {
		f = filp_open(path, flags, 0);
	}
	return f;
}
#else
static inline struct file *pt_filp_open_kthread(const char *path, int flags)
{
	return filp_open(path, flags, 0);
}
#endif

#endif /* PAGETRAIL_COMPAT_H */
