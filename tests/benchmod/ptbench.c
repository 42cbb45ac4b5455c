// SPDX-License-Identifier: GPL-2.0
/*
 * ptbench: functions shaped like pagetrail's hot probe points, called N
 * times in a loop from a debugfs write, so that make bench measures what
 * one probe hit costs directly: ns per call with a tracer's probes on them,
 * minus ns per call without.
 *
 *   echo "insert 20000" > /sys/kernel/debug/ptbench/run
 *   cat /sys/kernel/debug/ptbench/run
 *   name=insert calls=20000 events_per_call=2 ns=... ns_per_call=...
 *
 * insert  ptbench_insert(vma, addr, page) -> int, reads the page's
 *         refcount: vm_insert_page's shape (probed at entry and return)
 * take    ptbench_take(pool, at) -> unsigned int, reads the allocation's
 *         page count and order at nv_alloc_t's offsets:
 *         nv_mem_pool_alloc_pages' shape (entry and return)
 * up      down_trylock() + up() on a private semaphore: the kernel's up(),
 *         which pagetrail probes system-wide, off the driver's paths
 * page    alloc_page() + __free_page(): the kmem:mm_page_alloc and
 *         kmem:mm_page_free tracepoints pagetrail hooks system-wide
 *
 * "info" gives the struct page offsets a tracer's fetch arguments need
 * (they differ between configurations), and the fake allocation's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/semaphore.h>
#include <linux/uaccess.h>

#define PTBENCH_MAX_CALLS 10000000UL

/*
 * The head of the driver's nv_alloc_t as the probes read it: page count
 * at 32 and order at 36 (tests/lib/pt.sh's 595.45.04 layout).
 */
struct ptbench_alloc {
	u64 pad[4];
	u32 num_pages;
	u32 order;
};

/* A node and order where the driver's pool keeps them (nv_pool_node_id). */
struct ptbench_pool {
	u8 pad[136];
	u32 node_id;
	u32 order;
};

static struct page *ptbench_page;
static struct ptbench_alloc ptbench_at = { .num_pages = 512, .order = 4 };
static struct ptbench_pool ptbench_pool_obj = { .node_id = 0, .order = 4 };
static struct semaphore ptbench_sem; /* 6.1's DEFINE_SEMAPHORE takes no count */
/* Results land here so the compiler cannot drop a call as unused. */
static unsigned long ptbench_sink;

/*
 * Out of line and never cloned, so a probe on the symbol sees every call
 * with the arguments in the ABI's registers; the volatile reads keep the
 * compiler from treating them as pure and hoisting them out of the loop.
 */
static noinline __noclone int ptbench_insert(struct vm_area_struct *vma,
					     unsigned long addr,
					     struct page *page)
{
	return page_ref_count(page) > 0 && addr != (unsigned long)vma ?
		       0 : -EINVAL;
}

static noinline __noclone unsigned int ptbench_take(struct ptbench_pool *pool,
						    struct ptbench_alloc *at)
{
	return READ_ONCE(at->num_pages) >> READ_ONCE(pool->order);
}

enum ptbench_kind { PTB_INSERT, PTB_TAKE, PTB_UP, PTB_PAGE, PTB_KINDS };

static const struct {
	const char *name;
	unsigned int events_per_call; /* probe hits one call makes */
} ptbench_kinds[PTB_KINDS] = {
	[PTB_INSERT] = { "insert", 2 },
	[PTB_TAKE] = { "take", 2 },
	[PTB_UP] = { "up", 1 },
	[PTB_PAGE] = { "page", 2 },
};

/*
 * One loop per kind, the switch outside: the only call in each loop body
 * is the one measured. Every 1024 calls the loop may yield, so a long run
 * does not starve the other CPU's work (it is measured, so it stays rare).
 */
