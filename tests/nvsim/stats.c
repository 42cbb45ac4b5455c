// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: counters, the debugfs tree (/sys/kernel/debug/nvsim/) and the
 * self-check. Tests assert on these numbers, so every one says what it
 * counts (nvsim_uapi.h) and the self-check states each invariant it tests:
 * pages_owned == clean + dirty + in-flight per pool; every chunk ever
 * allocated is in an allocation, in a pool, or freed; no pfn has two owners.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "nvsim.h"

struct nvsim_counters nvsim_stats;
char nvsim_last_insert_fail_comm[TASK_COMM_LEN];
char nvsim_foreign_comm[TASK_COMM_LEN];

static struct dentry *nvsim_debugfs;

void nvsim_chunk_freed(unsigned int order)
{
	nvsim_inc(chunks_freed);
	nvsim_add(pages_freed, 1UL << order);
}

struct nvsim_pool_counts {
	unsigned long owned, clean, dirty, inflight;
};

static unsigned long nvsim_count_list(const struct list_head *head)
{
	const struct list_head *pos;
	unsigned long n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

/*
 * Under the pool's lock, taken with down() directly: nvsim looking at its
 * own state must not show up as the driver's os_acquire_mutex().
 */
static void nvsim_pool_counts(nv_page_pool_t *mem_pool, struct nvsim_pool_counts *c)
{
	down(mem_pool->lock);
	c->owned = mem_pool->pages_owned;
	c->clean = nvsim_count_list(&mem_pool->clean_list);
	c->dirty = nvsim_count_list(&mem_pool->dirty_list);
	c->inflight = nvsim_pool_aux(mem_pool)->inflight ? 1 : 0;
	up(mem_pool->lock);
}

void nvsim_snapshot(struct nvsim_stats *out)
{
	struct nvsim_pool_counts c;
	nv_page_pool_t *mem_pool;
	unsigned int order;
	int node;

#define NVSIM_SNAP(name) out->name = atomic64_read(&nvsim_stats.name);
	NVSIM_STATS_FIELDS(NVSIM_SNAP)
#undef NVSIM_SNAP

	out->pool_pages_owned = 0;
	out->pool_clean = 0;
	out->pool_dirty = 0;
	out->pool_inflight = 0;
	for_each_nvsim_pool(node, order, mem_pool) {
		nvsim_pool_counts(mem_pool, &c);
		out->pool_pages_owned += c.owned;
		out->pool_clean += c.clean;
		out->pool_dirty += c.dirty;
		out->pool_inflight += c.inflight;
	}
}

/* ---- self-check ---- */

static struct nvsim_owner nvsim_pool_owner(unsigned long virt_addr, int node, unsigned int order,
					   u32 where)
{
	return (struct nvsim_owner) {
		.pfn = page_to_pfn(virt_to_page((void *)virt_addr)),
		.npages = 1UL << order,
		.kind = NVSIM_OWNER_POOL,
		.id = node,
		.index = order,
		.extra = where,		/* 0 clean, 1 dirty, 2 in-flight */
	};
}

static int nvsim_pools_collect(struct nvsim_owner *owners, int max)
{
	nv_page_pool_t *mem_pool;
	nv_page_pool_entry_t *entry;
	unsigned int order;
	int node, n = 0;

	for_each_nvsim_pool(node, order, mem_pool) {
		down(mem_pool->lock);
		list_for_each_entry(entry, &mem_pool->clean_list, list_node) {
			if (n == max)
				goto full;
			owners[n++] = nvsim_pool_owner(entry->virt_addr, node, order, 0);
		}
		list_for_each_entry(entry, &mem_pool->dirty_list, list_node) {
			if (n == max)
				goto full;
			owners[n++] = nvsim_pool_owner(entry->virt_addr, node, order, 1);
		}
		entry = nvsim_pool_aux(mem_pool)->inflight;
		if (entry) {
			if (n == max)
				goto full;
			owners[n++] = nvsim_pool_owner(entry->virt_addr, node, order, 2);
		}
		up(mem_pool->lock);
	}
	return n;
full:
	up(mem_pool->lock);
	return -ENOSPC;
}

static int nvsim_owner_cmp(const void *a, const void *b)
{
	const struct nvsim_owner *x = a, *y = b;

	if (x->pfn != y->pfn)
		return x->pfn < y->pfn ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

static void nvsim_owner_name(const struct nvsim_owner *o, char *buf, size_t len)
{
	static const char * const lists[] = { "clean", "dirty", "inflight" };

	switch (o->kind) {
	case NVSIM_OWNER_ALLOC:
		snprintf(buf, len, "alloc:%u:chunk:%u", o->id, o->index);
		break;
	case NVSIM_OWNER_POOL:
		snprintf(buf, len, "pool:node%u:order%u:%s", o->id, o->index,
			 lists[min_t(u32, o->extra, 2)]);
		break;
	case NVSIM_OWNER_PIN:
		snprintf(buf, len, "pin:%u:alloc:%u:page:%u", o->id, o->extra, o->index);
		break;
	}
}

/* Collect every owner claim; grows the array until everything fits. */
static struct nvsim_owner *nvsim_owners_collect(int *count)
{
	int max = (int)(nvsim_read(chunks_live) + nvsim_read(fault_pins_live)) + 256;
	struct nvsim_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	struct nvsim_owner *owners;
	int a, p, q;

	if (!st)
		return NULL;
	nvsim_snapshot(st);
	max += (int)st->pool_pages_owned;
	kfree(st);

	for (;;) {
		owners = kvmalloc_array(max, sizeof(*owners), GFP_KERNEL);
		if (!owners)
			return NULL;
		mutex_lock(&nvsim_allocs_lock);
		a = nvsim_allocs_collect_locked(owners, max);
		mutex_unlock(&nvsim_allocs_lock);
		p = a < 0 ? a : nvsim_pools_collect(owners + a, max - a);
		q = p < 0 ? p : nvsim_fault_pins_collect(owners + a + p, max - a - p);
		if (q >= 0) {
			*count = a + p + q;
			return owners;
		}
		kvfree(owners);
		max *= 2;
	}
}

static unsigned int nvsim_check_doubles(struct nvsim_selfcheck *out, struct seq_file *m)
{
	struct nvsim_owner *owners;
	unsigned long end;
	int n, i, widest;
	char a[48], b[48];

	owners = nvsim_owners_collect(&n);
	if (!owners) {
		pr_warn("nvsim: selfcheck: no memory for the ownership check\n");
		return 1;
	}
	sort(owners, n, sizeof(*owners), nvsim_owner_cmp, NULL);

	widest = 0;
	end = n ? owners[0].pfn + owners[0].npages : 0;
	for (i = 1; i < n; i++) {
		if (owners[i].pfn < end) {
			nvsim_owner_name(&owners[widest], a, sizeof(a));
			nvsim_owner_name(&owners[i], b, sizeof(b));
			pr_warn("nvsim: selfcheck: pfn 0x%lx owned twice: %s and %s\n",
				owners[i].pfn, a, b);
			if (m)
				seq_printf(m, "double pfn=0x%lx owner1=%s owner2=%s\n",
					   owners[i].pfn, a, b);
			if (out->double_owned < NVSIM_SELFCHECK_MAX_DOUBLE)
				out->double_pfn[out->double_owned] = owners[i].pfn;
			out->double_owned++;
		}
		if (owners[i].pfn + owners[i].npages > end) {
			end = owners[i].pfn + owners[i].npages;
			widest = i;
		}
	}
	if (m)
		seq_printf(m, "owners=%d\n", n);
	kvfree(owners);
	return out->double_owned;
}

static unsigned int nvsim_check_pools(struct seq_file *m)
{
	struct nvsim_pool_counts c;
	nv_page_pool_t *mem_pool;
	unsigned int order, bad = 0;
	int node;

	for_each_nvsim_pool(node, order, mem_pool) {
		bool ok;

		nvsim_pool_counts(mem_pool, &c);
		ok = c.owned == c.clean + c.dirty + c.inflight;
		if (!ok) {
			bad++;
			pr_warn("nvsim: selfcheck: pool node %d order %u: pages_owned %lu != clean %lu + dirty %lu + inflight %lu\n",
				node, order, c.owned, c.clean, c.dirty, c.inflight);
		}
		if (m)
			seq_printf(m, "pool node=%d order=%u pages_owned=%lu clean=%lu dirty=%lu inflight=%lu %s\n",
				   node, order, c.owned, c.clean, c.dirty, c.inflight,
				   ok ? "ok" : "BAD");
	}
	return bad;
}

/*
 * Chunk conservation. Counters move outside the pool locks, so a busy
 * system can show a passing mismatch: retry a while before calling it one.
 */
static unsigned int nvsim_check_accounting(struct seq_file *m)
{
	struct nvsim_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	u64 held = 0;
	bool ok = false;
	int tries;

	if (!st) {
		pr_warn("nvsim: selfcheck: no memory for the accounting check\n");
		return 1;
	}
	for (tries = 0; tries < 50 && !ok; tries++) {
		if (tries)
			msleep(20);
		nvsim_snapshot(st);
		held = st->chunks_live + st->pool_pages_owned + st->chunks_freed +
		       st->chunks_contained + st->chunks_transit;
		ok = held == st->chunks_fresh;
	}
	if (!ok)
		pr_warn("nvsim: selfcheck: chunks_fresh %llu != live %llu + pooled %llu + freed %llu + contained %llu + transit %llu\n",
			st->chunks_fresh, st->chunks_live, st->pool_pages_owned, st->chunks_freed,
			st->chunks_contained, st->chunks_transit);
	if (m)
		seq_printf(m, "accounting chunks_fresh=%llu chunks_live=%llu pool_pages_owned=%llu chunks_freed=%llu chunks_contained=%llu chunks_transit=%llu %s\n",
			   st->chunks_fresh, st->chunks_live, st->pool_pages_owned,
			   st->chunks_freed, st->chunks_contained, st->chunks_transit,
			   ok ? "ok" : "BAD");
	kfree(st);
	return ok ? 0 : 1;
}

int nvsim_selfcheck(struct nvsim_selfcheck *out, struct seq_file *m)
{
	memset(out, 0, sizeof(*out));
	out->pools_bad = nvsim_check_pools(m);
	out->accounting_bad = nvsim_check_accounting(m);
	nvsim_check_doubles(out, m);
	out->errors = out->pools_bad + out->accounting_bad + out->double_owned;

	nvsim_inc(selfcheck_runs);
	nvsim_set(selfcheck_errors, out->errors);
	nvsim_set(selfcheck_double_owned, out->double_owned);
	nvsim_set(selfcheck_double_pfn, out->double_owned ? out->double_pfn[0] : 0);
	if (m)
		seq_printf(m, "selfcheck errors=%u pools_bad=%u accounting_bad=%u double_owned=%u result=%s\n",
			   out->errors, out->pools_bad, out->accounting_bad, out->double_owned,
			   out->errors ? "fail" : "ok");
	pr_info("nvsim: selfcheck: errors=%u pools_bad=%u accounting_bad=%u double_owned=%u\n",
		out->errors, out->pools_bad, out->accounting_bad, out->double_owned);
	return 0;
}

/* ---- debugfs ---- */

static int nvsim_stats_show(struct seq_file *m, void *v)
{
	struct nvsim_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	struct nvsim_pool_counts c;
	nv_page_pool_t *mem_pool;
	unsigned int order;
	int node;

	if (!st)
		return -ENOMEM;
	nvsim_snapshot(st);
#define NVSIM_SHOW(name) seq_printf(m, "%s=%lld\n", #name, (long long)st->name);
	NVSIM_STATS_FIELDS(NVSIM_SHOW)
#undef NVSIM_SHOW
	kfree(st);

	seq_printf(m, "last_insert_fail_comm=%s\n", nvsim_last_insert_fail_comm);
	seq_printf(m, "fault_foreign_comm=%s\n", nvsim_foreign_comm);
	seq_printf(m, "mode_noncomp=%d\nmode_stale_context=%d\nmode_foreign_put=%d\nmode_pinned_admit=%d\n",
		   fault_noncomp, fault_stale_context, fault_foreign_put, fault_pinned_admit);
	seq_printf(m, "mode_admit_atomic=%u\nmode_release_race=%u\ninline_helpers=%d\nstatic_pool=%d\n",
		   READ_ONCE(fault_admit_atomic), READ_ONCE(fault_release_race),
		   IS_ENABLED(NVSIM_INLINE_HELPERS), IS_ENABLED(NVSIM_STATIC_POOL));
	seq_printf(m, "enable_system_memory_pools=0x%x\nnv_max_page_order=%d\n",
		   NVreg_EnableSystemMemoryPools, NV_MAX_PAGE_ORDER);

	for_each_nvsim_pool(node, order, mem_pool) {
		nvsim_pool_counts(mem_pool, &c);
		seq_printf(m, "pool_n%d_o%u_pages_owned=%lu\npool_n%d_o%u_clean=%lu\npool_n%d_o%u_dirty=%lu\npool_n%d_o%u_inflight=%lu\n",
			   node, order, c.owned, node, order, c.clean, node, order, c.dirty,
			   node, order, c.inflight);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvsim_stats);

static int nvsim_selfcheck_show(struct seq_file *m, void *v)
{
	struct nvsim_selfcheck sc;

	return nvsim_selfcheck(&sc, m);
}
DEFINE_SHOW_ATTRIBUTE(nvsim_selfcheck);

static int nvsim_allocs_file_show(struct seq_file *m, void *v)
{
	nvsim_allocs_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvsim_allocs_file);

/*
 * "drain": let every scrubber empty its dirty list (shell-side NVSIM_IOC_DRAIN);
 * "empty": reclaim every pooled chunk through the pools' shrinker scan.
 */
static ssize_t nvsim_control_write(struct file *file, const char __user *ubuf, size_t len,
				   loff_t *ppos)
{
	char buf[16];
	size_t n = min(len, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	if (sysfs_streq(buf, "drain")) {
		nvsim_drain_pools();
		return len;
	}
	if (sysfs_streq(buf, "empty")) {
		nvsim_empty_pools();
		return len;
	}
	nvsim_inc(ioctl_rejected);
	return -EINVAL;
}

static const struct file_operations nvsim_control_fops = {
	.owner = THIS_MODULE,
	.write = nvsim_control_write,
};

int nvsim_debugfs_init(void)
{
	nvsim_debugfs = debugfs_create_dir("nvsim", NULL);
	/* Counters still reach userspace through NVSIM_IOC_STATS. */
	if (IS_ERR(nvsim_debugfs)) {
		pr_warn("nvsim: no debugfs (%ld): stats only through the ioctl\n",
			PTR_ERR(nvsim_debugfs));
		nvsim_debugfs = NULL;
		return 0;
	}
	debugfs_create_file("stats", 0444, nvsim_debugfs, NULL, &nvsim_stats_fops);
	debugfs_create_file("selfcheck", 0444, nvsim_debugfs, NULL, &nvsim_selfcheck_fops);
	debugfs_create_file("allocs", 0444, nvsim_debugfs, NULL, &nvsim_allocs_file_fops);
	debugfs_create_file("control", 0200, nvsim_debugfs, NULL, &nvsim_control_fops);
	return 0;
}

void nvsim_debugfs_exit(void)
{
	debugfs_remove_recursive(nvsim_debugfs);
	nvsim_debugfs = NULL;
}
