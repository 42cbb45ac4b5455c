// SPDX-License-Identifier: GPL-2.0
/*
 * ppmis: misuses the kernel's own network page_pool through its exported API,
 * one mistake per mode, so that pagetrail's pagepool profile has real pool
 * code to catch a known culprit in. The pool is the kernel's; only this
 * caller is wrong.
 *
 *   echo 'run MODE' > /sys/kernel/debug/ppmis/control
 *	commits MODE's mistake in the writing thread and leaves the damage
 *	(clean: correct use of three pools, all destroyed again)
 *   echo repair > /sys/kernel/debug/ppmis/control
 *	undoes what the last mode left and destroys its pools (the next run
 *	and module unload do it too), so that every pool is freed
 *   cat /sys/kernel/debug/ppmis/report (root only)
 *	mode, the writer's pid and comm, the pools in creation order, the
 *	pfn of every misused page and the kernel report the mistake causes
 *	on this kernel. Pool pointers are raw, as the page_pool tracepoints
 *	print them with tracefs' hash-ptr option off: a guest without an
 *	entropy source prints every hashed %p as "(____ptrval____)" for
 *	minutes after boot, which would make all pools one.
 *
 * Modes: clean, double_recycle, put_page_inflight, get_then_take,
 * wrong_pool, frag_over_release, direct_after_destroy.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * Version differences of the page_pool API, all in one place, tested by
 * feature rather than by version number (6.12 stable changed page_pool).
 * The header was split into types.h and helpers.h in 6.6 (Kbuild looks).
 */
#ifdef PPMIS_PP_HELPERS_H
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/*
 * Until 6.6 only a pool created with PP_FLAG_PAGE_FRAG hands out fragments
 * (6.1's page_pool_alloc_frag() warns otherwise); later every pool does and
 * the flag is gone.
 */
#ifdef PP_FLAG_PAGE_FRAG
#define PPMIS_FRAG_FLAGS PP_FLAG_PAGE_FRAG
#else
#define PPMIS_FRAG_FLAGS 0
#endif

/*
 * Since 6.12.35 (and in 7.x) the buddy allocator refuses a page that still
 * carries the page_pool signature: bad_page(..., "page_pool leak"). That
 * came with the DMA index bits in pp_magic. 6.1 frees such a page without
 * a word.
 */
#ifdef PP_DMA_INDEX_SHIFT
#define PPMIS_FOREIGN_FREE_REPORT "bad_page"
#else
#define PPMIS_FOREIGN_FREE_REPORT "none"
#endif

#define PPMIS_POOLS 3
#define PPMIS_MISUSED 2
#define PPMIS_CLEAN_PAGES 200
#define PPMIS_FRAG_SIZE 1024

struct ppmis_pool {
	struct page_pool *pool;	/* NULL once destroyed */
	const void *id;		/* the pointer, kept for the report */
	bool frag;
};

struct ppmis_misuse {
	unsigned long pfn;
	int pool;
	int into;		/* the pool it was recycled into, or -1 */
};

/* The last run: what the report shows and what repair undoes. */
static struct {
	char mode[24];
	pid_t pid;
	char comm[TASK_COMM_LEN];
	int result;
	const char *kernel_report;
	unsigned int taken, frags;
	int npools;
	struct ppmis_pool pools[PPMIS_POOLS];
	int nmisused;
	struct ppmis_misuse misused[PPMIS_MISUSED];
	void (*repair)(void);
	struct page *page;	/* the misused page, for repair */
	struct page *other;	/* a second page repair must give back */
	struct page_pool *dying; /* destroyed, but waiting for run.page */
} run;

static DEFINE_MUTEX(ppmis_lock);
static struct dentry *ppmis_dir;
static struct page *clean_pages[PPMIS_CLEAN_PAGES];

static struct page_pool *ppmis_create(bool frag)
{
	struct page_pool_params pp = {
		.flags = frag ? PPMIS_FRAG_FLAGS : 0,
		.order = 0,
		.pool_size = 256,
		.nid = NUMA_NO_NODE,
	};
	struct page_pool *pool;
	struct ppmis_pool *p;

