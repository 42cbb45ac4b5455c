// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: fault injection. Every mode is off by default and switchable at
 * runtime through /sys/module/nvsim/parameters/. Each one stands for a
 * real-driver path from nvidia-pool.md "Every path I found to
 * page_count()==0" and the GUP-pin paragraph of Q4 "Pool admission", and
 * each is contained so that the test VM never corrupts memory: KASAN,
 * lockdep and kmemleak run these scenarios and must stay silent.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include "nvsim.h"

/*
 * noncomp (Z1, CONFIRMED-BY-CODE in the driver): contiguous allocations go
 * through nv_alloc_coherent_pages(), which gets one order > 0 block without
 * __GFP_COMP, as swiotlb-xen (Xen dom0) and pre-6.2 dma-direct (vGPU host
 * fallback) return it. Tail pages have refcount 0, so vm_insert_page() of
 * page 1 fails -EINVAL and the mmap fails -EAGAIN with "[-22]".
 * Trigger: set it, then NVSIM_IOC_ALLOC with NVSIM_ALLOC_CONTIG and > 1
 * page, map it whole. Containment: none needed, the block is freed whole.
 */
bool fault_noncomp;
module_param(fault_noncomp, bool, 0644);
MODULE_PARM_DESC(fault_noncomp, "Z1: contiguous allocations without __GFP_COMP");

/*
 * stale_context (Z2, HYPOTHESIS): the mmap context holds the nv_alloc_t
 * without a reference; RM frees the allocation after the map ioctl, then
 * mmap() runs on that context. Pages the pool declined (not zeroed, DMA32)
 * or the shrinker reclaimed are back in the buddy allocator with refcount
 * 0: -EINVAL, "[-22]", -EAGAIN. Pages still pooled map silently.
 * Trigger: set it, allocate, NVSIM_IOC_MAP_CONTEXT on a new fd, FREE, mmap.
 * Containment: a freed allocation and its page_table go to a graveyard
 * (freed at unload) instead of kfree, so the stale read is of valid memory;
 * a VMA that did map through it never frees the pages a second time.
 * With the mode off, nvidia_mmap refuses a dead context (mmaps_refused).
 */
bool fault_stale_context;
module_param(fault_stale_context, bool, 0644);
MODULE_PARM_DESC(fault_stale_context, "Z2: keep freed allocations so stale contexts can map");

/*
 * foreign_put (Z8, HYPOTHESIS; the missing check is CONFIRMED): another
 * subsystem drops one reference too many on a page the pool owns. The pool
 * stores only a VA and checks nothing, so the page sits in the buddy
 * allocator while still listed; the next take hands it to an allocation
 * whose mmap fails -EINVAL "[-22]", and the page may get a second owner.
 * Trigger: set it, then NVSIM_IOC_FOREIGN_PUT: the "nvsim_foreign" kthread,
 * bound to another CPU than the caller's, takes the pool lock and
 * put_page()s the head of the clean list (never a dirty entry, which the
 * scrubber would still clear). Freed order-0 pages wait on that CPU's
 * per-CPU list, so a caller pinned elsewhere finds them still free.
 * Containment: nvsim never writes to or frees that chunk again; when the
 * allocation holding it is freed it is dropped from the page_table before
 * admission (chunks_contained), or skipped when the pool frees it.
 */
bool fault_foreign_put;
module_param(fault_foreign_put, bool, 0644);
MODULE_PARM_DESC(fault_foreign_put, "Z8: allow NVSIM_IOC_FOREIGN_PUT");

/*
 * pinned_admit (Q4 GUP-pin aliasing): a page with an extra reference, as
 * a GUP/RDMA pin leaves it, is admitted with its allocation, since
 * admission never looks at page_count(), and reused by the next one. No
 * error anywhere; the same pfn has two owners, which the self-check names.
 * Trigger: set it, NVSIM_IOC_PIN a page, FREE the allocation, drain, and
 * allocate again. Containment: the pin holds a real reference, released by
 * NVSIM_IOC_UNPIN or at unload, so the page is never freed under anyone.
 */
bool fault_pinned_admit;
module_param(fault_pinned_admit, bool, 0644);
MODULE_PARM_DESC(fault_pinned_admit, "GUP-pin aliasing: allow NVSIM_IOC_PIN");

