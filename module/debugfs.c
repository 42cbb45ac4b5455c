// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the debugfs tree /sys/kernel/debug/pagetrail/ (root only):
 * control, stats, events, events.bin, pages, anomalies, coverage.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/cpumask.h>
#include <linux/kallsyms.h>
#include <linux/mutex.h>
#include <pagetrail/clock.h>
#include <pagetrail/debugfs.h>
#include <pagetrail/control.h>
#include <pagetrail/ring.h>
#include <pagetrail/tracker.h>
#include <pagetrail/record.h>
#include <pagetrail/rules.h>
#include <pagetrail/frames.h>
#include <pagetrail/pagesample.h>
#include <pagetrail/recorder.h>
#include <pagetrail/target.h>
#include <pagetrail/profile.h>
#include <pagetrail/devcg.h>
#include <pagetrail/hotprof.h>
#include <pagetrail/probes.h>
#include <pagetrail/hold.h>
#include <pagetrail/stage.h>

static struct dentry *pt_dir;
static const struct pt_profile *pt_dbg_prof;

/* --- control ----------------------------------------------------------- */

static int pt_control_show(struct seq_file *m, void *v)
{
	/* Record first: a freeze on anomaly is decided by the interpreter. */
	pt_stage_drain();
	pt_target_show(m);
	pt_dbg_prof->show_control(m);
	seq_printf(m, "frozen=%d\noverwrite=%d\nfreeze_on_anomaly=%d\n",
		   pt_recorder_frozen(), pt_ring_overwrite(),
		   pt_recorder_freeze_on_anomaly());
	pt_devcg_show_state(m);
	return 0;
}

static int pt_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, pt_control_show, NULL);
}

/* What "reset" clears besides the table, with every writer held off. */
static void pt_reset_counters(void)
{
	pt_ring_reset();
	pt_frames_reset_stats();
	pt_dbg_prof->reset_stats();
}

static ssize_t pt_control_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[72];
	struct pt_cmd cmd;
	const char *why;
	int ret;

	if (len >= sizeof(buf)) {
		pr_warn("control: command too long (%zu bytes)\n", len);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	ret = pt_control_parse(buf, len, &cmd, &why);
	if (ret) {
		pr_warn("control: %s\n", why);
		return ret;
	}
	/* Record first: what was observed before the command is before it. */
	pt_stage_drain();
	switch (cmd.op) {
	case PT_CMD_ATTACH:
		ret = pt_target_attach();
		break;
	case PT_CMD_DETACH:
		pt_target_detach();
		break;
	case PT_CMD_FREEZE:
		pt_recorder_freeze(true);
		break;
	case PT_CMD_THAW:
		pt_recorder_freeze(false);
		break;
	case PT_CMD_RESET:
		pt_tracker_reset(pt_reset_counters);
		pt_devcg_reset();
		break;
	case PT_CMD_OVERWRITE:
		pt_ring_set_overwrite(cmd.value);
		break;
	case PT_CMD_FREEZE_ON_ANOMALY:
		pt_recorder_set_freeze_on_anomaly(cmd.value);
		break;
	case PT_CMD_DEVCG:
		ret = pt_devcg_set_enabled(cmd.value);
		break;
	case PT_CMD_DEVCG_MAJOR:
		ret = pt_devcg_set_major(cmd.number);
		break;
	}
	return ret ? ret : len;
}

static const struct file_operations pt_control_fops = {
	.owner = THIS_MODULE,
	.open = pt_control_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = pt_control_write,
};

/* --- stats and coverage ------------------------------------------------ */

/* Record first: the staging rings and their consumer (stage.h). */
static void pt_stats_show_stage(struct seq_file *m,
				const struct pt_tracker_stats *ts)
{
	struct pt_stage_stats ss;

	seq_printf(m, "clock=%s\n", pt_clock_name());
	seq_printf(m, "record_first=%d\n", pt_stage_enabled());
	seq_printf(m, "probe_only=%d\n", pt_param_probe_only);
	if (!pt_stage_enabled())
		return;
	pt_stage_get_stats(&ss);
	seq_printf(
		m,
		"stage_observed=%llu\nstage_consumed=%llu\nstage_buffered=%llu\n"
		"stage_lost=%llu\nstage_unaccounted=%lld\nstage_stacks=%llu\n"
		"stage_stacks_lost=%llu\nstage_consumer_runs=%llu\n"
		"stage_consumer_ns=%llu\nstage_lag_max_ns=%llu\n"
		"stage_shared_writes=%llu\nanomalies_unstacked=%llu\n",
		ss.observed, ss.consumed, ss.buffered, ss.lost,
		(s64)(ss.observed - ss.consumed - ss.buffered - ss.lost),
		ss.stacks, ss.stacks_lost, ss.consumer_runs, ss.consumer_ns,
		ss.lag_max_ns, ss.shared_writes, ts->anomalies_unstacked);
	seq_printf(m, "stage_held_dropped=%llu\nstage_unheld=%llu\n",
		   pt_hold_dropped(), pt_hold_unheld());
	seq_printf(m,
		   "stage_slots=%llu\nstage_slot_bytes=%zu\nstage_wide=%llu\n",
		   ss.slots, pt_stage_slot_bytes(), ss.wide);
}

