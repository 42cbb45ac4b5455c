/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/* pagetrail binary record format (debugfs events.bin), shared with tools/. */
#ifndef _UAPI_PAGETRAIL_H
#define _UAPI_PAGETRAIL_H

#include <linux/types.h>

/*
 * events.bin: one struct pagetrail_file_header at offset 0 of every open,
 * then whole records of header.record_size bytes each. Readers must check
 * magic and version, and skip record bytes beyond the struct they know
 * (record_size may grow within a version; fields are only appended).
 */
#define PAGETRAIL_MAGIC 0x4c525450u /* "PTRL" */
#define PAGETRAIL_ABI_VERSION 1

struct pagetrail_file_header {
	__u32 magic;
	__u16 version;
	__u16 header_size;
	__u16 record_size;
	__u16 page_shift;
	__u32 nr_cpus;
};

/*
 * The enums below are X-macro lists so that the module, its tracepoints
 * and the tools print the same names from one definition:
 * X(suffix, "name", "what it means").
 */

/* What happened to the page, named by its role in the pool lifecycle. */
#define PAGETRAIL_ROLES(X)						\
	X(NONE, "none", "")						\
	X(ADMIT, "admit", "driver admits a chunk to its pool (dirty)")	\
	X(SCRUB, "scrub", "pool scrubber finished a chunk: dirty -> clean") \
	X(TAKE, "take", "allocator removes a chunk from the pool")	\
	X(ASSIGN, "assign", "chunk registered in an allocation at an index") \
	X(RECLAIM, "reclaim", "shrinker or destroy removes a chunk from the pool") \
	X(FREE, "free", "page returned to the buddy allocator")	\
	X(RELEASE, "release", "allocation let go of a chunk that stays alive") \
	X(ALLOC, "alloc", "buddy allocator handed out a tracked page")	\
	X(MAP, "map", "driver mmap finished (ret = its errno)")	\
	X(INSERT, "insert", "vm_insert_page() of a page (ret = its errno)") \
	X(VMA, "vma", "driver vma open/close (aux = usage count)")	\
	X(DENY, "deny", "device cgroup denied an open")			\
	X(UNREF, "unref", "a holder dropped one of the pool's references (aux = count before)") \
	X(POOL, "pool", "pool lifecycle: create, destroy, release attempt, freed (aux = in flight)")

/* Where a tracked chunk is, as far as pagetrail has observed. */
#define PAGETRAIL_STATES(X)						\
	X(UNTRACKED, "untracked", "never observed")			\
	X(ASSIGNED, "assigned", "owned by an allocation")		\
	X(MAPPED, "mapped", "owned by an allocation, inserted into a VMA") \
	X(POOLED_DIRTY, "pooled_dirty", "on the pool's dirty list")	\
	X(POOLED_CLEAN, "pooled_clean", "on the pool's clean list")	\
	X(POOLED, "pooled", "in the pool, clean/dirty not observed")	\
	X(TAKEN, "taken", "removed by the allocator, not yet assigned") \
	X(RECLAIMING, "reclaiming", "removed by the shrinker, not yet freed") \
	X(FREED, "freed", "back in the buddy allocator")		\
	X(RELEASED, "released", "let go by the driver, kept alive by others")

