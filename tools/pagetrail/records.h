/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: events.bin records, their names and their text form. */
#ifndef PAGETRAIL_TOOL_RECORDS_H
#define PAGETRAIL_TOOL_RECORDS_H

#include <stdio.h>
#include <stddef.h>
#include <uapi/pagetrail.h>

const char *pt_role_name(unsigned int i);
const char *pt_state_name(unsigned int i);
const char *pt_anomaly_name(unsigned int i);
const char *pt_cause_name(unsigned int i);
/* Name -> enum value; -1 when the name is not in the list. */
int pt_role_id(const char *name);
int pt_state_id(const char *name);
int pt_anomaly_id(const char *name);
int pt_cause_id(const char *name);

/* Sequence facts of a record array, as decode --check prints them. */
struct pt_seqinfo {
	unsigned long long n, first, last, gaps;
	int backwards;
};

/*
 * Parse an events.bin image: header checked (magic, version, sizes), then
 * whole records. Bytes beyond the struct this tool knows are skipped.
 * Returns 0, or -1 with a one-line reason in err.
 */
int pt_events_parse(const void *buf, size_t len, struct pagetrail_record **out,
		    size_t *n, char *err, size_t errlen);
void pt_seqinfo(const struct pagetrail_record *r, size_t n,
		struct pt_seqinfo *si);
void pt_records_sort(struct pagetrail_record *r, size_t n);

/* The record's comm, NUL-terminated, blanks, '=' and non-ASCII as '_'. */
void pt_record_comm(const struct pagetrail_record *r, char out[17]);
/* One line in the text form of debugfs "events". */
void pt_record_print(FILE *f, const struct pagetrail_record *r);

/* Does the record concern the page pfn (exact page, or the chunk holding it)? */
int pt_record_covers(const struct pagetrail_record *r, unsigned long long pfn);

/* Every anomaly kind a record raised, as bits (1 << PT_AN_*). */
unsigned int pt_record_kinds(const struct pagetrail_record *r);
/* Anomaly kinds of a record as "A,B" into buf. */
void pt_kinds_str(unsigned int kinds, unsigned int first, char *buf,
		  size_t size);

/*
 * Fill r from a key=value line: the events text form or an anomaly's first
 * line in debugfs "anomalies" (state=A->B, kind=K1,K2). Unknown keys are
 * ignored; returns the number of keys understood, -1 on a malformed value.
 */
int pt_record_from_kv(const char *line, struct pagetrail_record *r);
#endif /* PAGETRAIL_TOOL_RECORDS_H */