static int pt_stats_show(struct seq_file *m, void *v)
{
	struct pt_ring_stats rs;
	struct pt_tracker_stats *ts;
	struct pt_frames_stats fs;
	unsigned int i;

	ts = kmalloc(sizeof(*ts), GFP_KERNEL);
	if (!ts)
		return -ENOMEM;
	pt_stage_drain();
	pt_target_show(m);
	pt_recorder_ring_stats(&rs);
	seq_printf(
		m,
		"ring_produced=%llu\nring_read=%llu\nring_buffered=%llu\n"
		"ring_overwritten=%llu\nring_dropped_full=%llu\nring_dropped_frozen=%llu\n"
		"ring_lost=%llu\nring_unaccounted=%lld\n",
		rs.produced, rs.read, rs.buffered, rs.overwritten,
		rs.dropped_full, rs.dropped_frozen, pt_ring_lost(&rs),
		pt_ring_unaccounted(&rs));
	pt_tracker_get_stats(ts);
	seq_printf(
		m,
		"tracked=%llu\ncapacity=%llu\nrecycled=%llu\ntracker_full=%llu\n"
		"filter_used=%llu\ngaps=%llu\nanomalies=%llu\nanomalies_dropped=%llu\n"
		"anomalies_repeated=%llu\n",
		ts->tracked, ts->capacity, ts->recycled, ts->full,
		ts->filter_used, ts->gaps, ts->anomalies, ts->anomalies_dropped,
		ts->anomalies_repeated);
	pt_stats_show_stage(m, ts);
	seq_printf(
		m,
		"table_bytes=%llu\nfixed_bytes=%llu\nbytes_per_chunk=%llu\nhistory_entries=%llu\n"
		"shards=%llu\nshard_locked=%llu\nshard_contended_same=%llu\nshard_contended_other=%llu\n",
		ts->table_bytes, ts->fixed_bytes, ts->bytes_per_chunk,
		ts->history_entries, ts->shards, ts->shard_locked,
		ts->shard_contended_same, ts->shard_contended_other);
	for (i = 1; i < PT_ROLE_MAX; i++)
		seq_printf(m, "events_%s=%llu\n", pt_role_name(i),
			   ts->events_by_role[i]);
	for (i = 1; i < PT_AN_MAX; i++)
		seq_printf(m, "anomaly_%s=%llu\n", pt_anomaly_name(i),
			   ts->anomalies_by_kind[i]);
	pt_frames_get_stats(&fs);
	seq_printf(
		m,
		"frames_overflow=%llu\nframes_unbalanced=%llu\nframes_in_use=%u\nframe_slots=%u\n",
		fs.overflow, fs.unbalanced, fs.in_use, fs.slots);
	seq_printf(m, "refs_transient=%llu\n", pt_sample_transient_refs());
	pt_dbg_prof->show_stats(m);
	pt_hotprof_show(m);
	kfree(ts);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_stats);

static int pt_coverage_show(struct seq_file *m, void *v)
{
	struct pt_tracker_stats *ts;
	unsigned int i;

	ts = kmalloc(sizeof(*ts), GFP_KERNEL);
	if (!ts)
		return -ENOMEM;
	pt_stage_drain();
	pt_dbg_prof->show_probes(m);
	pt_tracker_get_stats(ts);
	for (i = 1; i < PT_ROLE_MAX; i++)
		seq_printf(m, "role=%s events=%llu gaps=%llu\n",
			   pt_role_name(i), ts->events_by_role[i],
			   ts->gaps_by_role[i]);
	seq_printf(m, "gaps_total=%llu\ntracker_full=%llu\n", ts->gaps,
		   ts->full);
	kfree(ts);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_coverage);

/* --- events (text) and events.bin: consuming reads of the ring ---------- */

/*
 * One per open file. read(2) on a shared file is serialised by f_pos_lock,
 * but io_uring runs reads of one file on parallel io-wq workers: the lock
 * keeps off <= len for them too.
 */
struct pt_text_reader {
	struct mutex lock; /* line, len, off */
	char line[640];
	size_t len;
	size_t off;
};

static int pt_events_open(struct inode *inode, struct file *file)
{
	struct pt_text_reader *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	mutex_init(&r->lock);
	file->private_data = r;
	return nonseekable_open(inode, file);
}

