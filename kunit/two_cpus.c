// SPDX-License-Identifier: GPL-2.0
/* pagetrail KUnit: two kthreads on two CPUs (two_cpus.h). */

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>

#include "two_cpus.h"

struct pt_kunit_thread {
	int (*fn)(void *arg);
	void *arg;
	struct completion done;
};

static int pt_kunit_thread_fn(void *data)
{
	struct pt_kunit_thread *t = data;

	t->fn(t->arg);
	complete(&t->done);
	return 0;
}

void pt_kunit_two_cpus(struct kunit *test, const char *name,
		       int (*const fn[2])(void *), void *arg)
{
	struct pt_kunit_thread *th;
	struct task_struct *task[2];
	int cpu[2], i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online");
	th = kunit_kcalloc(test, 2, sizeof(*th), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, th);
	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	for (i = 0; i < 2; i++) {
		th[i].fn = fn[i];
		th[i].arg = arg;
		init_completion(&th[i].done);
		task[i] = kthread_create(pt_kunit_thread_fn, &th[i], "%s/%d",
					 name, i);
		if (IS_ERR(task[i])) {
			/* Never woken: its function never runs. */
			if (i)
				kthread_stop(task[0]);
			KUNIT_FAIL(test, "kthread_create: %ld",
				   PTR_ERR(task[i]));
			return;
		}
		kthread_bind(task[i], cpu[i]);
	}
	for (i = 0; i < 2; i++)
		wake_up_process(task[i]);
	for (i = 0; i < 2; i++)
		wait_for_completion(&th[i].done);
}