/*
 * admit_atomic (nv-vm.c:786, nvidia-fidelity.md 3A): nv_mem_pool_free_pages
 * returns NV_ERR_INVALID_ARGUMENT before admitting anything when it cannot
 * sleep, and nv_free_system_pages then frees every chunk itself. The next
 * N frees of an allocation the pool would take run nv_free_system_pages
 * with preemption disabled, so the driver's own NV_MAY_SLEEP() check says
 * no. Counters: admit_refused (refusals), admit_refused_chunks (chunks
 * freed directly after one). Reads back how many are still armed.
 */
unsigned int fault_admit_atomic;
module_param(fault_admit_atomic, uint, 0644);
MODULE_PARM_DESC(fault_admit_atomic, "free the next N poolable allocations where the driver cannot sleep");

/* An armed count, one down: what it was before (0: not armed). */
static unsigned int nvsim_fault_count_down(unsigned int *armed)
{
	unsigned int n;

	do {
		n = READ_ONCE(*armed);
		if (!n)
			return 0;
	} while (cmpxchg(armed, n, n - 1) != n);
	return n;
}

bool nvsim_fault_admit_atomic(void)
{
	return nvsim_fault_count_down(&fault_admit_atomic) > 0;
}

/*
 * fresh_fail (nvidia-pool.md, nv_alloc_system_pages: "On a partial failure
 * it calls nv_free_system_pages(at)"): set to N, the Nth fresh chunk from
 * now is not allocated, as the buddy allocator under pressure would do.
 * The allocation then releases, inside its own call, the chunks it has
 * already assigned. One-shot: reads 0 again once used. Counter:
 * fresh_failed.
 */
static unsigned int fault_fresh_fail;
module_param(fault_fresh_fail, uint, 0644);
MODULE_PARM_DESC(fault_fresh_fail, "one-shot: the Nth fresh chunk from now fails to allocate");

bool nvsim_fault_fresh_fail(void)
{
	if (nvsim_fault_count_down(&fault_fresh_fail) != 1)
		return false;
	nvsim_inc(fresh_failed);
	return true;
}

/*
 * release_race (nvidia-fidelity.md 4.2): admitted chunks are on the dirty
 * list, the pool lock is dropped, and nv_mem_pool_free_pages has not
 * returned yet: another thread may take them. Set to N: the next admission
 * of at least one chunk stops after its unlock until the "nvsim_racer"
 * kthread has allocated N chunks of that pool's order on that node
 * (nv_alloc_system_pages -> nv_mem_pool_alloc_pages -> nv_alloc_set_page),
 * as an allocation of the freeing allocation's client. One-shot: reads 0
 * again once used. Counters: race_runs, race_handle, race_pool_chunks,
 * race_pid, race_first_pfn.
 */
unsigned int fault_release_race;
module_param(fault_release_race, uint, 0644);
MODULE_PARM_DESC(fault_release_race, "one-shot: a thread takes N chunks between admission and its return");

struct nvsim_racer {
	struct completion done;
	void *owner;
	struct nvsim_alloc_req req;
	int rc;
};