static int pt_events_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/*
 * Whole lines: a line that does not fit waits for the next read, so that a
 * reader taking fixed-size chunks never sees one cut in two. Only a buffer
 * smaller than one line gets that line in pieces.
 */
static ssize_t pt_events_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct pt_text_reader *r = file->private_data;
	struct pagetrail_record rec;
	size_t done = 0, n;

	pt_stage_drain();
	if (mutex_lock_interruptible(&r->lock))
		return -ERESTARTSYS;
	if (WARN_ON_ONCE(r->off > r->len))
		r->off = r->len; /* drop the line rather than read past it */
	while (done < count) {
		if (r->off == r->len) {
			if (!pt_ring_read(&rec))
				break;
			r->len = pt_record_format(&rec, r->line,
						  sizeof(r->line));
			r->off = 0;
		}
		if (done && r->len - r->off > count - done)
			break; /* kept in r->line for the next read */
		n = min(count - done, r->len - r->off);
		if (copy_to_user(ubuf + done, r->line + r->off, n)) {
			mutex_unlock(&r->lock);
			return done ? done : -EFAULT;
		}
		r->off += n;
		done += n;
	}
	mutex_unlock(&r->lock);
	*ppos += done;
	return done;
}

static const struct file_operations pt_events_fops = {
	.owner = THIS_MODULE,
	.open = pt_events_open,
	.release = pt_events_release,
	.read = pt_events_read,
};

/* The header at offset 0 of every open, then whole records until empty. */
static ssize_t pt_events_bin_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct pagetrail_file_header hdr;
	struct pagetrail_record rec;
	size_t done = 0;

	pt_stage_drain();
	if (*ppos == 0) {
		if (count < sizeof(hdr))
			return -EINVAL;
		pt_file_header_init(&hdr, num_possible_cpus());
		if (copy_to_user(ubuf, &hdr, sizeof(hdr)))
			return -EFAULT;
		done = sizeof(hdr);
	}
	if (count - done < sizeof(rec) && done == 0)
		return -EINVAL; /* would lose a record: the reader's buffer is too small */
	while (count - done >= sizeof(rec) && pt_ring_read(&rec)) {
		if (copy_to_user(ubuf + done, &rec, sizeof(rec)))
			return done ? done : -EFAULT;
		done += sizeof(rec);
	}
	*ppos += done;
	return done;
}

static const struct file_operations pt_events_bin_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.read = pt_events_bin_read,
};

/* --- pages: the state table -------------------------------------------- */

struct pt_pages_iter {
	struct pt_page_view view;
	loff_t slot;
};

static void *pt_pages_next_used(struct seq_file *m, loff_t *pos)
{
	struct pt_pages_iter *it = m->private;

	for (; *pos < pt_tracker_slots(); (*pos)++) {
		if (pt_tracker_page_at(*pos, &it->view)) {
			it->slot = *pos;
			return it;
		}
	}
	return NULL;
}

static void *pt_pages_start(struct seq_file *m, loff_t *pos)
{
	if (*pos == 0)
		seq_puts(
			m,
			"# pfn order state gen token prev_token alloc prev_alloc idx gaps anomalies last\n");
	return pt_pages_next_used(m, pos);
}

static void *pt_pages_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return pt_pages_next_used(m, pos);
}

static void pt_pages_stop(struct seq_file *m, void *v)
{
}

