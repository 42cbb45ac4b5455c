/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvsim control device ABI, shared by the module and the test programs
 * (tests/progs/cuinit.c, memhog.c).
 *
 * The control device registers a dynamic major under NVSIM_CTL_NAME in
 * /proc/devices and creates no class or device: like /dev/nvidia-uvm and
 * nvidia-modprobe, userspace reads the major from /proc/devices and makes
 * the node itself (cuinit does, see nvsim_mknod() there).
 *
 * Flow, as CUDA drives /dev/nvidiactl:
 *   fd0 = open(ctl); ioctl(fd0, NVSIM_IOC_ALLOC) -> handle (RM's reference)
 *   fdN = open(ctl); ioctl(fdN, NVSIM_IOC_MAP_CONTEXT, handle, index, pages)
 *   mmap(fdN, pages * 4096, offset 0)  -> nvidia_mmap -> vm_insert_page x N
 *   munmap; ioctl(fd0, NVSIM_IOC_FREE, handle) (either order)
 * The context holds the allocation without a reference, exactly like
 * nv_add_mapping_context_to_file(); see fault_stale_context.
 */
#ifndef NVSIM_UAPI_H
#define NVSIM_UAPI_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define NVSIM_CTL_NAME		"nvsimctl"
#define NVSIM_CTL_PATH		"/dev/nvsimctl"
#define NVSIM_DEBUGFS_STATS	"/sys/kernel/debug/nvsim/stats"
#define NVSIM_PARAM_DIR		"/sys/module/nvsim/parameters"

/* NVSIM_IOC_ALLOC flags (nv_alloc_t flags and cache type they set) */
#define NVSIM_ALLOC_ZEROED	0x01	/* flags.zeroed: __GFP_ZERO, pool allowed */
#define NVSIM_ALLOC_UNCACHED	0x02	/* cache_type UNCACHED (default CACHED) */
#define NVSIM_ALLOC_CONTIG	0x04	/* nv_alloc_contig_pages, one chunk */
#define NVSIM_ALLOC_NODE	0x08	/* flags.node: alloc_pages_node(node) */
#define NVSIM_ALLOC_DMA32	0x10	/* GFP_DMA32 in the mask: pool declined */

struct nvsim_alloc_req {
	__u32 num_pages;	/* in: 4 KiB pages */
	__u32 order;		/* in: chunk order (ignored when CONTIG) */
	__u32 flags;		/* in: NVSIM_ALLOC_* */
	__s32 node;		/* in: node with NVSIM_ALLOC_NODE */
	__u32 handle;		/* out: RM handle, >= 1 */
	__u32 status;		/* out: NV_STATUS of the allocation */
	__u32 chunks;		/* out: chunks in the allocation */
	__u32 pool_chunks;	/* out: chunks taken from the pool */
	__u32 pooled;		/* out: flags.pool (the pool gate said yes) */
	__u32 order_out;	/* out: at->order actually used */
	__u64 first_pfn;	/* out: pfn of page_table[0] */
};

/*
 * One mapping context per fd; a second one is refused with EBUSY.
 * NVSIM_MAP_NUMA: a context like a coherent-NUMA GPU's (GH200), whose
 * mmap goes through nvidia_mmap_numa: `pages` device pages (nvsim's
 * stand-in for onlined GPU memory, freed when the fd closes), inserted by
 * nvidia_mmap_helper with vma->vm_private_data NULL; handle is ignored.
 */
#define NVSIM_MAP_NUMA		0x1

struct nvsim_map_req {
	__u32 handle;
	__u32 flags;		/* NVSIM_MAP_* */
	__u64 page_index;
	__u64 pages;
};

struct nvsim_free_req {
	__u32 handle;
	__u32 pad;
};

/* pfn and page_count() of page_table[page_index] of a live allocation */
struct nvsim_pfn_req {
	__u32 handle;
	__u32 page_index;
	__u64 pfn;		/* out */
	__s32 refcount;		/* out: page_count() now */
	__u32 pad;
};

/* pinned_admit: get_page() on page_table[page_index], as a GUP pin would */
struct nvsim_pin_req {
	__u32 handle;
	__u32 page_index;
	__u64 pfn;		/* out */
	__u32 pin_id;		/* out, for NVSIM_IOC_UNPIN */
	__u32 pad;
};

struct nvsim_unpin_req {
	__u32 pin_id;
	__u32 pad;
};

/*
 * foreign_put: the "nvsim_foreign" kthread, bound to cpu (-1: the lowest
 * online CPU that is not the caller's), drops one reference on the page at
 * the head of the clean list of pool (node, order).
 */
struct nvsim_foreign_req {
	__s32 node;
	__u32 order;
	__s32 cpu;		/* in/out: CPU the thread ran on */
	__s32 pid;		/* out: the thread's pid */
	__u64 pfn;		/* out */
	__s32 refcount;		/* out: page_count() after the put */
	__u32 pad;
	char comm[16];		/* out */
};

/*
 * stale_context, reused: allocate pages outside the driver until the
 * kernel hands out pfn, and keep it (someone else's memory from now on).
 */
struct nvsim_reuse_req {
	__u64 pfn;
	__u32 tries;		/* out: pages allocated to get it */
	__s32 refcount;		/* out: page_count() of the kept page */
};

#define NVSIM_SELFCHECK_MAX_DOUBLE 8

struct nvsim_selfcheck {
	__u32 errors;		/* sum of the three below */
	__u32 pools_bad;	/* pools with pages_owned != clean + dirty + in-flight */
	__u32 accounting_bad;	/* chunk conservation does not hold */
	__u32 double_owned;	/* pfns with two owners */
	__u64 double_pfn[NVSIM_SELFCHECK_MAX_DOUBLE];
};

/*
 * Counters, in the order debugfs prints them. "chunks" are (1 << order)
 * page buddy allocations, the pool's unit; "pages" are 4 KiB.
 */
#define NVSIM_STATS_FIELDS(X)						\
	X(allocs_total)		/* nv_alloc_system/contig_pages calls */	\
	X(allocs_failed)						\
	X(allocs_pooled)	/* allocations with flags.pool set */	\
	X(allocs_live)		/* allocated, not yet freed */		\
	X(allocs_freed)							\
	X(allocs_deferred_free)	/* freed from a VMA close, not by RM */	\
	X(context_refs_taken)	/* 595.71.05+: mmap context's usage ref */ \
	X(context_refs_dropped)	/* ... dropped at its file's close */	\
	X(chunks_fresh)		/* from the buddy allocator */		\
	X(pages_fresh)							\
	X(chunks_taken_clean)	/* pool take, already scrubbed */	\
	X(chunks_taken_dirty)	/* pool take, cleared by the caller */	\
	X(chunks_admitted)	/* onto a pool's dirty list */		\
	X(chunks_rejected)	/* admission: wrong node, no entry */	\
	X(chunks_scrubbed)	/* by the scrubber kthread */		\
	X(chunks_reclaimed)	/* by the shrinker */			\
	X(chunks_destroyed)	/* by nv_mem_pool_destroy */		\
	X(chunks_freed)		/* back to buddy, every path */		\
	X(pages_freed)							\
	X(chunks_live)		/* in allocations now */		\
	X(chunks_transit)	/* on a private list now */		\
	X(chunks_contained)	/* foreign_put chunks nvsim dropped */	\
	X(pages_contained)						\
	X(set_page_calls)	/* nv_alloc_set_page */			\
	X(scrubber_runs)	/* nv_mem_pool_worker invocations */	\
	X(shrinker_counts)						\
	X(shrinker_scans)						\
	X(pool_pages_owned)	/* sum over pools, chunks */		\
	X(pool_clean)							\
	X(pool_dirty)							\
	X(pool_inflight)						\
	X(mmaps)		/* nvidia_mmap calls */			\
	X(mmaps_failed)							\
	X(mmaps_refused)	/* dangling context, mode off */	\
	X(vm_insert_page_calls)						\
	X(vm_insert_page_failed)					\
	X(last_insert_fail_rc)	/* negative errno, as u64 */		\
	X(last_insert_fail_pfn)						\
	X(last_insert_fail_pid)						\
	X(vma_opens)							\
	X(vma_releases)							\
	X(fault_noncomp_allocs)						\
	X(fault_noncomp_pfn)	/* head pfn of the last one */		\
	X(fault_noncomp_pid)	/* the thread that allocated it */	\
	X(fault_stale_graveyard) /* freed allocations kept */		\
	X(fault_stale_mmaps)	/* mmaps through a freed allocation */	\
	X(fault_stale_pfn)	/* first page of the last such mmap */	\
	X(fault_stale_pid)	/* the thread that mapped it */		\
	X(fault_stale_releases)	/* VMA closes on a freed allocation */	\
	X(fault_foreign_puts)						\
	X(fault_foreign_pfn)						\
	X(fault_foreign_pid)						\
	X(fault_foreign_cpu)						\
	X(fault_pins_total)						\
	X(fault_pins_live)						\
	X(fault_pin_pfn)	/* last pinned pfn */			\
	X(fault_pin_pid)	/* the thread that pinned it */		\
	X(selfcheck_runs)						\
	X(selfcheck_errors)	/* from the last run */			\
	X(selfcheck_double_owned) /* from the last run */		\
	X(selfcheck_double_pfn)	/* first one of the last run */		\
	X(inject_leaks)							\
	X(admit_refused)	/* admissions refused: cannot sleep */	\
	X(admit_refused_chunks)	/* chunks then freed directly */	\
	X(admit_refused_pfn)	/* first chunk of the last one */	\
	X(race_runs)		/* fault_release_race windows */	\
	X(race_handle)		/* the racer's allocation, last run */	\
	X(race_pool_chunks)	/* chunks it took from the pool */	\
	X(race_pid)							\
	X(race_first_pfn)						\
	X(numa_mmaps)		/* nvidia_mmap_numa-style mmaps */	\
	X(numa_inserts)		/* their vm_insert_page calls */	\
	X(numa_pages)		/* device pages in NUMA contexts now */	\
	X(fresh_failed)		/* fault_fresh_fail: chunks not had */	\
	X(ioctl_rejected)	/* bad handle or arguments */

struct nvsim_stats {
#define NVSIM_STATS_MEMBER(name) __u64 name;
	NVSIM_STATS_FIELDS(NVSIM_STATS_MEMBER)
#undef NVSIM_STATS_MEMBER
};

#define NVSIM_IOC_MAGIC		'N'
#define NVSIM_IOC_ALLOC		_IOWR(NVSIM_IOC_MAGIC, 1, struct nvsim_alloc_req)
#define NVSIM_IOC_MAP_CONTEXT	_IOW(NVSIM_IOC_MAGIC, 2, struct nvsim_map_req)
#define NVSIM_IOC_FREE		_IOW(NVSIM_IOC_MAGIC, 3, struct nvsim_free_req)
#define NVSIM_IOC_STATS		_IOR(NVSIM_IOC_MAGIC, 4, struct nvsim_stats)
#define NVSIM_IOC_PFN		_IOWR(NVSIM_IOC_MAGIC, 5, struct nvsim_pfn_req)
#define NVSIM_IOC_PIN		_IOWR(NVSIM_IOC_MAGIC, 6, struct nvsim_pin_req)
#define NVSIM_IOC_UNPIN		_IOW(NVSIM_IOC_MAGIC, 7, struct nvsim_unpin_req)
#define NVSIM_IOC_SELFCHECK	_IOR(NVSIM_IOC_MAGIC, 8, struct nvsim_selfcheck)
#define NVSIM_IOC_FOREIGN_PUT	_IOWR(NVSIM_IOC_MAGIC, 9, struct nvsim_foreign_req)
/* wait until every pool's scrubber has emptied its dirty list */
#define NVSIM_IOC_DRAIN		_IO(NVSIM_IOC_MAGIC, 10)
#define NVSIM_IOC_REUSE		_IOWR(NVSIM_IOC_MAGIC, 11, struct nvsim_reuse_req)

#endif /* NVSIM_UAPI_H */