static int nvsim_racer_main(void *arg)
{
	struct nvsim_racer *r = arg;

	r->rc = nvsim_rm_alloc(r->owner, &r->req);
	complete(&r->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

void nvsim_fault_release_race(nv_page_pool_t *mem_pool, nv_alloc_t *at)
{
	struct nvsim_racer r = { .owner = to_nvsim_alloc(at)->owner };
	struct task_struct *task;
	unsigned int n;

	if (!READ_ONCE(fault_release_race) || !r.owner)
		return;
	n = xchg(&fault_release_race, 0);
	if (!n)
		return;
	init_completion(&r.done);
	r.req.num_pages = n << mem_pool->order;
	r.req.order = mem_pool->order;
	r.req.flags = NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_NODE;
	r.req.node = mem_pool->node_id;
	task = kthread_create(nvsim_racer_main, &r, "nvsim_racer");
	if (IS_ERR(task)) {
		pr_warn("nvsim: release_race: no thread: %ld\n", PTR_ERR(task));
		return;
	}
	get_task_struct(task);
	wake_up_process(task);
	wait_for_completion(&r.done);
	nvsim_inc(race_runs);
	nvsim_set(race_pid, task_pid_nr(task));
	kthread_stop(task);
	put_task_struct(task);
	if (r.rc) {
		pr_warn("nvsim: release_race: the racer's allocation failed: %d\n", r.rc);
		return;
	}
	nvsim_set(race_handle, r.req.handle);
	nvsim_set(race_pool_chunks, r.req.pool_chunks);
	nvsim_set(race_first_pfn, r.req.first_pfn);
	pr_info("nvsim: release_race: nvsim_racer took %u of %u chunk(s) from pool node %d order %u before admission returned (handle %u)\n",
		r.req.pool_chunks, n, mem_pool->node_id, mem_pool->order, r.req.handle);
}

/*
 * inject_bug: test-only bugs that prove the harness catches sanitizer
 * reports. "leak" leaks one kmalloc per allocation (kmemleak); "lockorder"
 * takes two nvsim mutexes in opposite orders on the allocate and free
 * paths (lockdep: possible circular locking dependency).
 */
int nvsim_inject_bug;
static const char * const nvsim_bug_names[] = { "none", "leak", "lockorder" };

static int nvsim_inject_bug_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(nvsim_bug_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(nvsim_inject_bug, i);
	return 0;
}

static int nvsim_inject_bug_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", nvsim_bug_names[READ_ONCE(nvsim_inject_bug)]);
}

static const struct kernel_param_ops nvsim_inject_bug_ops = {
	.set = nvsim_inject_bug_set,
	.get = nvsim_inject_bug_get,
};
module_param_cb(inject_bug, &nvsim_inject_bug_ops, NULL, 0644);
MODULE_PARM_DESC(inject_bug, "test only: none, leak or lockorder");

static DEFINE_MUTEX(nvsim_bug_lock_alloc);
static DEFINE_MUTEX(nvsim_bug_lock_free);

void nvsim_fault_inject_alloc(void)
{
	void *p;

	switch (READ_ONCE(nvsim_inject_bug)) {
	case NVSIM_BUG_LEAK:
		p = kmalloc(64, GFP_KERNEL);
		if (p) {
			memset(p, 0x6b, 64);
			nvsim_inc(inject_leaks);
		}
		/* forgotten on purpose */
		OPTIMIZER_HIDE_VAR(p);
		break;
	case NVSIM_BUG_LOCKORDER:
		mutex_lock(&nvsim_bug_lock_alloc);
		mutex_lock(&nvsim_bug_lock_free);
		mutex_unlock(&nvsim_bug_lock_free);
		mutex_unlock(&nvsim_bug_lock_alloc);
		break;
	}
}

void nvsim_fault_inject_free(void)
{
	if (READ_ONCE(nvsim_inject_bug) != NVSIM_BUG_LOCKORDER)
		return;
	mutex_lock(&nvsim_bug_lock_free);
	mutex_lock(&nvsim_bug_lock_alloc);
	mutex_unlock(&nvsim_bug_lock_alloc);
	mutex_unlock(&nvsim_bug_lock_free);
}

/* ---- chunks foreign_put broke: never written or freed by nvsim again ---- */

#define NVSIM_MAX_FAULTED 16

static DEFINE_SPINLOCK(nvsim_faulted_lock);
static unsigned long nvsim_faulted_va[NVSIM_MAX_FAULTED];
static unsigned int nvsim_faulted_n;

static bool nvsim_fault_mark(unsigned long virt_addr)
{
	bool ok = false;

	spin_lock(&nvsim_faulted_lock);
	if (nvsim_faulted_n < NVSIM_MAX_FAULTED) {
		nvsim_faulted_va[nvsim_faulted_n] = virt_addr;
		WRITE_ONCE(nvsim_faulted_n, nvsim_faulted_n + 1);
		ok = true;
	}
	spin_unlock(&nvsim_faulted_lock);
	return ok;
}

static bool nvsim_fault_find(unsigned long virt_addr, bool consume)
{
	bool found = false;
	unsigned int i;

	if (!READ_ONCE(nvsim_faulted_n))
		return false;
	spin_lock(&nvsim_faulted_lock);
	for (i = 0; i < nvsim_faulted_n; i++) {
		if (nvsim_faulted_va[i] != virt_addr)
			continue;
		found = true;
		if (consume) {
			nvsim_faulted_va[i] = nvsim_faulted_va[nvsim_faulted_n - 1];
			WRITE_ONCE(nvsim_faulted_n, nvsim_faulted_n - 1);
		}
		break;
	}
	spin_unlock(&nvsim_faulted_lock);
	return found;
}

bool nvsim_fault_is_faulted(unsigned long virt_addr)
{
	return nvsim_fault_find(virt_addr, false);
}

/*
 * The chunk at virt_addr is leaving nvsim. If foreign_put freed it, say
 * so and forget it: the buddy allocator owns it already. If the page has
 * meanwhile come back as a fresh nvsim chunk, it has two nvsim owners and
 * exactly one of them is dropped here, so it is released exactly once.
 */
bool nvsim_fault_consume(unsigned long virt_addr, unsigned int order)
{
	if (!nvsim_fault_find(virt_addr, true))
		return false;
	nvsim_inc(chunks_contained);
	nvsim_add(pages_contained, 1UL << order);
	return true;
}

/*
 * Drop foreign_put chunks from an allocation being freed, keeping the
 * page_table's shape: chunks packed from index 0, virt_addr == 0 after the
 * last one. Returns how many chunks were dropped.
 */
unsigned int nvsim_fault_contain(nv_alloc_t *at)
{
	unsigned int per_chunk = 1U << at->order;
	unsigned int chunks, kept = 0, dropped = 0, i;
	nvidia_pte_t *pt = at->page_table;

	if (!READ_ONCE(nvsim_faulted_n))
		return 0;

	chunks = nvsim_alloc_chunks(at);
	for (i = 0; i < chunks; i++) {
		unsigned int n = min(per_chunk, at->num_pages - i * per_chunk);

		if (nvsim_fault_consume(pt[i * per_chunk].virt_addr, at->order)) {
			dropped++;
			continue;
		}
		if (kept != i) {
			memmove(&pt[kept * per_chunk], &pt[i * per_chunk], n * sizeof(*pt));
			memset(&pt[kept * per_chunk + n], 0, (per_chunk - n) * sizeof(*pt));
		}
		kept++;
	}
	if (dropped) {
		memset(&pt[kept * per_chunk], 0, (at->num_pages - kept * per_chunk) * sizeof(*pt));
		pr_info("nvsim: foreign_put: dropped %u chunk(s) from an allocation being freed\n",
			dropped);
	}
	return dropped;
}

/* ---- the foreign thread ---- */

static struct {
	struct task_struct *task;
	int cpu;
	wait_queue_head_t wq;
	bool pending;
	struct completion done;
	struct nvsim_foreign_req *req;
	int rc;
} nvsim_foreign = {
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(nvsim_foreign.wq),
};

/* One foreign put at a time: the thread serves one request slot. */
static DEFINE_MUTEX(nvsim_foreign_mutex);

static int nvsim_foreign_do_put(struct nvsim_foreign_req *req)
{
	nv_page_pool_t *mem_pool = nv_mem_pool_get(req->node, req->order);
	nv_page_pool_entry_t *entry;
	struct page *page;
	int rc = 0;

	req->pid = task_pid_nr(current);
	req->cpu = raw_smp_processor_id();
	strscpy(req->comm, current->comm, sizeof(req->comm));
	if (!mem_pool)
		return -ENOENT;

	/* The pool's lock, taken directly: this is not the driver calling. */
	down(mem_pool->lock);
	entry = list_first_entry_or_null(&mem_pool->clean_list, nv_page_pool_entry_t, list_node);
	if (!entry) {
		rc = -ENODATA;
	} else if (!nvsim_fault_mark(entry->virt_addr)) {
		rc = -ENOSPC;
	} else {
		page = virt_to_page((void *)entry->virt_addr);
		req->pfn = page_to_pfn(page);
		put_page(page);
		req->refcount = page_count(page);
	}
	up(mem_pool->lock);
	if (rc)
		return rc;

	nvsim_inc(fault_foreign_puts);
	nvsim_set(fault_foreign_pfn, req->pfn);
	nvsim_set(fault_foreign_pid, req->pid);
	nvsim_set(fault_foreign_cpu, req->cpu);
	strscpy(nvsim_foreign_comm, req->comm, sizeof(nvsim_foreign_comm));
	pr_info("nvsim: foreign_put: %s/%d on cpu %d dropped a reference on pooled pfn 0x%llx (node %d order %u), refcount now %d\n",
		req->comm, req->pid, req->cpu, req->pfn, req->node, req->order, req->refcount);
	return 0;
}

static int nvsim_foreign_main(void *arg)
{
	while (!kthread_should_stop()) {
		wait_event_interruptible(nvsim_foreign.wq,
					 READ_ONCE(nvsim_foreign.pending) || kthread_should_stop());
		if (!READ_ONCE(nvsim_foreign.pending))
			continue;
		nvsim_foreign.rc = nvsim_foreign_do_put(nvsim_foreign.req);
		WRITE_ONCE(nvsim_foreign.pending, false);
		complete(&nvsim_foreign.done);
	}
	return 0;
}

/* Lowest online CPU other than the caller's (the caller pins itself). */
static int nvsim_other_cpu(void)
{
	int me = raw_smp_processor_id();
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu != me)
			return cpu;
	return me;
}

