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

/* What happened to the page, named by its role in the pool lifecycle. */
enum pagetrail_role {
	PT_ROLE_NONE = 0,
	PT_ROLE_ADMIT,   /* driver admits a chunk to its pool (dirty) */
	PT_ROLE_SCRUB,   /* pool scrubber finished a chunk: dirty -> clean */
	PT_ROLE_TAKE,    /* allocator removes a chunk from the pool */
	PT_ROLE_ASSIGN,  /* chunk registered in an allocation at an index */
	PT_ROLE_RECLAIM, /* shrinker or destroy removes a chunk from the pool */
	PT_ROLE_FREE,    /* page returned to the buddy allocator */
	PT_ROLE_RELEASE, /* allocation let go of a chunk that stays alive */
	PT_ROLE_ALLOC,   /* buddy allocator handed out a tracked page */
	PT_ROLE_MAP,     /* driver mmap finished (ret = its errno) */
	PT_ROLE_INSERT,  /* vm_insert_page() of a page (ret = its errno) */
	PT_ROLE_VMA,     /* driver vma open/close (aux = usage count) */
	PT_ROLE_DENY,    /* device cgroup denied an open */
	PT_ROLE_MAX
};

/* Where a tracked chunk is, as far as pagetrail has observed. */
enum pagetrail_state {
	PT_ST_UNTRACKED = 0,
	PT_ST_ASSIGNED,     /* owned by an allocation */
	PT_ST_MAPPED,       /* owned by an allocation, inserted into a VMA */
	PT_ST_POOLED_DIRTY, /* on the pool's dirty list */
	PT_ST_POOLED_CLEAN, /* on the pool's clean list */
	PT_ST_POOLED,       /* in the pool, clean/dirty not observed */
	PT_ST_TAKEN,        /* removed by the allocator, not yet assigned */
	PT_ST_RECLAIMING,   /* removed by the shrinker, not yet freed */
	PT_ST_FREED,        /* back in the buddy allocator */
	PT_ST_RELEASED,     /* let go by the driver, kept alive by others */
	PT_ST_MAX
};

/* Transitions that must not happen. */
enum pagetrail_anomaly {
	PT_AN_NONE = 0,
	PT_AN_INSERT_ZERO_REF,       /* vm_insert_page() on refcount 0 */
	PT_AN_INSERT_AFTER_FREE,     /* insert of a page already in the buddy */
	PT_AN_INSERT_WHILE_POOLED,   /* insert of a page the pool owns */
	PT_AN_INSERT_WRONG_OWNER,    /* insert through allocation A of B's page */
	PT_AN_FREE_WHILE_POOLED,     /* buddy free of a page the pool lists */
	PT_AN_FREE_WHILE_ASSIGNED,   /* buddy free of a page an allocation owns */
	PT_AN_DOUBLE_ADMIT,          /* admission of a page already pooled */
	PT_AN_ADMIT_FREED,           /* admission of a page in the buddy */
	PT_AN_ADMIT_EXTRA_REF,       /* admitted with refcount > 1 (pinned) */
	PT_AN_TAKE_UNPOOLED,         /* pool handed out a page it did not own */
	PT_AN_TAKE_ALIASED,          /* taken while another holder has a ref */
	PT_AN_SCRUB_UNPOOLED,        /* scrubber cleared a page it did not own */
	PT_AN_RECLAIM_UNPOOLED,      /* shrinker freed a page it did not own */
	PT_AN_ASSIGN_WHILE_OWNED,    /* page assigned to two allocations */
	PT_AN_ALLOC_WHILE_OWNED,     /* buddy handed out a pooled/owned page */
	PT_AN_MAX
};

/* Why a role event happened (cause field). */
enum pagetrail_cause {
	PT_CAUSE_NONE = 0,
	PT_CAUSE_FRESH,        /* ASSIGN: new buddy allocation */
	PT_CAUSE_POOL,         /* ASSIGN: from the pool */
	PT_CAUSE_CLEAN,        /* TAKE: from the clean list */
	PT_CAUSE_DIRTY,        /* TAKE/RECLAIM: from the dirty list */
	PT_CAUSE_SHRINKER,     /* RECLAIM: shrinker scan */
	PT_CAUSE_DESTROY,      /* RECLAIM: pool destroyed */
	PT_CAUSE_DIRECT,       /* FREE: allocation freed without the pool */
	PT_CAUSE_REJECT,       /* FREE: admission rejected the chunk */
	PT_CAUSE_RECLAIM,      /* FREE: pool reclaim freed the chunk */
	PT_CAUSE_FOREIGN,      /* FREE/ALLOC: outside any driver path */
	PT_CAUSE_VMA_OPEN,     /* VMA: open (fork/split) */
	PT_CAUSE_VMA_CLOSE,    /* VMA: close */
	PT_CAUSE_MAX
};

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

/* Record flags (rflags field). */
#define PT_RF_GAP     (1u << 0) /* predecessor of this transition not observed */
#define PT_RF_SAMPLED (1u << 1) /* refcount/mapcount/page_flags are valid */

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
	__u32 anomalies;  /* every anomaly raised: bit (1 << PT_AN_*) */
	__u8 reserved[4];
};

#endif /* _UAPI_PAGETRAIL_H */
