/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: binary record header, validation and text formatting. */
#ifndef PAGETRAIL_RECORD_H
#define PAGETRAIL_RECORD_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

void pt_file_header_init(struct pagetrail_file_header *hdr, u32 nr_cpus);
int pt_file_header_check(const void *buf, size_t len,
			 struct pagetrail_file_header *hdr);
int pt_record_decode(const void *buf, size_t len,
		     const struct pagetrail_file_header *hdr,
		     struct pagetrail_record *rec);
void pt_comm_sanitize(char *comm, size_t len);
int pt_record_format(const struct pagetrail_record *rec, char *buf,
		     size_t size);

#endif /* PAGETRAIL_RECORD_H */