int nvsim_fault_foreign_put(struct nvsim_foreign_req *req)
{
	int cpu = req->cpu < 0 ? nvsim_other_cpu() : req->cpu;
	int rc;

	if (!READ_ONCE(fault_foreign_put) || cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		nvsim_inc(ioctl_rejected);
		return READ_ONCE(fault_foreign_put) ? -EINVAL : -EPERM;
	}

	mutex_lock(&nvsim_foreign_mutex);
	if (!nvsim_foreign.task) {
		struct task_struct *task;

		task = kthread_create(nvsim_foreign_main, NULL, "nvsim_foreign");
		if (IS_ERR(task)) {
			mutex_unlock(&nvsim_foreign_mutex);
			pr_warn("nvsim: foreign_put: no thread: %ld\n", PTR_ERR(task));
			return PTR_ERR(task);
		}
		kthread_bind(task, cpu);
		nvsim_foreign.task = task;
		nvsim_foreign.cpu = cpu;
		init_completion(&nvsim_foreign.done);
		wake_up_process(task);
	} else if (nvsim_foreign.cpu != cpu) {
		rc = set_cpus_allowed_ptr(nvsim_foreign.task, cpumask_of(cpu));
		if (rc) {
			mutex_unlock(&nvsim_foreign_mutex);
			nvsim_inc(ioctl_rejected);
			return rc;
		}
		nvsim_foreign.cpu = cpu;
	}

	nvsim_foreign.req = req;
	reinit_completion(&nvsim_foreign.done);
	WRITE_ONCE(nvsim_foreign.pending, true);
	wake_up(&nvsim_foreign.wq);
	wait_for_completion(&nvsim_foreign.done);
	rc = nvsim_foreign.rc;
	nvsim_foreign.req = NULL;
	mutex_unlock(&nvsim_foreign_mutex);

	if (rc)
		nvsim_inc(ioctl_rejected);
	return rc;
}

