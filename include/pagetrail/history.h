/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: the recent-window transition log. Every transition of a
 * tracked chunk is one compact entry in a global ring; a chunk keeps only
 * the position of its newest entry and each entry the position of the one
 * before it, so a chunk's history is followed backwards for as long as the
 * window still holds it. Entries are validated (pfn, decreasing seq) when
 * read: one overwritten ends the history there, it is never misread.
 */
#ifndef PAGETRAIL_HISTORY_H
#define PAGETRAIL_HISTORY_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

struct pt_hist;

/* One transition, as kept in the window: 64 bytes. */
struct pt_hist_entry {
	u64 seq; /* 0 while being written */
	u64 ts_ns;
	u64 token;
	char comm[16];
	u64 pfn : 40;
	u64 to_state : 8;
	u64 anomaly : 8;
	u64 gap : 1;
	u32 pid;
	u32 generation;
	u32 prev; /* position + 1 of this chunk's previous entry, 0: none */
	u16 cpu;
	u8 role;
	u8 cause;
};

int pt_history_init(unsigned int entries);
void pt_history_exit(void);
void pt_history_clear(void);
size_t pt_history_bytes(void);
/*
 * Append @rec as the newest entry of the chunk at @pfn (an insert's record
 * names the page, not the chunk), whose newest was at @newest (0: none). Returns the new entry's position + 1 for the chunk.
 * Called under the chunk's lock: one chunk's appends never race.
 */
u32 pt_history_push(const struct pagetrail_record *rec, u64 pfn, u32 newest);
/* Up to @max entries of @pfn's history ending at @newest, oldest first. */
unsigned int pt_history_read(u64 pfn, u32 newest, struct pt_hist *out,
			     unsigned int max);

#endif /* PAGETRAIL_HISTORY_H */