/* Transitions that must not happen. */
#define PAGETRAIL_ANOMALIES(X)						\
	X(NONE, "none", "")						\
	X(INSERT_ZERO_REF, "INSERT_ZERO_REF", "vm_insert_page() on refcount 0") \
	X(INSERT_AFTER_FREE, "INSERT_AFTER_FREE", "insert of a page already in the buddy") \
	X(INSERT_WHILE_POOLED, "INSERT_WHILE_POOLED", "insert of a page the pool owns") \
	X(INSERT_WRONG_OWNER, "INSERT_WRONG_OWNER", "insert through allocation A of B's page") \
	X(FREE_WHILE_POOLED, "FREE_WHILE_POOLED", "buddy free of a page the pool lists") \
	X(FREE_WHILE_ASSIGNED, "FREE_WHILE_ASSIGNED", "buddy free of a page an allocation owns") \
	X(DOUBLE_ADMIT, "DOUBLE_ADMIT", "admission of a page already pooled") \
	X(ADMIT_FREED, "ADMIT_FREED", "admission of a page in the buddy") \
	X(ADMIT_EXTRA_REF, "ADMIT_EXTRA_REF", "admitted with refcount > 1 (pinned)") \
	X(TAKE_UNPOOLED, "TAKE_UNPOOLED", "pool handed out a page it did not own") \
	X(TAKE_ALIASED, "TAKE_ALIASED", "taken while another holder has a reference") \
	X(SCRUB_UNPOOLED, "SCRUB_UNPOOLED", "scrubber cleared a page it did not own") \
	X(RECLAIM_UNPOOLED, "RECLAIM_UNPOOLED", "shrinker freed a page it did not own") \
	X(ASSIGN_WHILE_OWNED, "ASSIGN_WHILE_OWNED", "page assigned to two allocations") \
	X(ALLOC_WHILE_OWNED, "ALLOC_WHILE_OWNED", "buddy handed out a pooled/owned page") \
	X(ADMIT_WRONG_POOL, "ADMIT_WRONG_POOL", "recycled into a pool other than its own") \
	X(CACHE_AFTER_DESTROY, "CACHE_AFTER_DESTROY", "recycled into the cache of a pool being destroyed") \
	X(RELEASE_UNHELD, "RELEASE_UNHELD", "pool let go of a page it had let go already, or freed") \
	X(POOL_REF_UNDERFLOW, "POOL_REF_UNDERFLOW", "pool's own page reference count at or below 0")

/* Why a role event happened (cause field). */
#define PAGETRAIL_CAUSES(X)						\
	X(NONE, "-", "")						\
	X(FRESH, "fresh", "ASSIGN/ADMIT: new buddy allocation")		\
	X(POOL, "pool", "ASSIGN: from the pool")			\
	X(CLEAN, "clean", "TAKE: from the clean list")			\
	X(DIRTY, "dirty", "TAKE: from the dirty list")			\
	X(SHRINKER, "shrinker", "RECLAIM: shrinker scan")		\
	X(DESTROY, "destroy", "RECLAIM/POOL: pool destroyed")		\
	X(DIRECT, "direct", "FREE: allocation freed without the pool")	\
	X(REJECT, "reject", "FREE: admission rejected the chunk")	\
	X(RECLAIM, "reclaim", "FREE: pool reclaim freed the chunk")	\
	X(FOREIGN, "foreign", "FREE/ALLOC: outside any driver path")	\
	X(VMA_OPEN, "open", "VMA: open (fork/split)")			\
	X(VMA_CLOSE, "close", "VMA: close")				\
	X(CACHE, "cache", "ADMIT/SCRUB: into the pool's lockless per-CPU cache")	\
	X(RING, "ring", "ADMIT: recycled into the pool's shared ring")	\
	X(REFCNT, "refcnt", "RELEASE: the pool let the page go (counted)")	\
	X(NID, "nid", "RECLAIM: page of the wrong NUMA node at refill")	\
	X(CREATE, "create", "POOL: pool created")			\
	X(RETRY, "retry", "POOL: deferred release attempt")		\
	X(GONE, "gone", "POOL: pool freed")				\
	X(FRAG, "frag", "ADMIT: fragment page drained whole, reused in place; UNREF: over-released, seen at the next hand-out")

#define PAGETRAIL_ENUM_ROLE(s, n, d) PT_ROLE_##s,
#define PAGETRAIL_ENUM_STATE(s, n, d) PT_ST_##s,
#define PAGETRAIL_ENUM_ANOMALY(s, n, d) PT_AN_##s,
#define PAGETRAIL_ENUM_CAUSE(s, n, d) PT_CAUSE_##s,

