/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail NVIDIA profile: what its stages share. layout.c decodes driver
 * memory; alloc.c, pool.c and mmap.c turn driver calls into role events;
 * profile.c plants them. Nothing here is visible outside module/nvidia/.
 */
#ifndef PAGETRAIL_NVIDIA_H
#define PAGETRAIL_NVIDIA_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <pagetrail/memsafe.h>
#include <pagetrail/profile.h>
#include <pagetrail/probes.h>
#include <pagetrail/frames.h>
#include <pagetrail/tracker.h>
#include <pagetrail/events.h>
#include <pagetrail/layout.h>
#include <pagetrail/pagesample.h>
#include <pagetrail/token.h>
#include <pagetrail/target.h>
#include "../compat.h"

/*
 * Chunks one handler walks at most (nv_walk_max, module parameter, can
 * only lower it). A handler runs with preemption off, and a corrupted list
 * or a huge allocation must not hold a CPU for long: 65,536 chunks (256 MiB
 * of order-0 pages) is 30-130 ms at the measured cost of an observation,
 * fine for a regular kernel; under PREEMPT_RT, 4,096 (2-8 ms), above every
 * allocation and every pool list the test suite makes (a destroy walks the
 * whole pool: 3,347 chunks after a CUDA-init run; at 2,048 the rest were
 * counted, and their later frees were gaps). What a walk leaves out is
 * counted by role (nv_not_walked_<role> in stats, chunks_not_walked in
 * coverage); a pool list's rest is not counted, its chunks' next events
 * are gaps.
 */
#ifdef CONFIG_PREEMPT_RT
#define PT_NV_WALK_CHUNKS (1u << 12)
#else
#define PT_NV_WALK_CHUNKS (1u << 16)
#endif

/*
 * Only atomic64_t members: a reset zeroes them one by one while handlers
 * on other CPUs add to them (nv_stats_reset()).
 */
struct pt_nv_stats {
	/* A read failed or a value was implausible. */
	atomic64_t decode_errors;
	/* Walks stopped at nv_walk_max. */
	atomic64_t walks_truncated;
	/*
	 * Chunks of an allocation past the cap, by the role the walk records:
	 * never observed there, so a later transition of one finds the state
	 * it had before (untracked: a gap).
	 */
	atomic64_t not_walked[PT_ROLE_MAX];
	/* Chunks seen taken != chunks the pool said it handed out. */
	atomic64_t take_mismatch;
	/* Chunks seen reclaimed != chunks the shrinker reported freed. */
	atomic64_t reclaim_mismatch;
	atomic64_t shrink_count_calls;
	atomic64_t shrink_count_sum;
	atomic64_t shrink_scan_calls;
	atomic64_t shrink_scan_freed;
	atomic64_t mmaps;
	atomic64_t mmap_failed;
	atomic64_t insert_failed;
	/* nvidia_mmap_numa: device memory, no allocation behind the VMA. */
	atomic64_t inserts_unowned;
	/*
	 * An insert seen at its entry (every check vm_insert_page makes
	 * passed) whose page the page table did not hold when the helper
	 * went on: the page's last reference went in between.
	 */
	atomic64_t inserts_lost_ref;
	/* nv_mem_pool_free_pages declined (could not sleep): chunks freed. */
	atomic64_t admit_refused;
};

/*
 * pt_frame.flags of a TAKE frame: its allocation call began before attach
 * (no ALLOC frame), so what it takes is seen without its context.
 */
#define NV_TAKE_UNSURE BIT(0)

/* pt_frame.flags of a RELEASE frame: what its nested admission did. */
#define NV_RELEASE_ADMITTED BIT(0) /* chunks went to the pool */
#define NV_RELEASE_ADMIT_REFUSED BIT(1) /* the pool declined: direct frees */
/*
 * nv_mem_pool_free_pages inlined (NV_FB_POOL_ADMIT): the allocation is
 * headed for the pool (flags.pool set, its pool exists), so ADMIT was
 * recorded at the release's entry, where the 595 admission records it
 * (aux_obj holds that pool's lock); then the pool lock's release inside
 * this frame, the splice's end.
 */
#define NV_RELEASE_ADMIT_EXPECTED BIT(2)
#define NV_RELEASE_UNLOCK_SEEN BIT(3)

/*
 * pt_frame.flags of an ALLOC frame: nv_alloc_set_page's page-table entry
 * was checked at a chunk past the first (the entry size is then proven).
 * Not bit 0: where the take is inlined, an ALLOC frame stands for the
 * TAKE frame, and NV_TAKE_UNSURE is read from it.
 */
