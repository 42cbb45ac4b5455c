/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvsim internals: what the files of the simulator share. The driver's
 * probe points keep their names and signatures; PROBE_POINT keeps them out
 * of line and unclonable, so a kprobe on "nvsim:<name>" sees the same
 * arguments in the same registers as on "nvidia:<name>".
 */
#ifndef NVSIM_H
#define NVSIM_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/numa.h>
#include <linux/sched.h>
#include "nvsim_types.h"
#include "nvsim_uapi.h"

struct seq_file;
struct nvsim_owner;

/*
 * Out of line with the plain symbol name: no inlining, and no
 * .isra/.constprop clone that would move arguments between registers.
 */
#define PROBE_POINT noinline __noclone

/*
 * Static functions clang -O2 / GCC -O3 builds of the driver inline: out of
 * line by default, left to the compiler with NVSIM_INLINE_HELPERS.
 */
#ifdef NVSIM_INLINE_HELPERS
#define INLINABLE_POINT
#else
#define INLINABLE_POINT PROBE_POINT
#endif

/*
 * The pool functions 610.x made static (nvsim_pool_io.h): out of line
 * and global by default, plain static with NVSIM_STATIC_POOL.
 */
#ifdef NVSIM_STATIC_POOL
#define NVSIM_POOL_FN static
/*
 * nv_mem_pool_destroy has two callers and 610.43.02's builds keep it out
 * of line; nvsim inlines it so that the tracer's teardown fallback runs.
 */
#define NVSIM_DESTROY_FN static __always_inline
#else
#define NVSIM_POOL_FN PROBE_POINT
#define NVSIM_DESTROY_FN PROBE_POINT
#endif

/* The driver refuses to take its semaphores where it cannot sleep. */
#define NV_MAY_SLEEP() (!irqs_disabled() && !in_interrupt() && !in_atomic())

/* ---- os-interface (os.c) ---- */
NV_STATUS os_alloc_mutex(void **mutex);
void os_free_mutex(void *mutex);
NV_STATUS os_acquire_mutex(void *mutex);
void os_release_mutex(void *mutex);

/* ---- nv_kthread_q (kthread_q.c) ---- */
int nv_kthread_q_init_on_node(nv_kthread_q_t *q, const char *qname, int node);
void nv_kthread_q_stop(nv_kthread_q_t *q);
void nv_kthread_q_flush(nv_kthread_q_t *q);
void nv_kthread_q_item_init(nv_kthread_q_item_t *item, nv_q_func_t fn, void *args);
int nv_kthread_q_schedule_q_item(nv_kthread_q_t *q, nv_kthread_q_item_t *item);

/* ---- allocations (alloc.c) ---- */
extern nv_state_t nvsim_ctl_state;
#ifndef NVSIM_INLINE_HELPERS	/* else static in every caller: nvsim_helpers.h */
void nv_alloc_set_page(nv_alloc_t *at, unsigned int page_idx, unsigned long virt_addr);
#endif
NV_STATUS nv_alloc_system_pages(nv_state_t *nv, nv_alloc_t *at);
void nv_free_system_pages(nv_alloc_t *at);
NV_STATUS nv_alloc_contig_pages(nv_state_t *nv, nv_alloc_t *at);
void nv_free_contig_pages(nv_alloc_t *at);
void nvsim_contain_before_free(nv_alloc_t *at);

/*
 * RM-side bookkeeping of an allocation. nv_alloc_t comes first, so the
 * pointer RM and the driver pass around is the nv_alloc_t itself.
 */
struct nvsim_alloc {
	nv_alloc_t at;
	u32 handle;
	bool rm_ref;			/* RM still holds its usage_count ref */
	bool dead;			/* freed; kept in the graveyard */
	bool force_dma32;		/* NVSIM_ALLOC_DMA32 */
	unsigned int pool_chunks;	/* taken from the pool at allocation */
	void *owner;			/* the file that allocated it */
	struct list_head node;		/* nvsim_allocs or the graveyard */
};

static inline struct nvsim_alloc *to_nvsim_alloc(nv_alloc_t *at)
{
	return container_of(at, struct nvsim_alloc, at);
}