	if (run.npools == PPMIS_POOLS)
		return ERR_PTR(-ENOSPC);
	pool = page_pool_create(&pp);
	if (IS_ERR(pool)) {
		pr_warn("page_pool_create: %ld\n", PTR_ERR(pool));
		return pool;
	}
	p = &run.pools[run.npools++];
	p->pool = pool;
	p->id = pool;
	p->frag = frag;
	return pool;
}

static void ppmis_destroy(int i)
{
	if (!run.pools[i].pool)
		return;
	page_pool_destroy(run.pools[i].pool);
	run.pools[i].pool = NULL;
}

/* A pool's consumer runs in softirq context (NAPI): so does this one. */
static struct page *ppmis_take(struct page_pool *pool)
{
	struct page *page;

	local_bh_disable();
	page = page_pool_dev_alloc_pages(pool);
	local_bh_enable();
	run.taken += !!page;
	return page;
}

static struct page *ppmis_take_frag(struct page_pool *pool, unsigned int size)
{
	unsigned int offset;
	struct page *page;

	local_bh_disable();
	page = page_pool_dev_alloc_frag(pool, &offset, size);
	local_bh_enable();
	run.frags += !!page;
	return page;
}

static void ppmis_recycle_direct(struct page_pool *pool, struct page *page)
{
	local_bh_disable();
	page_pool_recycle_direct(pool, page);
	local_bh_enable();
}

static void ppmis_put(struct page_pool *pool, struct page *page)
{
	local_bh_disable();
	page_pool_put_full_page(pool, page, false);
	local_bh_enable();
}

static void ppmis_misused(struct page *page, int pool, int into)
{
	struct ppmis_misuse *m;

	if (run.nmisused == PPMIS_MISUSED)
		return;
	m = &run.misused[run.nmisused++];
	m->pfn = page_to_pfn(page);
	m->pool = pool;
	m->into = into;
}

/* Correct use: three pools, cache, ring and fragments, all given back. */
static int mode_clean(void)
{
	struct page_pool *a, *b, *f;
	struct page *page;
	int i, n;

	a = ppmis_create(false);
	b = ppmis_create(false);
	f = ppmis_create(true);
	if (IS_ERR(a) || IS_ERR(b) || IS_ERR(f))
		return -ENOMEM;
	for (n = 0; n < PPMIS_CLEAN_PAGES; n++) {
		clean_pages[n] = ppmis_take(a);
		if (!clean_pages[n])
			break;
	}
	/* half into the cache, half into the ring */
	for (i = 0; i < n; i++) {
		if (i & 1)
			ppmis_put(a, clean_pages[i]);
		else
			ppmis_recycle_direct(a, clean_pages[i]);
	}
	/* taken again from cache and ring (refill), recycled direct */
	for (i = 0; i < n; i++)
		clean_pages[i] = ppmis_take(a);
	for (i = 0; i < n; i++)
		if (clean_pages[i])
			ppmis_recycle_direct(a, clean_pages[i]);
	for (i = 0; i < 64; i++) {
		page = ppmis_take(b);
		if (page)
			ppmis_put(b, page);
	}
	/* four fragments per page, each put back once */
	for (i = 0; i < 16; i++) {
		page = ppmis_take_frag(f, PPMIS_FRAG_SIZE);
		if (page)
			ppmis_put(f, page);
	}
	ppmis_destroy(0);
	ppmis_destroy(1);
	ppmis_destroy(2);
	return n == PPMIS_CLEAN_PAGES ? 0 : -ENOMEM;
}

/* The page recycled twice: it sits in the alloc cache twice. */
static void repair_double_recycle(void)
{
	struct page *p1, *p2;

	p1 = ppmis_take(run.pools[0].pool);
	p2 = ppmis_take(run.pools[0].pool);
	if (p1 == run.page && p2 == run.page) {
		ppmis_recycle_direct(run.pools[0].pool, run.page);
	} else {
		pr_err("double_recycle: cache did not hold the page twice, pool left\n");
		return;
	}
	ppmis_destroy(0);
}