#define NV_ALLOC_STRIDE_CHECKED BIT(4)
/*
 * nv_alloc_set_page observed at its entry (nv_set_page_observe_entry): a
 * chunk's page-table entry, not written yet, is checked at the next chunk
 * or when the allocation call returns (pt_frame.check_idx, check_va).
 */
#define NV_ALLOC_PTE_CHECK_DUE BIT(5)

/*
 * Static helpers that optimising builds inline (clang -O2, GCC -O3): when
 * one has no symbol its events come from elsewhere (profile.c says where).
 */
enum nv_fallback {
	NV_FB_SET_PAGE = BIT(0), /* ASSIGN from walks at take/alloc return */
	NV_FB_MOVE_PAGES = BIT(1), /* TAKE next to its ASSIGN, list unseen */
	NV_FB_FREE_LIST = BIT(2), /* RECLAIM from frees in shrink/destroy */
	NV_FB_COHERENT = BIT(3), /* coherent ASSIGN from the contig return */
	/* 610.x makes these static and inlines them (nvidia-610.md D1, D2) */
	NV_FB_POOL_TAKE = BIT(4), /* TAKE by move_pages in the ALLOC frame */
	NV_FB_POOL_ADMIT = BIT(5), /* ADMIT at the release, up() confirms */
	NV_FB_POOL_DESTROY = BIT(6), /* teardown: pooled frees at unload */
};
extern unsigned int nv_fallbacks;
/* &sysmem_page_pools and the target's struct module, while attached (or 0). */
extern unsigned long nv_pools;
bool nv_target_going(void);

extern struct pt_nv_layout nv_layout;
extern struct pt_nv_stats nv_stats;

/* What every hit of a hot probe counts: per CPU (hitcount.h). */
enum nv_hit { NV_HIT_INSERTS, NV_HIT_MAX };
DECLARE_PER_CPU(u64[NV_HIT_MAX], nv_hits);
void nv_stats_reset(void);
/*
 * Allocation numbers ("allocation #" in records and diagnoses): never
 * reset, so no two allocations share one.
 */
u32 nv_alloc_number(void);
u32 nv_allocations(void);
unsigned int nv_walk_cap(void);

struct nv_alloc_view {
	unsigned long at;
	unsigned long page_table;
	u32 num_pages;
	u32 order;
	/* a page of the page table already found backed by RAM (0: none) */
	unsigned long ram_page;
};

struct nv_pool_view {
	unsigned long pool;
	u32 node;
	u32 order;
};

struct nv_frame_data {
	struct pt_frame *f;
};

struct nv_coherent_data {
	unsigned long at;
};

struct nv_set_page_data {
	unsigned long at;
	unsigned long va;
	u32 idx;
};

struct nv_release_data {
	struct pt_frame *f;
	unsigned long at;
};

struct nv_take_data {
	struct pt_frame *f;
	unsigned long at;
};

struct nv_move_data {
	unsigned long dst;
	unsigned long src;
};

/*
 * nvidia_mmap_helper's call: its frame, and the insert it saw at entry and
 * has yet to stage (mmap.c: staged once the page table says how it went).
 */
struct nv_helper_data {
	struct pt_frame *f;
	struct pt_obs held;
	struct mm_struct *held_mm;
	unsigned long held_va;
	bool holding;
	/*
	 * The page table under the last address looked up (nv_helper_pte()):
	 * the helper's inserts are consecutive pages, 512 to a table.
	 */
	struct mm_struct *table_mm;
	unsigned long table_va; /* PMD_MASK-aligned */
	pte_t *table;
};

struct nv_insert_data {
	struct pt_obs obs;
	struct pt_frame *helper; /* nvidia_mmap_helper's frame, or NULL */
	struct pt_frame *mmap; /* nvidia_mmap's, found with it: one lookup */
	unsigned long vma;
	unsigned long at; /* the VMA's allocation */
};

/* layout.c: reads and walks */
/* Out of line: a read nv_read() refused (@ram false) or that faulted. */
bool nv_read_failed(unsigned long addr, bool ram);

/* A read of memory already known to be RAM (nv_read() checks it). */
static inline bool nv_read_ram(unsigned long addr, void *dst, size_t len)
{
	if (likely(!copy_from_kernel_nofault(dst, (const void *)addr, len)))
		return true;
	return nv_read_failed(addr, true);
}

/* Inline: a handler reads several driver fields a hit. */
static __always_inline bool nv_read(unsigned long addr, void *dst, size_t len)
{
	if (unlikely(!pt_ram_readable(addr, len)))
		return nv_read_failed(addr, false);
	return nv_read_ram(addr, dst, len);
}