enum pagetrail_role { PAGETRAIL_ROLES(PAGETRAIL_ENUM_ROLE) PT_ROLE_MAX };
enum pagetrail_state { PAGETRAIL_STATES(PAGETRAIL_ENUM_STATE) PT_ST_MAX };
enum pagetrail_anomaly { PAGETRAIL_ANOMALIES(PAGETRAIL_ENUM_ANOMALY) PT_AN_MAX };
enum pagetrail_cause { PAGETRAIL_CAUSES(PAGETRAIL_ENUM_CAUSE) PT_CAUSE_MAX };

/* Page facts sampled at the event (page_flags field). */
#define PT_PF_HEAD     (1u << 0)
#define PT_PF_TAIL     (1u << 1)
#define PT_PF_COMPOUND (1u << 2)
#define PT_PF_BUDDY    (1u << 3)
#define PT_PF_SLAB     (1u << 4)
#define PT_PF_ANON     (1u << 5)
#define PT_PF_TYPED    (1u << 6) /* page_has_type() */
#define PT_PF_RESERVED (1u << 7)
#define PT_PF_INVALID  (1u << 8) /* pfn has no struct page */
#define PT_PF_PP       (1u << 9) /* carries page_pool's signature (pp_magic) */

/* Record flags (rflags field). */
#define PT_RF_GAP     (1u << 0) /* predecessor of this transition not observed */
#define PT_RF_SAMPLED (1u << 1) /* refcount/mapcount/page_flags are valid */
/* Bits 2-3: the context the record was made in (enum pagetrail_run). */
#define PT_RF_RUN_SHIFT 2
#define PT_RF_RUN_MASK  (3u << PT_RF_RUN_SHIFT)
#define PT_RF_RUN(r)    (((r)->rflags & PT_RF_RUN_MASK) >> PT_RF_RUN_SHIFT)

/*
 * A task; a task with bottom halves off (a page_pool consumer outside
 * NAPI); a softirq (NAPI, timers); a hard interrupt or NMI. Records made
 * outside a task carry pid 0 and comm "<irq>".
 */
enum pagetrail_run { PT_RUN_TASK, PT_RUN_BH, PT_RUN_SOFTIRQ, PT_RUN_IRQ };
#define PAGETRAIL_RUN_NAME(c)						\
	((c) == PT_RUN_IRQ ? "irq" : (c) == PT_RUN_SOFTIRQ ? "softirq" :	\
	 (c) == PT_RUN_BH ? "bh" : "task")

struct pagetrail_record {
	__u64 seq;        /* global sequence number; a gap means lost records */
	__u64 ts_ns;      /* local_clock() */
	__u64 pfn;        /* page (INSERT) or chunk head (pool roles) */
	__u64 head_pfn;   /* compound head pfn of the page when sampled */
	__u64 token;      /* allocation token: keyed hash of the allocation */
	__u64 prev_token; /* previous owner (ADMIT/TAKE/anomalies) */
	__u32 pid;
	__u32 tgid;
	char comm[16];
	__u32 generation; /* pool admissions of this chunk so far */
	__u32 alloc_seq;  /* allocation instance (pagetrail's count) */
	__u32 index;      /* page index within the allocation */
	__s32 refcount;
	__s32 mapcount;
	__s32 ret;        /* INSERT/MAP: return value */
	__s32 inner_ret;  /* MAP: errno of the failing INSERT */
	__u32 page_flags; /* PT_PF_* */
	__u32 aux;        /* role specific: pool node<<16|order, counts */
	__u16 cpu;
	__u8 role;        /* enum pagetrail_role */
	__u8 cause;       /* enum pagetrail_cause */
	__u8 from_state;  /* enum pagetrail_state */
	__u8 to_state;
	__u8 anomaly;     /* enum pagetrail_anomaly: the first one raised */
	__u8 order;       /* chunk order */
	__u8 compound_order;
	__u8 rflags;      /* PT_RF_* */
	__u16 __reserved; /* zero; spelled out so no byte is implicit */
	__u32 anomalies;  /* every anomaly raised: bit (1 << PT_AN_*) */
	__u32 prev_alloc_seq; /* allocation instance of prev_token */
};

#endif /* _UAPI_PAGETRAIL_H */
