/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The text form of a pagetrail record (debugfs "events", pagetrail decode):
 * one line of key=value pairs. The including file provides pt_role_name(),
 * pt_cause_name(), pt_state_name() and pt_anomaly_name().
 */
#ifndef _UAPI_PAGETRAIL_TEXT_H
#define _UAPI_PAGETRAIL_TEXT_H

#define PAGETRAIL_TEXT_FMT						\
	"seq=%llu ts=%llu cpu=%u pid=%u tgid=%u comm=%s role=%s cause=%s "	\
	"pfn=0x%llx order=%u from=%s to=%s gen=%u token=%016llx "	\
	"prev_token=%016llx alloc=%u prev_alloc=%u idx=%u ref=%d map=%d head=0x%llx " \
	"corder=%u pflags=0x%x ret=%d inner_ret=%d aux=0x%x gap=%u anomaly=%s " \
	"anomalies=0x%x ctx=%s\n"

/* @comm: the record's comm, NUL-terminated, without blanks or '='. */
#define PAGETRAIL_TEXT_ARGS(r, comm)					\
	(unsigned long long)(r)->seq, (unsigned long long)(r)->ts_ns,	\
	(unsigned int)(r)->cpu, (r)->pid, (r)->tgid, (comm),		\
	pt_role_name((r)->role), pt_cause_name((r)->cause),		\
	(unsigned long long)(r)->pfn, (unsigned int)(r)->order,		\
	pt_state_name((r)->from_state), pt_state_name((r)->to_state),	\
	(r)->generation, (unsigned long long)(r)->token,		\
	(unsigned long long)(r)->prev_token, (r)->alloc_seq, (r)->prev_alloc_seq, (r)->index, \
	(r)->refcount, (r)->mapcount, (unsigned long long)(r)->head_pfn, \
	(unsigned int)(r)->compound_order, (r)->page_flags, (r)->ret,	\
	(r)->inner_ret, (r)->aux, (unsigned int)!!((r)->rflags & PT_RF_GAP), \
	pt_anomaly_name((r)->anomaly), (r)->anomalies,			\
	PAGETRAIL_RUN_NAME(PT_RF_RUN(r))

#endif /* _UAPI_PAGETRAIL_TEXT_H */