static int mode_double_recycle(void)
{
	struct page_pool *a = ppmis_create(false);

	if (IS_ERR(a))
		return PTR_ERR(a);
	run.page = ppmis_take(a);
	if (!run.page)
		return -ENOMEM;
	ppmis_misused(run.page, 0, 0);
	ppmis_recycle_direct(a, run.page);
	ppmis_recycle_direct(a, run.page);
	run.repair = repair_double_recycle;
	return 0;
}

/*
 * The page went to the buddy allocator behind the pool's back, so the pool
 * counts it in flight for ever. Its books are balanced by hand (the one
 * field this module touches directly) so that destroy can free it.
 */
static void repair_put_page_inflight(void)
{
	atomic_inc(&run.pools[0].pool->pages_state_release_cnt);
	ppmis_destroy(0);
}

static int mode_put_page_inflight(void)
{
	struct page_pool *a = ppmis_create(false);

	if (IS_ERR(a))
		return PTR_ERR(a);
	run.page = ppmis_take(a);
	if (!run.page)
		return -ENOMEM;
	ppmis_misused(run.page, 0, -1);
	run.kernel_report = PPMIS_FOREIGN_FREE_REPORT;
	run.repair = repair_put_page_inflight;
	put_page(run.page);
	return 0;
}

/* The page was handed out again with the stale reference still on it. */
static void repair_get_then_take(void)
{
	put_page(run.page);
	ppmis_recycle_direct(run.pools[0].pool, run.other);
	ppmis_destroy(0);
}

static int mode_get_then_take(void)
{
	struct page_pool *a = ppmis_create(false);

	if (IS_ERR(a))
		return PTR_ERR(a);
	run.page = ppmis_take(a);
	if (!run.page)
		return -ENOMEM;
	ppmis_misused(run.page, 0, -1);
	ppmis_recycle_direct(a, run.page);
	get_page(run.page);
	run.other = ppmis_take(a);
	run.repair = repair_get_then_take;
	if (run.other != run.page) {
		pr_err("get_then_take: the pool handed out another page\n");
		return -EIO;
	}
	return 0;
}

/* Pool 0's page sits in pool 1's cache: take it out, give it home. */
static void repair_wrong_pool(void)
{
	struct page *page = ppmis_take(run.pools[1].pool);

	if (page != run.page) {
		pr_err("wrong_pool: pool 1's cache did not hold the page, pools left\n");
		return;
	}
	ppmis_recycle_direct(run.pools[0].pool, page);
	ppmis_destroy(1);
	ppmis_destroy(0);
}

static int mode_wrong_pool(void)
{
	struct page_pool *a = ppmis_create(false);
	struct page_pool *b = ppmis_create(false);

	if (IS_ERR(a) || IS_ERR(b))
		return -ENOMEM;
	run.page = ppmis_take(a);
	if (!run.page)
		return -ENOMEM;
	ppmis_misused(run.page, 0, 1);
	ppmis_recycle_direct(b, run.page);
	run.repair = repair_wrong_pool;
	return 0;
}

/*
 * The fragment page's count went below zero when the pool drained its
 * bias: it is in flight for ever. Give it one reference and put it back;
 * the pool's current fragment page goes back too.
 */
static void repair_frag_over_release(void)
{
	struct page_pool *f = run.pools[0].pool;

	page_pool_fragment_page(run.page, 1);
	ppmis_put(f, run.page);
	if (run.other)
		ppmis_put(f, run.other);
	ppmis_destroy(0);
}

static int mode_frag_over_release(void)
{
	struct page_pool *f = ppmis_create(true);

	if (IS_ERR(f))
		return PTR_ERR(f);
	run.page = ppmis_take_frag(f, PPMIS_FRAG_SIZE);
	if (!run.page)
		return -ENOMEM;
	ppmis_misused(run.page, 0, -1);
	run.kernel_report = "warn";
	run.repair = repair_frag_over_release;
	/* one fragment handed out, two given back */
	ppmis_put(f, run.page);
	ppmis_put(f, run.page);
	/* a fragment that does not fit drains the page: the count underflows */
	run.other = ppmis_take_frag(f, PAGE_SIZE);
	return 0;
}

/*
 * The page sits in the cache of a pool whose destroy already emptied it:
 * take it out again and put it into the ring, which the retry empties.
 * The pool is freed by the kernel after that, never touched again here.
 */