static inline bool nv_read_ulong(unsigned long addr, unsigned long *v)
{
	return nv_read(addr, v, sizeof(*v));
}

static inline bool nv_read_u32(unsigned long addr, u32 *v)
{
	return nv_read(addr, v, sizeof(*v));
}
void nv_decode_error(const char *what, unsigned long obj);
bool nv_alloc_read(unsigned long at, struct nv_alloc_view *v);
bool nv_alloc_view_in(struct pt_frame *f, unsigned long at,
		      struct nv_alloc_view *v, bool *fresh);
bool nv_pte_virt(struct nv_alloc_view *v, u32 idx, unsigned long *va);
bool nv_pool_read(unsigned long pool, struct nv_pool_view *v);
u32 nv_pool_aux(const struct nv_pool_view *p);
u32 nv_pool_aux_at(unsigned long pool);
unsigned long nv_entry_va(unsigned long list_node);
/* Where a chunk's address was read: a detach's reason names the offset. */
#define NV_VA_FROM_PTE "chunk virtual address in nvidia_pte_t (nv_pte_virt_addr)"
#define NV_VA_FROM_ENTRY \
	"chunk virtual address in a pool entry (nv_entry_virt_addr)"

/*
 * One chunk given by its head virtual address: its pfn, and the page
 * sampled if @sample; -EINVAL the address contradicts the layout (walks
 * stop). @src says where the address was read, for the reason a detach
 * gives. Inline, as the next: once a chunk a walk visits.
 */
static inline int nv_decode_chunk(struct pt_obs *obs, unsigned long va,
				  bool sample, const char *src)
{
	bool ok;

	if (sample && likely(pt_sample_linear(va, &obs->pfn, obs)))
		return 0;
	obs->pfn = pt_virt_to_pfn(va, &ok);
	if (unlikely(!ok)) {
		nv_decode_error(src, va);
		return -EINVAL;
	}
	obs->sampled = false;
	if (sample)
		pt_sample_page(obs->pfn, obs);
	return 0;
}

/* Observe one chunk: 1 recorded (record first: staged), 0 not, -EINVAL. */
static inline int nv_observe_chunk(struct pt_obs *obs, unsigned long va,
				   bool sample, const char *src)
{
	int ret = nv_decode_chunk(obs, va, sample, src);

	return ret ? ret : pt_observe(obs);
}
u32 nv_walk_entries(unsigned long head, struct pt_obs *obs);
void nv_walk_alloc_chunks(unsigned long at, struct pt_obs *obs, bool sample);
u32 nv_walk_alloc_range(unsigned long at, u32 first, u32 nr,
			struct pt_obs *obs, bool sample);
u32 nv_walk_alloc_each(unsigned long at, u32 first, u32 nr,
		       int (*fn)(struct pt_obs *obs, unsigned long va,
				 void *arg),
		       struct pt_obs *obs, void *arg);
bool nv_alloc_pool_flag(unsigned long at, bool *pool);
unsigned long nv_pool_at(u32 node, u32 order);

/* alloc.c */
int nv_alloc_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_alloc_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_contig_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_coherent_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_coherent_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_frame_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_set_page_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_set_page_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_set_page_observe_entry(struct pt_probe *p, struct pt_regs *regs,
			      void *data);
int nv_release_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_release_system_entry(struct pt_probe *p, struct pt_regs *regs,
			    void *data);
void nv_release_ret(struct pt_probe *p, struct pt_regs *regs, void *data);

/* pool.c */
void nv_take_by_walk(unsigned long at, struct pt_frame *take, u32 first,
		     u32 nr);
u32 nv_take_by_state(unsigned long at, struct pt_frame *alloc, u32 first,
		     u32 nr);
void nv_admit_at_release(struct pt_frame *release, unsigned long at);
void nv_admit_end(struct pt_frame *release);
int nv_take_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_take_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_move_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_move_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_admit_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_admit_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_worker_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_up_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_count_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_count_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_scan_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_scan_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_free_list_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_destroy_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_tp_page_free(void *data, struct page *page, unsigned int order);
void nv_tp_page_alloc(void *data, struct page *page, unsigned int order,
		      gfp_t gfp, int migratetype);

/* mmap.c */
int nv_mmap_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_mmap_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_mmap_helper_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_mmap_helper_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_insert_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
void nv_insert_ret(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_vma_open_entry(struct pt_probe *p, struct pt_regs *regs, void *data);
int nv_vma_release_entry(struct pt_probe *p, struct pt_regs *regs, void *data);

#endif /* PAGETRAIL_NVIDIA_H */