extern struct mutex nvsim_allocs_lock;
int nvsim_rm_alloc(void *owner, struct nvsim_alloc_req *req);
int nvsim_rm_free(void *owner, u32 handle);
void nvsim_rm_free_owner(void *owner);
void nvsim_alloc_put(nv_alloc_t *at);
struct nvsim_alloc *nvsim_alloc_find_locked(u32 handle);
int nvsim_alloc_state_locked(nv_alloc_t *at);	/* 0 unknown, 1 live, 2 dead */
int nvsim_allocs_collect_locked(struct nvsim_owner *owners, int max);
void nvsim_allocs_show(struct seq_file *m);
unsigned int nvsim_alloc_chunks(const nv_alloc_t *at);
void nvsim_alloc_exit(void);

/* ---- pools (pool.c, scrubber.c, shrinker.c) ---- */
extern unsigned int NVreg_EnableSystemMemoryPools;
extern nv_page_pool_t *sysmem_page_pools[MAX_NUMNODES][NV_MAX_PAGE_ORDER + 1];

#ifndef NVSIM_INLINE_HELPERS
unsigned long nv_mem_pool_move_pages(struct list_head *dst_list, struct list_head *src_list,
				     unsigned long max_entries_to_move);
void nv_mem_pool_free_page_list(struct list_head *free_list, unsigned int order);
#endif
#ifndef NVSIM_STATIC_POOL	/* else static in alloc.c: nvsim_pool_io.h */
unsigned int nv_mem_pool_alloc_pages(nv_page_pool_t *mem_pool, nv_alloc_t *at);
NV_STATUS nv_mem_pool_free_pages(nv_page_pool_t *mem_pool, nv_alloc_t *at);
#endif
void nv_mem_pool_worker(void *arg);
unsigned long nv_mem_pool_shrinker_count(struct shrinker *shrinker, struct shrink_control *sc);
unsigned long nv_mem_pool_shrinker_scan(struct shrinker *shrinker, struct shrink_control *sc);
struct shrinker *nv_mem_pool_shrinker_alloc(nv_page_pool_t *mem_pool);
void nv_mem_pool_shrinker_register(nv_page_pool_t *mem_pool, struct shrinker *shrinker);
void nv_mem_pool_shrinker_free(nv_page_pool_t *mem_pool);
#ifndef NVSIM_STATIC_POOL
void nv_mem_pool_destroy(nv_page_pool_t *mem_pool);
#endif
nv_page_pool_t *nv_mem_pool_init(int node_id, unsigned int order);
NV_STATUS nv_init_page_pools(void);
void nv_destroy_page_pools(void);
/* Every live pool; p is set to each in turn. */
#define for_each_nvsim_pool(node, order, p)					\
	for_each_node(node)							\
		for ((order) = 0; (order) <= NV_MAX_PAGE_ORDER; (order)++)	\
			if (((p) = sysmem_page_pools[node][order]))

int nvsim_drain_pools(void);
int nvsim_empty_pools(void);

/*
 * nvsim's own view of a pool that nv_page_pool_t has no room for: the
 * entry the scrubber is clearing (off both lists, still in pages_owned).
 * Changed only under the pool lock.
 */
struct nvsim_pool_aux {
	nv_page_pool_entry_t *inflight;
};

struct nvsim_pool_aux *nvsim_pool_aux(const nv_page_pool_t *mem_pool);
int nvsim_pool_aux_init(void);
void nvsim_pool_aux_exit(void);

/* Inlined in the shipped driver: no symbol may exist for these. */
static __always_inline nv_page_pool_t *nv_mem_pool_get(int node_id, unsigned int order)
{
	if (node_id < 0 || node_id >= ARRAY_SIZE(sysmem_page_pools))
		return NULL;
	/* get_order() is not bounded by NV_MAX_PAGE_ORDER */
	if (order >= ARRAY_SIZE(sysmem_page_pools[node_id]))
		return NULL;
	return sysmem_page_pools[node_id][order];
}

static __always_inline void nv_mem_pool_clear_page(unsigned long virt_addr, unsigned int order)
{
	unsigned int i;

	for (i = 0; i < (1U << order); i++)
		clear_page((void *)(virt_addr + i * PAGE_SIZE));
}

static __always_inline void nv_mem_pool_queue_worker(nv_page_pool_t *mem_pool)
{
	nv_kthread_q_schedule_q_item(&mem_pool->scrubber_queue,
				     &mem_pool->scrubber_queue_item);
}

/* ---- mmap (mmap.c) and the control device (chardev.c) ---- */
int nvidia_mmap(struct file *file, struct vm_area_struct *vma);
int nvidia_mmap_helper(nv_state_t *nv, nv_linux_file_private_t *nvlfp, nvidia_stack_t *sp,
		       struct vm_area_struct *vma, void *vm_priv);
