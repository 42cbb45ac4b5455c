// SPDX-License-Identifier: GPL-2.0
/* pagetrail: events.bin header and records: encode, validate, format as text. */

#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/page.h>
#include <pagetrail/record.h>
#include <pagetrail/rules.h>
#include <uapi/pagetrail_text.h>

/* The record is ABI: 128 bytes, no implicit padding (see the struct). */
static_assert(sizeof(struct pagetrail_record) == 128);
static_assert(offsetof(struct pagetrail_record, anomalies) == 120);

void pt_file_header_init(struct pagetrail_file_header *hdr, u32 nr_cpus)
{
	*hdr = (struct pagetrail_file_header){
		.magic = PAGETRAIL_MAGIC,
		.version = PAGETRAIL_ABI_VERSION,
		.header_size = sizeof(*hdr),
		.record_size = sizeof(struct pagetrail_record),
		.page_shift = PAGE_SHIFT,
		.nr_cpus = nr_cpus,
	};
}

/*
 * Validate the start of an events.bin stream: -ENODATA when too short to
 * hold a header, -EINVAL for a foreign file, -EPROTONOSUPPORT for another
 * ABI version, -EBADMSG when the sizes cannot describe our records.
 */
int pt_file_header_check(const void *buf, size_t len,
			 struct pagetrail_file_header *hdr)
{
	if (len < sizeof(*hdr))
		return -ENODATA;
	memcpy(hdr, buf, sizeof(*hdr));
	if (hdr->magic != PAGETRAIL_MAGIC)
		return -EINVAL;
	if (hdr->version != PAGETRAIL_ABI_VERSION)
		return -EPROTONOSUPPORT;
	if (hdr->header_size < sizeof(*hdr) || hdr->header_size > len)
		return -EBADMSG;
	if (hdr->record_size < sizeof(struct pagetrail_record))
		return -EBADMSG;
	return 0;
}

/* Decode one record; newer, longer records keep their known prefix. */
int pt_record_decode(const void *buf, size_t len,
		     const struct pagetrail_file_header *hdr,
		     struct pagetrail_record *rec)
{
	if (len < hdr->record_size)
		return -ENODATA;
	memcpy(rec, buf, sizeof(*rec));
	if (rec->role >= PT_ROLE_MAX || rec->from_state >= PT_ST_MAX ||
	    rec->to_state >= PT_ST_MAX || rec->anomaly >= PT_AN_MAX ||
	    rec->cause >= PT_CAUSE_MAX)
		return -EBADMSG;
	return 0;
}

/*
 * Any byte of a thread name can be set with prctl(PR_SET_NAME): make it one
 * key=value token on one line, so no process can forge lines or keys in
 * what root reads. Stops at the first NUL; pads the rest with NULs.
 */
void pt_comm_sanitize(char *comm, size_t len)
{
	size_t i;

	for (i = 0; i < len && comm[i]; i++)
		if (comm[i] <= ' ' || comm[i] == '=' || comm[i] >= 0x7f)
			comm[i] = '_';
	for (; i < len; i++)
		comm[i] = '\0';
}

/* One line of key=value pairs, the format of debugfs "events". */
int pt_record_format(const struct pagetrail_record *r, char *buf, size_t size)
{
	char comm[sizeof(r->comm) + 1];

	memcpy(comm, r->comm, sizeof(r->comm));
	comm[sizeof(r->comm)] = '\0';
	pt_comm_sanitize(comm, sizeof(r->comm));
	return scnprintf(buf, size, PAGETRAIL_TEXT_FMT,
			 PAGETRAIL_TEXT_ARGS(r, comm));
}