static void repair_direct_after_destroy(void)
{
	struct page_pool *a = run.dying;
	struct page *page;

	page = ppmis_take(a);
	if (page != run.page) {
		pr_err("direct_after_destroy: the cache did not hold the page, pool left\n");
		return;
	}
	ppmis_put(a, page);
	run.dying = NULL;
}

static int mode_direct_after_destroy(void)
{
	struct page_pool *a = ppmis_create(false);

	if (IS_ERR(a))
		return PTR_ERR(a);
	run.page = ppmis_take(a);
	if (!run.page)
		return -ENOMEM;
	ppmis_misused(run.page, 0, 0);
	/* destroy with the page in flight: the pool waits for it */
	ppmis_destroy(0);
	/* a stale "we are the consumer" recycle into the dying pool */
	ppmis_recycle_direct(a, run.page);
	run.dying = a;
	run.repair = repair_direct_after_destroy;
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} modes[] = {
	{ "clean", mode_clean },
	{ "double_recycle", mode_double_recycle },
	{ "put_page_inflight", mode_put_page_inflight },
	{ "get_then_take", mode_get_then_take },
	{ "wrong_pool", mode_wrong_pool },
	{ "frag_over_release", mode_frag_over_release },
	{ "direct_after_destroy", mode_direct_after_destroy },
};

/* Undo the last mode's damage and destroy whatever pool is left. */
static void ppmis_repair(void)
{
	int i;

	if (run.repair)
		run.repair();
	run.repair = NULL;
	for (i = 0; i < run.npools; i++)
		ppmis_destroy(i);
}

static int ppmis_run(const char *mode)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(mode, modes[i].name))
			break;
	if (i == ARRAY_SIZE(modes))
		return -EINVAL;
	ppmis_repair();
	memset(&run, 0, sizeof(run));
	strscpy(run.mode, modes[i].name, sizeof(run.mode));
	run.pid = task_pid_nr(current);
	get_task_comm(run.comm, current);
	run.kernel_report = "none";
	run.result = modes[i].fn();
	return run.result;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[64], *cmd;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cmd = strim(buf);
	mutex_lock(&ppmis_lock);
	if (!strncmp(cmd, "run ", 4)) {
		ret = ppmis_run(strim(cmd + 4));
	} else if (!strcmp(cmd, "repair")) {
		ppmis_repair();
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&ppmis_lock);
	return ret ? ret : len;
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.write = control_write,
	.llseek = noop_llseek,
};

static int report_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&ppmis_lock);
	seq_printf(m, "mode=%s pid=%d comm=%s result=%d kernel_report=%s taken=%u frags=%u repaired=%d\n",
		   run.mode[0] ? run.mode : "none", run.pid, run.comm, run.result,
		   run.kernel_report ? run.kernel_report : "none", run.taken,
		   run.frags, !run.repair);
	for (i = 0; i < run.npools; i++)
		seq_printf(m, "pool id=%d ptr=%lx kind=%s state=%s\n", i,
			   (unsigned long)run.pools[i].id,
			   run.pools[i].frag ? "frag" : "page",
			   run.pools[i].pool ? "live" : "destroyed");
	for (i = 0; i < run.nmisused; i++)
		seq_printf(m, "misused pfn=0x%lx pool=%d into=%d\n",
			   run.misused[i].pfn, run.misused[i].pool,
			   run.misused[i].into);
	mutex_unlock(&ppmis_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(report);

static int __init ppmis_init(void)
{
	ppmis_dir = debugfs_create_dir("ppmis", NULL);
	debugfs_create_file("control", 0200, ppmis_dir, NULL, &control_fops);
	debugfs_create_file("report", 0400, ppmis_dir, NULL, &report_fops);
	pr_info("ready: modes clean double_recycle put_page_inflight get_then_take wrong_pool frag_over_release direct_after_destroy\n");
	return 0;
}

static void __exit ppmis_exit(void)
{
	debugfs_remove_recursive(ppmis_dir);
	mutex_lock(&ppmis_lock);
	ppmis_repair();
	mutex_unlock(&ppmis_lock);
}

module_init(ppmis_init);
module_exit(ppmis_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pagetrail test: one misuse of the kernel's page_pool per mode");