/* ---- pins ---- */

struct nvsim_pin {
	struct list_head node;
	u32 id;
	u32 handle;
	u32 page_index;
	struct page *page;
	unsigned long pfn;
};

static LIST_HEAD(nvsim_pins);
static DEFINE_MUTEX(nvsim_pins_lock);
static u32 nvsim_next_pin_id;

int nvsim_fault_pin(struct nvsim_pin_req *req)
{
	struct nvsim_alloc *na;
	struct nvsim_pin *pin;
	struct page *page = NULL;

	if (!READ_ONCE(fault_pinned_admit)) {
		nvsim_inc(ioctl_rejected);
		return -EPERM;
	}
	pin = kzalloc(sizeof(*pin), GFP_KERNEL);
	if (!pin)
		return -ENOMEM;

	mutex_lock(&nvsim_allocs_lock);
	na = nvsim_alloc_find_locked(req->handle);
	if (na && req->page_index < na->at.num_pages &&
	    na->at.page_table[req->page_index].virt_addr) {
		page = pfn_to_page(na->at.page_table[req->page_index].phys_addr >> PAGE_SHIFT);
		/* A pin needs a live page; a zero refcount is foreign_put's. */
		if (page_count(page) > 0)
			get_page(page);
		else
			page = NULL;
	}
	mutex_unlock(&nvsim_allocs_lock);
	if (!page) {
		kfree(pin);
		nvsim_inc(ioctl_rejected);
		return -ENOENT;
	}

	pin->handle = req->handle;
	pin->page_index = req->page_index;
	pin->page = page;
	pin->pfn = page_to_pfn(page);
	mutex_lock(&nvsim_pins_lock);
	pin->id = ++nvsim_next_pin_id;
	list_add_tail(&pin->node, &nvsim_pins);
	mutex_unlock(&nvsim_pins_lock);

	req->pfn = pin->pfn;
	req->pin_id = pin->id;
	nvsim_inc(fault_pins_total);
	nvsim_inc(fault_pins_live);
	nvsim_set(fault_pin_pfn, pin->pfn);
	nvsim_set(fault_pin_pid, task_pid_nr(current));
	return 0;
}

