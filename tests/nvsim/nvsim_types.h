/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvsim: the NVIDIA open module's types that a tracer reads, with the
 * member names, types and x86_64 offsets of driver 595.45.04 (590.48.01
 * and later), so BTF/DWARF offset lookups give the same answers for
 * nvsim and nvidia. Layout facts: shared/reference/nvidia-pool.md Q3.
 */
#ifndef NVSIM_TYPES_H
#define NVSIM_TYPES_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/semaphore.h>
#include <linux/atomic.h>
#include <linux/shrinker.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include "nvsim_compat.h"

typedef u8 NvBool;
typedef u32 NvU32;
typedef s32 NvS32;
typedef u64 NvU64;
typedef u32 NV_STATUS;

#define NV_TRUE		1
#define NV_FALSE	0

#define NV_OK				0x00000000
#define NV_ERR_INVALID_ARGUMENT		0x0000001f
#define NV_ERR_INVALID_REQUEST		0x00000028
#define NV_ERR_INVALID_STATE		0x00000040
#define NV_ERR_NO_MEMORY		0x00000051
#define NV_ERR_NOT_SUPPORTED		0x00000056

#define NV_MEMORY_CACHED	0
#define NV_MEMORY_UNCACHED	1

#define NV_PROTECT_READABLE	1
#define NV_PROTECT_WRITEABLE	2
#define NV_PROTECT_READ_WRITE	(NV_PROTECT_READABLE | NV_PROTECT_WRITEABLE)

/* Pool for page size S exists when bit (S >> 12) of the parameter is set. */
#define NV_ENABLE_SYSTEM_MEMORY_POOLS_SHIFT	12

/* One 4 KiB page of an allocation (575.51.02 and later: 16 bytes). */
typedef struct nvidia_pte_s {
	NvU64 phys_addr;
	unsigned long virt_addr;
} nvidia_pte_t;

/* NvBool bitfields, LSB first: byte 24 then byte 25 of nv_alloc_t. */
struct nv_alloc_flags_s {
	NvBool contig : 1;
	NvBool guest : 1;
	NvBool zeroed : 1;
	NvBool aliased : 1;
	NvBool user : 1;
	NvBool node : 1;
	NvBool peer_io : 1;
	NvBool physical : 1;
	NvBool unencrypted : 1;
	NvBool coherent : 1;
	NvBool carveout : 1;
	NvBool pool : 1;
};

/* One RM system-memory allocation (590.48.01 .. 595.45.04: 112 bytes). */
typedef struct nv_alloc_s {
	struct nv_alloc_s *next;	/* nvlfp->free_list link */
	struct device *dev;
	atomic64_t usage_count;		/* RM's reference + one per VMA */
	struct nv_alloc_flags_s flags;
	unsigned int cache_type;
	unsigned int num_pages;		/* 4 KiB pages */
	unsigned int order;		/* chunk order */
	unsigned int size;
	nvidia_pte_t *page_table;	/* num_pages entries, kvzalloc'd */
	unsigned int pid;
	struct page **user_pages;
	NvU64 guest_id;
	NvS32 node_id;
	void *import_priv;
	struct sg_table *import_sgt;
	dma_addr_t dma_handle;
} nv_alloc_t;

typedef void (*nv_q_func_t)(void *args);

/*
 * The driver's single-thread work queue. Its spinlock and semaphore grow
 * with CONFIG_DEBUG_SPINLOCK/LOCKDEP, which moves every nv_page_pool_t
 * member after it, exactly as in the real driver.
 */
typedef struct nv_kthread_q {
	struct list_head q_list_head;
	spinlock_t q_lock;		/* guards q_list_head */
	struct semaphore q_sem;		/* one up() per queued item */
	atomic_t main_loop_should_exit;
	struct task_struct *q_kthread;
	bool is_unload_flush_ongoing;
} nv_kthread_q_t;

typedef struct nv_kthread_q_item {
	struct list_head q_list_node;
	nv_q_func_t function_to_run;
	void *function_args;
} nv_kthread_q_item_t;

/* A pooled chunk: only the head page's kernel VA (24 bytes, kmalloc-32). */
typedef struct {
	unsigned long virt_addr;
	struct list_head list_node;
} nv_page_pool_entry_t;

/* One (node, order) pool. pages_owned counts chunks, in-flight included. */
typedef struct nv_page_pool_t {
	struct list_head clean_list;
	struct list_head dirty_list;
	nv_kthread_q_t scrubber_queue;
	nv_kthread_q_item_t scrubber_queue_item;
	int node_id;
	unsigned int order;
	unsigned long pages_owned;
	void *lock;			/* os_alloc_mutex: a struct semaphore */
	struct shrinker *shrinker;
#ifndef NV_SHRINKER_ALLOC_PRESENT
	struct shrinker _shrinker;
#endif
} nv_page_pool_t;

