/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: planting and removing probe sets, with per-probe counters. */
#ifndef PAGETRAIL_PROBES_H
#define PAGETRAIL_PROBES_H

#include <linux/types.h>
#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include "compat.h" /* and <linux/fprobe.h> where the kernel has fprobe */
#include <pagetrail/tracker.h>

struct pt_probe;
struct seq_file;

/*
 * Entry: return 0 to track the call's return, PT_ENTRY_SEEN where the entry
 * observed the whole call (no return wanted), anything else to ignore the
 * call (counted as filtered). Either way a nonzero return is not tracked.
 */
#define PT_ENTRY_SEEN 2
typedef int (*pt_entry_fn)(struct pt_probe *p, struct pt_regs *regs,
			   void *data);
typedef void (*pt_return_fn)(struct pt_probe *p, struct pt_regs *regs,
			     void *data);

enum pt_backend {
	PT_BACKEND_NONE,
	PT_BACKEND_KPROBE,
	PT_BACKEND_KRETPROBE,
	PT_BACKEND_FPROBE
};

struct pt_probe {
	/* set by the profile */
	const char *symbol;
	bool in_target; /* the symbol lives in the target module */
	bool optional; /* absence is reported, not an error */
	/*
	 * Names of one role across kernel versions (page_pool's page ->
	 * netmem renames): one planted covers the others, which this kernel
	 * does not have. NULL: the probe stands alone.
	 */
	const char *role;
	pt_entry_fn entry;
	pt_return_fn ret; /* NULL: entry only */
	size_t data_size; /* per-call data shared by entry and return */
	int maxactive; /* concurrent calls tracked; 0: the module default */
	/* runtime */
	char name[MODULE_NAME_LEN + KSYM_NAME_LEN + 2];
	enum pt_backend backend;
	int error;
	struct kprobe kp;
	struct kretprobe rp;
	unsigned int slot; /* index of its per-CPU counters */
};

/* Per-CPU, so that probes on hot kernel functions share no cache line. */
struct pt_probe_counts {
	u64 hits; /* handler ran */
	u64 filtered; /* entry declined the call */
	u64 entries; /* entries whose return is tracked */
	u64 seen_at_entry; /* PT_ENTRY_SEEN: observed whole at entry */
	u64 returns;
	u64 nmi; /* int3-delivered (NMI context): skipped, no task to name */
};

#define PT_MAX_PROBES 32

/* A kernel tracepoint hooked through the tracepoint API. */
struct pt_tp_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
	unsigned int slot; /* its per-CPU hit counter */
};

#define PT_MAX_TP_HOOKS 8

int pt_probes_attach(struct pt_probe *set, unsigned int n, const char *target);
void pt_probes_detach(struct pt_probe *set, unsigned int n);
unsigned long pt_probe_missed(const struct pt_probe *p);
void pt_probe_counts(const struct pt_probe *p, struct pt_probe_counts *sum);
void pt_probes_show(struct seq_file *m, const struct pt_probe *set,
		    unsigned int n);

int pt_tp_attach(struct pt_tp_hook *h, unsigned int slot);
void pt_tp_detach(struct pt_tp_hook *h);
u64 pt_tp_hits(const struct pt_tp_hook *h);

DECLARE_PER_CPU(u64, pt_tp_hit_counts[PT_MAX_TP_HOOKS]);

/* Hooks on allocator tracepoints run everywhere: no shared cache line. */
static inline void pt_tp_count(const struct pt_tp_hook *h)
{
	this_cpu_inc(pt_tp_hit_counts[h->slot]);
}

/*
 * A buddy allocator tracepoint (kmem:mm_page_free, mm_page_alloc) for
 * @page: false, at the cost of one pre-filter test, unless the tracker may
 * hold it; then the hook's hit is counted and @obs gets pfn and order.
 */
static inline bool pt_tp_buddy_page(const struct pt_tp_hook *h,
				    struct page *page, unsigned int order,
				    struct pt_obs *obs)
{
	u64 pfn;

	if (!page)
		return false;
	pfn = page_to_pfn(page);
	if (!pt_tracker_maybe_tracked(pfn))
		return false;
	pt_tp_count(h);
	obs->pfn = pfn;
	obs->order = order;
	return true;
}

int pt_resolve_function(const char *name, unsigned long *addr);
int pt_resolve_functions(const char *const *names, unsigned long *addrs,
			 int *errors, unsigned int n);

extern int pt_param_maxactive;
extern int pt_param_backend; /* 0 auto, 1 kprobe, 2 fprobe */
/* Probes count their hits and return: no handler runs (make bench's floor). */
extern bool pt_param_probe_only;

#endif /* PAGETRAIL_PROBES_H */