static void nvsim_pin_release(struct nvsim_pin *pin)
{
	put_page(pin->page);
	nvsim_dec(fault_pins_live);
	kfree(pin);
}

int nvsim_fault_unpin(u32 pin_id)
{
	struct nvsim_pin *pin, *found = NULL;

	mutex_lock(&nvsim_pins_lock);
	list_for_each_entry(pin, &nvsim_pins, node) {
		if (pin->id == pin_id) {
			list_del(&pin->node);
			found = pin;
			break;
		}
	}
	mutex_unlock(&nvsim_pins_lock);
	if (!found) {
		nvsim_inc(ioctl_rejected);
		return -ENOENT;
	}
	nvsim_pin_release(found);
	return 0;
}

int nvsim_fault_pins_collect(struct nvsim_owner *owners, int max)
{
	struct nvsim_pin *pin;
	int n = 0;

	mutex_lock(&nvsim_pins_lock);
	list_for_each_entry(pin, &nvsim_pins, node) {
		if (n == max) {
			n = -ENOSPC;
			break;
		}
		owners[n++] = (struct nvsim_owner) {
			.pfn = pin->pfn,
			.npages = 1,
			.kind = NVSIM_OWNER_PIN,
			.id = pin->id,
			.index = pin->page_index,
			.extra = pin->handle,
		};
	}
	mutex_unlock(&nvsim_pins_lock);
	return n;
}

/*
 * stale_context, reused: the kernel gives a page the driver freed to
 * someone else before the stale mmap runs. Order-0 pages are allocated on
 * the caller's CPU, outside every driver path, until the kernel hands out
 * @pfn (just freed there, so near the top of that CPU's free list); that
 * one is kept until unload, the others go back. A stale mmap then maps
 * memory that is not the driver's, and vm_insert_page() accepts it.
 */
#define NVSIM_REUSE_TRIES 8192
static LIST_HEAD(nvsim_reused);
static DEFINE_MUTEX(nvsim_reused_lock);

int nvsim_fault_reuse(struct nvsim_reuse_req *req)
{
	struct page *page, *tmp, *found = NULL;
	LIST_HEAD(tried);
	unsigned int n;

	if (!fault_stale_context)
		return -EPERM;
	for (n = 0; n < NVSIM_REUSE_TRIES && !found; n++) {
		page = alloc_page(GFP_KERNEL | __GFP_NOWARN);
		if (!page)
			break;
		if (page_to_pfn(page) == req->pfn)
			found = page;
		else
			list_add(&page->lru, &tried);
	}
	list_for_each_entry_safe(page, tmp, &tried, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	req->tries = n;
	if (!found)
		return -ENOENT;
	req->refcount = page_count(found);
	mutex_lock(&nvsim_reused_lock);
	list_add(&found->lru, &nvsim_reused);
	mutex_unlock(&nvsim_reused_lock);
	pr_info("nvsim: stale_context: pfn 0x%llx reused outside the driver after %u allocations\n",
		req->pfn, n);
	return 0;
}

/* Unload: stop the foreign thread, drop leftover pins and reused pages. */
void nvsim_faults_exit(void)
{
	struct nvsim_pin *pin, *tmp;
	struct page *page, *ptmp;
	unsigned int n = 0;

	if (nvsim_foreign.task) {
		kthread_stop(nvsim_foreign.task);
		nvsim_foreign.task = NULL;
	}
	list_for_each_entry_safe(pin, tmp, &nvsim_pins, node) {
		list_del(&pin->node);
		nvsim_pin_release(pin);
		n++;
	}
	if (n)
		pr_info("nvsim: unload: released %u pin(s)\n", n);
	list_for_each_entry_safe(page, ptmp, &nvsim_reused, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
}

/* After the pools are gone: anything still marked was never contained. */
void nvsim_faults_check_contained(void)
{
	if (READ_ONCE(nvsim_faulted_n))
		pr_warn("nvsim: unload: %u foreign_put chunk(s) never contained\n",
			nvsim_faulted_n);
}