/* The per-fd mmap context (nv_alloc_mapping_context_s layout). */
typedef struct {
	NvU64 *pRanges;
	NvU64 numRanges;
} nv_memory_area_t;

typedef struct nv_alloc_mapping_context_s {
	void *alloc;			/* raw nv_alloc_t *, no reference */
	NvU64 page_index;
	NvU64 *page_array;
	NvU64 num_pages;
	nv_memory_area_t memArea;
	NvU64 access_start;
	NvU64 access_size;
	NvU32 prot;
	NvBool valid;
	NvU32 caching;
} nv_alloc_mapping_context_t;

#define NV_FLAG_CONTROL		0x0001

/* The device state; nvsim has only the control device. */
typedef struct nv_state_t {
	void *priv;
	NvU32 flags;
	NvU32 minor_number;
} nv_state_t;

/* Opaque "altstack" the driver allocates per mmap call. */
typedef struct nvidia_stack_s {
	NvU32 size;
	void *top;
} nvidia_stack_t;

/* Per-open-file state of the control device. */
typedef struct nv_linux_file_private_s {
	nv_alloc_mapping_context_t mmap_context;
	nv_alloc_t *free_list;		/* deferred frees, via at->next */
	spinlock_t free_list_lock;
	u32 context_handle;		/* nvsim: handle behind mmap_context */
	bool context_ref;		/* nvsim: mmap_context holds a usage_count ref */
} nv_linux_file_private_t;

/* nv_kthread_q_t offsets computed from this kernel's lock types. */
#define NVSIM_Q_SEM	ALIGN(16 + sizeof(spinlock_t), __alignof__(struct semaphore))
#define NVSIM_Q_EXIT	(NVSIM_Q_SEM + sizeof(struct semaphore))
#define NVSIM_Q_KTHREAD	ALIGN(NVSIM_Q_EXIT + sizeof(atomic_t), sizeof(void *))
#define NVSIM_Q_SIZE	ALIGN(NVSIM_Q_KTHREAD + 8 + 1, sizeof(void *))
#define NVSIM_LOCKS(spin, sem) (sizeof(spinlock_t) == (spin) && sizeof(struct semaphore) == (sem))

/*
 * Compile-time proof that the layouts match driver 595.45.04 (x86_64).
 * nv_page_pool_t members after scrubber_queue are checked relative to it,
 * and absolutely for the lock sizes the loader's table is measured with.
 */
