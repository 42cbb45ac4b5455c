// SPDX-License-Identifier: GPL-2.0
/* pagetrail: events.bin header and records: encode, validate, format as text. */

#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/page.h>
#include <pagetrail/record.h>
#include <pagetrail/rules.h>

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
int pt_file_header_check(const void *buf, size_t len, struct pagetrail_file_header *hdr)
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
int pt_record_decode(const void *buf, size_t len, const struct pagetrail_file_header *hdr,
		     struct pagetrail_record *rec)
{
	if (len < hdr->record_size)
		return -ENODATA;
	memcpy(rec, buf, sizeof(*rec));
	if (rec->role >= PT_ROLE_MAX || rec->from_state >= PT_ST_MAX ||
	    rec->to_state >= PT_ST_MAX || rec->anomaly >= PT_AN_MAX || rec->cause >= PT_CAUSE_MAX)
		return -EBADMSG;
	return 0;
}

/* One line of key=value pairs, the format of debugfs "events". */
int pt_record_format(const struct pagetrail_record *r, char *buf, size_t size)
{
	char comm[sizeof(r->comm) + 1];
	char *c;

	memcpy(comm, r->comm, sizeof(r->comm));
	comm[sizeof(r->comm)] = '\0';
	/* Keep one token per key=value pair. */
	for (c = comm; *c; c++)
		if (*c == ' ' || *c == '=')
			*c = '_';
	return scnprintf(buf, size,
			 "seq=%llu ts=%llu cpu=%u pid=%u tgid=%u comm=%s role=%s cause=%s "
			 "pfn=0x%llx order=%u from=%s to=%s gen=%u token=%016llx "
			 "prev_token=%016llx alloc=%u idx=%u ref=%d map=%d head=0x%llx "
			 "corder=%u pflags=0x%x ret=%d inner_ret=%d aux=0x%x gap=%u anomaly=%s "
			 "anomalies=0x%x\n",
			 r->seq, r->ts_ns, r->cpu, r->pid, r->tgid, comm, pt_role_name(r->role),
			 pt_cause_name(r->cause), r->pfn, r->order, pt_state_name(r->from_state),
			 pt_state_name(r->to_state), r->generation, r->token, r->prev_token,
			 r->alloc_seq, r->index, r->refcount, r->mapcount, r->head_pfn,
			 r->compound_order, r->page_flags, r->ret, r->inner_ret, r->aux,
			 !!(r->rflags & PT_RF_GAP), pt_anomaly_name(r->anomaly), r->anomalies);
}