void nvsim_ctl_free_deferred(nv_linux_file_private_t *nvlfp);
int nvsim_numa_context_init(nv_alloc_mapping_context_t *ctx, NvU64 pages);
void nvsim_numa_context_free(nv_alloc_mapping_context_t *ctx);
int nvsim_chardev_init(void);
void nvsim_chardev_exit(void);
/* NVIDIA's device families on 195 and dynamic majors (devices.c) */
int nvsim_devices_init(void);
void nvsim_devices_exit(void);

/* ---- the release modelled (release.c) ---- */
extern bool nvsim_ctx_ref;	/* the mmap context holds a usage_count ref */
int nvsim_release_init(void);
void nvsim_release_exit(void);

/* ---- fault injection (faults.c) ---- */
extern bool fault_noncomp;
extern bool fault_stale_context;
extern bool fault_foreign_put;
extern bool fault_pinned_admit;
extern unsigned int fault_admit_atomic;
extern unsigned int fault_release_race;

enum nvsim_inject_bug { NVSIM_BUG_NONE, NVSIM_BUG_LEAK, NVSIM_BUG_LOCKORDER };
extern int nvsim_inject_bug;

bool nvsim_fault_is_faulted(unsigned long virt_addr);
bool nvsim_fault_consume(unsigned long virt_addr, unsigned int order);
unsigned int nvsim_fault_contain(nv_alloc_t *at);
int nvsim_fault_foreign_put(struct nvsim_foreign_req *req);
int nvsim_fault_reuse(struct nvsim_reuse_req *req);
int nvsim_fault_pin(struct nvsim_pin_req *req);
int nvsim_fault_unpin(u32 pin_id);
bool nvsim_fault_admit_atomic(void);
bool nvsim_fault_fresh_fail(void);
void nvsim_fault_release_race(nv_page_pool_t *mem_pool, nv_alloc_t *at);
void nvsim_fault_inject_alloc(void);
void nvsim_fault_inject_free(void);
void nvsim_faults_exit(void);
void nvsim_faults_check_contained(void);

int nvsim_fault_pins_collect(struct nvsim_owner *owners, int max);

/* ---- counters, debugfs, self-check (stats.c) ---- */
struct nvsim_counters {
#define NVSIM_COUNTER_MEMBER(name) atomic64_t name;
	NVSIM_STATS_FIELDS(NVSIM_COUNTER_MEMBER)
#undef NVSIM_COUNTER_MEMBER
};

extern struct nvsim_counters nvsim_stats;

#define nvsim_inc(f)		atomic64_inc(&nvsim_stats.f)
#define nvsim_dec(f)		atomic64_dec(&nvsim_stats.f)
#define nvsim_add(f, n)		atomic64_add((n), &nvsim_stats.f)
#define nvsim_sub(f, n)		atomic64_sub((n), &nvsim_stats.f)
#define nvsim_set(f, v)		atomic64_set(&nvsim_stats.f, (v))
#define nvsim_read(f)		atomic64_read(&nvsim_stats.f)

/* Strings the counters cannot hold: which thread a fault hit. */
extern char nvsim_last_insert_fail_comm[TASK_COMM_LEN];
extern char nvsim_foreign_comm[TASK_COMM_LEN];

/* One claimant of a pfn range, for the double-ownership check. */
enum nvsim_owner_kind { NVSIM_OWNER_ALLOC, NVSIM_OWNER_POOL, NVSIM_OWNER_PIN };

struct nvsim_owner {
	unsigned long pfn;
	unsigned long npages;
	enum nvsim_owner_kind kind;
	u32 id;				/* handle, pin id, or node */
	u32 index;			/* chunk, page, or order */
	u32 extra;			/* pin: the allocation's handle; pool: list */
};

void nvsim_chunk_freed(unsigned int order);
void nvsim_snapshot(struct nvsim_stats *out);
int nvsim_selfcheck(struct nvsim_selfcheck *out, struct seq_file *m);
int nvsim_debugfs_init(void);
void nvsim_debugfs_exit(void);

/* The inlining build: a static copy of the list helpers in every file. */
#ifdef NVSIM_INLINE_HELPERS
#include "nvsim_helpers.h"
#endif

#endif /* NVSIM_H */