static int pt_pages_show(struct seq_file *m, void *v)
{
	const struct pt_page_view *p = &((struct pt_pages_iter *)v)->view;
	const struct pt_hist *h = p->hist_len ? &p->hist[p->hist_len - 1] :
						NULL;

	seq_printf(
		m,
		"pfn=0x%llx order=%u state=%s gen=%u token=%016llx prev_token=%016llx alloc=%u prev_alloc=%u idx=%u gaps=%u anomalies=%u",
		p->pfn, p->order, pt_state_name(p->state), p->generation,
		p->token, p->prev_token, p->alloc_seq, p->prev_alloc_seq,
		p->index, p->gaps, p->anomalies);
	if (h)
		seq_printf(m, " last=%s pid=%u comm=%.16s cpu=%u ts=%llu",
			   pt_role_name(h->role), h->pid, h->comm, h->cpu,
			   h->ts_ns);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations pt_pages_sops = {
	.start = pt_pages_start,
	.next = pt_pages_next,
	.stop = pt_pages_stop,
	.show = pt_pages_show,
};

static int pt_pages_open(struct inode *inode, struct file *file)
{
	pt_stage_drain();
	return seq_open_private(file, &pt_pages_sops,
				sizeof(struct pt_pages_iter));
}

static const struct file_operations pt_pages_fops = {
	.owner = THIS_MODULE,
	.open = pt_pages_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release_private,
};

/* --- anomalies: each with the page's history and the culprit's stack ---- */

static void pt_show_kinds(struct seq_file *m, u32 kinds)
{
	unsigned long k = kinds;
	unsigned int bit;
	bool first = true;

	for_each_set_bit(bit, &k, PT_AN_MAX) {
		seq_printf(m, "%s%s", first ? "" : ",", pt_anomaly_name(bit));
		first = false;
	}
}

/*
 * A return address by name only: once its module is gone %pS would print
 * the raw address, and no kernel pointer leaves pagetrail.
 */
static void pt_show_frame(struct seq_file *m, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	seq_printf(m, "    %s\n", strncmp(sym, "0x", 2) ? sym : "?");
}

static void pt_show_anomaly(struct seq_file *m, unsigned int i,
			    const struct pt_anomaly_entry *a)
{
	const struct pagetrail_record *r = &a->rec;
	unsigned int k;

	seq_printf(m, "anomaly=%u kind=", i + 1);
	pt_show_kinds(m, r->anomalies);
	seq_printf(
		m,
		" seq=%llu role=%s cause=%s pfn=0x%llx order=%u state=%s->%s gen=%u token=%016llx prev_token=%016llx alloc=%u prev_alloc=%u idx=%u",
		r->seq, pt_role_name(r->role), pt_cause_name(r->cause), r->pfn,
		r->order, pt_state_name(r->from_state),
		pt_state_name(r->to_state), r->generation, r->token,
		r->prev_token, r->alloc_seq, r->prev_alloc_seq, r->index);
	if (r->rflags & PT_RF_SAMPLED)
		seq_printf(m,
			   " ref=%d map=%d head=0x%llx corder=%u pflags=0x%x",
			   r->refcount, r->mapcount, r->head_pfn,
			   r->compound_order, r->page_flags);
	seq_printf(m, " ret=%d pid=%u tgid=%u comm=%.16s cpu=%u ts=%llu\n",
		   r->ret, r->pid, r->tgid, r->comm, r->cpu, r->ts_ns);
	seq_printf(
		m,
		"  history pfn=0x%llx gen=%u gaps=%u (oldest first, last %u):\n",
		a->page.pfn, a->page.generation, a->page.gaps,
		a->page.hist_len);
	for (k = 0; k < a->page.hist_len; k++) {
		const struct pt_hist *h = &a->page.hist[k];

		seq_printf(
			m,
			"    ts=%llu role=%s cause=%s to=%s gen=%u token=%016llx pid=%u comm=%.16s cpu=%u%s%s%s\n",
			h->ts_ns, pt_role_name(h->role),
			pt_cause_name(h->cause), pt_state_name(h->to_state),
			h->generation, h->token, h->pid, h->comm, h->cpu,
			h->gap ? " gap=1" : "", h->anomaly ? " anomaly=" : "",
			h->anomaly ? pt_anomaly_name(h->anomaly) : "");
	}
	seq_puts(m, "  stack:\n");
	for (k = 0; k < a->nr_stack; k++)
		pt_show_frame(m, a->stack[k]);
}

static int pt_anomalies_show(struct seq_file *m, void *v)
{
	struct pt_anomaly_entry *a;
	unsigned int i, n;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	pt_stage_drain();
	n = pt_anomaly_count();
	for (i = 0; i < n; i++)
		if (pt_anomaly_copy(i, a))
			pt_show_anomaly(m, i, a);
	kfree(a);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pt_anomalies);

int pt_debugfs_init(const struct pt_profile *profile)
{
	pt_dbg_prof = profile;
	pt_dir = debugfs_create_dir("pagetrail", NULL);
	if (IS_ERR(pt_dir))
		return PTR_ERR(pt_dir);
	debugfs_create_file("control", 0600, pt_dir, NULL, &pt_control_fops);
	debugfs_create_file("stats", 0400, pt_dir, NULL, &pt_stats_fops);
	debugfs_create_file("coverage", 0400, pt_dir, NULL, &pt_coverage_fops);
	debugfs_create_file("events", 0400, pt_dir, NULL, &pt_events_fops);
	debugfs_create_file("events.bin", 0400, pt_dir, NULL,
			    &pt_events_bin_fops);
	debugfs_create_file("pages", 0400, pt_dir, NULL, &pt_pages_fops);
	debugfs_create_file("anomalies", 0400, pt_dir, NULL,
			    &pt_anomalies_fops);
	debugfs_create_file("denials", 0400, pt_dir, NULL,
			    &pt_devcg_denials_fops);
	return 0;
}

void pt_debugfs_exit(void)
{
	debugfs_remove_recursive(pt_dir);
}