static inline void nvsim_check_layouts(void)
{
	BUILD_BUG_ON(sizeof(nvidia_pte_t) != 16);
	BUILD_BUG_ON(offsetof(nvidia_pte_t, phys_addr) != 0);
	BUILD_BUG_ON(offsetof(nvidia_pte_t, virt_addr) != 8);

	BUILD_BUG_ON(sizeof(struct nv_alloc_flags_s) != 2);
	BUILD_BUG_ON(sizeof(nv_alloc_t) != 112);
	BUILD_BUG_ON(offsetof(nv_alloc_t, next) != 0);
	BUILD_BUG_ON(offsetof(nv_alloc_t, dev) != 8);
	BUILD_BUG_ON(offsetof(nv_alloc_t, usage_count) != 16);
	BUILD_BUG_ON(offsetof(nv_alloc_t, flags) != 24);
	BUILD_BUG_ON(offsetof(nv_alloc_t, cache_type) != 28);
	BUILD_BUG_ON(offsetof(nv_alloc_t, num_pages) != 32);
	BUILD_BUG_ON(offsetof(nv_alloc_t, order) != 36);
	BUILD_BUG_ON(offsetof(nv_alloc_t, size) != 40);
	BUILD_BUG_ON(offsetof(nv_alloc_t, page_table) != 48);
	BUILD_BUG_ON(offsetof(nv_alloc_t, pid) != 56);
	BUILD_BUG_ON(offsetof(nv_alloc_t, user_pages) != 64);
	BUILD_BUG_ON(offsetof(nv_alloc_t, guest_id) != 72);
	BUILD_BUG_ON(offsetof(nv_alloc_t, node_id) != 80);
	BUILD_BUG_ON(offsetof(nv_alloc_t, import_priv) != 88);
	BUILD_BUG_ON(offsetof(nv_alloc_t, import_sgt) != 96);
	BUILD_BUG_ON(offsetof(nv_alloc_t, dma_handle) != 104);

	BUILD_BUG_ON(sizeof(nv_page_pool_entry_t) != 24);
	BUILD_BUG_ON(offsetof(nv_page_pool_entry_t, virt_addr) != 0);
	BUILD_BUG_ON(offsetof(nv_page_pool_entry_t, list_node) != 8);

	BUILD_BUG_ON(sizeof(nv_kthread_q_item_t) != 32);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, clean_list) != 0);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, dirty_list) != 16);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, scrubber_queue) != 32);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, scrubber_queue_item) !=
		     32 + sizeof(nv_kthread_q_t));
	BUILD_BUG_ON(offsetof(nv_page_pool_t, node_id) !=
		     offsetof(nv_page_pool_t, scrubber_queue_item) + 32);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, order) !=
		     offsetof(nv_page_pool_t, node_id) + 4);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, pages_owned) !=
		     offsetof(nv_page_pool_t, node_id) + 8);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, lock) !=
		     offsetof(nv_page_pool_t, node_id) + 16);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, shrinker) !=
		     offsetof(nv_page_pool_t, node_id) + 24);
	/*
	 * nv_kthread_q_t follows the kernel's spinlock_t and struct semaphore:
	 * lock debugging, PREEMPT_RT and CONFIG_DETECT_HUNG_TASK_BLOCKER
	 * (6.16+, +8 bytes of semaphore) move every pool field after it. The
	 * driver's member list, laid out on this kernel's types:
	 */
	BUILD_BUG_ON(offsetof(nv_kthread_q_t, q_lock) != 16);
	BUILD_BUG_ON(offsetof(nv_kthread_q_t, q_sem) != NVSIM_Q_SEM);
	BUILD_BUG_ON(offsetof(nv_kthread_q_t, main_loop_should_exit) != NVSIM_Q_EXIT);
	BUILD_BUG_ON(offsetof(nv_kthread_q_t, q_kthread) != NVSIM_Q_KTHREAD);
	BUILD_BUG_ON(offsetof(nv_kthread_q_t, is_unload_flush_ongoing) != NVSIM_Q_KTHREAD + 8);
	BUILD_BUG_ON(sizeof(nv_kthread_q_t) != NVSIM_Q_SIZE);
	BUILD_BUG_ON(offsetof(nv_page_pool_t, node_id) != 32 + NVSIM_Q_SIZE + 32);
	/*
	 * The absolute offsets the loader's table knows, where the lock types
	 * have the sizes they are measured with: production 6.1/6.12
	 * (spinlock 4, semaphore 24) and the hung-task blocker (semaphore 32).
	 */
	BUILD_BUG_ON(NVSIM_LOCKS(4, 24) && (sizeof(nv_kthread_q_t) != 72 ||
					    offsetof(nv_kthread_q_t, q_sem) != 24 ||
					    offsetof(nv_page_pool_t, scrubber_queue_item) != 104 ||
					    offsetof(nv_page_pool_t, node_id) != 136 ||
					    offsetof(nv_page_pool_t, order) != 140 ||
					    offsetof(nv_page_pool_t, pages_owned) != 144 ||
					    offsetof(nv_page_pool_t, lock) != 152 ||
					    offsetof(nv_page_pool_t, shrinker) != 160));
	BUILD_BUG_ON(NVSIM_LOCKS(4, 32) && (sizeof(nv_kthread_q_t) != 80 ||
					    offsetof(nv_page_pool_t, node_id) != 144 ||
					    offsetof(nv_page_pool_t, order) != 148 ||
					    offsetof(nv_page_pool_t, pages_owned) != 152 ||
					    offsetof(nv_page_pool_t, lock) != 160 ||
					    offsetof(nv_page_pool_t, shrinker) != 168));
#ifdef NV_SHRINKER_ALLOC_PRESENT
	BUILD_BUG_ON(sizeof(nv_page_pool_t) != offsetof(nv_page_pool_t, shrinker) + 8);
#else
	BUILD_BUG_ON(offsetof(nv_page_pool_t, _shrinker) != offsetof(nv_page_pool_t, shrinker) + 8);
#endif

	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, alloc) != 0);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, page_index) != 8);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, page_array) != 16);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, num_pages) != 24);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, memArea) != 32);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, access_start) != 48);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, access_size) != 56);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, prot) != 64);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, valid) != 68);
	BUILD_BUG_ON(offsetof(nv_alloc_mapping_context_t, caching) != 72);
}

#endif /* NVSIM_TYPES_H */
