// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: a single-kthread work queue with the driver's nv_kthread_q API and
 * layout. Each pool's scrubber runs on one of these, so the scrubber is a
 * separate thread named like the driver's ("nv_mem_pool_scr" in comm).
 */
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "nvsim.h"

static int nv_kthread_q_main(void *arg)
{
	nv_kthread_q_t *q = arg;

	for (;;) {
		nv_kthread_q_item_t *item;
		unsigned long flags;

		/* Interruptible: an idle scrubber must not look hung. */
		if (down_interruptible(&q->q_sem))
			continue;
		if (atomic_read(&q->main_loop_should_exit))
			break;

		spin_lock_irqsave(&q->q_lock, flags);
		item = list_first_entry_or_null(&q->q_list_head, nv_kthread_q_item_t,
						q_list_node);
		/* Re-armed before it runs, so it may requeue itself. */
		if (item)
			list_del_init(&item->q_list_node);
		spin_unlock_irqrestore(&q->q_lock, flags);

		if (item)
			item->function_to_run(item->function_args);
	}

	/* kthread_stop() must find this task alive. */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

int nv_kthread_q_init_on_node(nv_kthread_q_t *q, const char *qname, int node)
{
	struct task_struct *task;

	memset(q, 0, sizeof(*q));
	INIT_LIST_HEAD(&q->q_list_head);
	spin_lock_init(&q->q_lock);
	sema_init(&q->q_sem, 0);
	atomic_set(&q->main_loop_should_exit, 0);

	task = kthread_create_on_node(nv_kthread_q_main, q, node, "%s", qname);
	if (IS_ERR(task)) {
		pr_warn("nvsim: kthread %s on node %d: %ld\n", qname, node, PTR_ERR(task));
		return PTR_ERR(task);
	}
	q->q_kthread = task;
	wake_up_process(task);
	return 0;
}

void nv_kthread_q_item_init(nv_kthread_q_item_t *item, nv_q_func_t fn, void *args)
{
	INIT_LIST_HEAD(&item->q_list_node);
	item->function_to_run = fn;
	item->function_args = args;
}

/* Returns 1 when queued; 0 when already pending or the queue is stopping. */
int PROBE_POINT nv_kthread_q_schedule_q_item(nv_kthread_q_t *q, nv_kthread_q_item_t *item)
{
	unsigned long flags;
	int queued = 0;

	spin_lock_irqsave(&q->q_lock, flags);
	if (!atomic_read(&q->main_loop_should_exit) && list_empty(&item->q_list_node)) {
		list_add_tail(&item->q_list_node, &q->q_list_head);
		queued = 1;
	}
	spin_unlock_irqrestore(&q->q_lock, flags);

	if (queued)
		up(&q->q_sem);
	return queued;
}

struct nv_kthread_q_flusher {
	nv_kthread_q_item_t item;
	struct completion done;
};

static void nv_kthread_q_flush_callback(void *args)
{
	complete(args);
}

static void nv_kthread_q_flush_once(nv_kthread_q_t *q)
{
	struct nv_kthread_q_flusher f;

	init_completion(&f.done);
	nv_kthread_q_item_init(&f.item, nv_kthread_q_flush_callback, &f.done);
	if (nv_kthread_q_schedule_q_item(q, &f.item))
		wait_for_completion(&f.done);
}

/*
 * Twice, like the driver: the first pass waits for items that were running,
 * the second for items they queued meanwhile.
 */
void nv_kthread_q_flush(nv_kthread_q_t *q)
{
	if (!q->q_kthread)
		return;
	nv_kthread_q_flush_once(q);
	nv_kthread_q_flush_once(q);
}

void nv_kthread_q_stop(nv_kthread_q_t *q)
{
	if (!q->q_kthread)
		return;
	q->is_unload_flush_ongoing = true;
	nv_kthread_q_flush(q);
	atomic_set(&q->main_loop_should_exit, 1);
	up(&q->q_sem);
	kthread_stop(q->q_kthread);
	q->q_kthread = NULL;
	q->is_unload_flush_ongoing = false;
}