static int ptbench_loop(enum ptbench_kind kind, unsigned long n)
{
	unsigned long i, acc = 0;
	struct page *p;

	for (i = 0; i < n; i++) {
		switch (kind) {
		case PTB_INSERT:
			acc += ptbench_insert(NULL, i << PAGE_SHIFT,
					      ptbench_page);
			break;
		case PTB_TAKE:
			acc += ptbench_take(&ptbench_pool_obj, &ptbench_at);
			break;
		case PTB_UP:
			if (!down_trylock(&ptbench_sem))
				up(&ptbench_sem);
			break;
		case PTB_PAGE:
			p = alloc_page(GFP_KERNEL);
			if (!p)
				return -ENOMEM;
			__free_page(p);
			break;
		default:
			return -EINVAL;
		}
		if (!(i & 1023))
			cond_resched();
	}
	WRITE_ONCE(ptbench_sink, acc);
	return 0;
}

static DEFINE_MUTEX(ptbench_lock);
static char ptbench_result[160] = "none\n";

static ssize_t ptbench_run_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[48], name[16];
	unsigned long n;
	unsigned int k;
	u64 t0, ns;
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%15s %lu", name, &n) != 2 || !n ||
	    n > PTBENCH_MAX_CALLS)
		return -EINVAL;
	for (k = 0; k < PTB_KINDS; k++)
		if (!strcmp(name, ptbench_kinds[k].name))
			break;
	if (k == PTB_KINDS)
		return -EINVAL;

	mutex_lock(&ptbench_lock);
	t0 = ktime_get_ns();
	ret = ptbench_loop(k, n);
	ns = ktime_get_ns() - t0;
	if (!ret)
		snprintf(ptbench_result, sizeof(ptbench_result),
			 "name=%s calls=%lu events_per_call=%u ns=%llu ns_per_call=%llu\n",
			 name, n, ptbench_kinds[k].events_per_call, ns,
			 div64_u64(ns, n));
	mutex_unlock(&ptbench_lock);
	return ret ? ret : len;
}

static ssize_t ptbench_run_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	char buf[sizeof(ptbench_result)];

	mutex_lock(&ptbench_lock);
	strscpy(buf, ptbench_result, sizeof(buf));
	mutex_unlock(&ptbench_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations ptbench_run_fops = {
	.owner = THIS_MODULE,
	.write = ptbench_run_write,
	.read = ptbench_run_read,
	.llseek = default_llseek,
};

static ssize_t ptbench_info_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[160];
	int n;

	n = scnprintf(buf, sizeof(buf),
		      "page_refcount=%zu page_mapcount=%zu alloc_num_pages=%zu alloc_order=%zu pool_node_id=%zu pool_order=%zu\n",
		      offsetof(struct page, _refcount),
		      offsetof(struct page, _mapcount),
		      offsetof(struct ptbench_alloc, num_pages),
		      offsetof(struct ptbench_alloc, order),
		      offsetof(struct ptbench_pool, node_id),
		      offsetof(struct ptbench_pool, order));
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations ptbench_info_fops = {
	.owner = THIS_MODULE,
	.read = ptbench_info_read,
	.llseek = default_llseek,
};

static struct dentry *ptbench_dir;

static int __init ptbench_init(void)
{
	sema_init(&ptbench_sem, 1);
	ptbench_page = alloc_page(GFP_KERNEL);
	if (!ptbench_page)
		return -ENOMEM;
	ptbench_dir = debugfs_create_dir("ptbench", NULL);
	debugfs_create_file("run", 0600, ptbench_dir, NULL, &ptbench_run_fops);
	debugfs_create_file("info", 0400, ptbench_dir, NULL,
			    &ptbench_info_fops);
	return 0;
}

static void __exit ptbench_exit(void)
{
	debugfs_remove_recursive(ptbench_dir);
	__free_page(ptbench_page);
}

module_init(ptbench_init);
module_exit(ptbench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pagetrail benchmark: functions shaped like the hot probe points");
