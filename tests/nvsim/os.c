// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the os-interface mutex, as the driver's pool uses it: a kmalloc'd
 * struct semaphore taken with down()/up() through out-of-line helpers, so
 * the pool lock is visible to probes exactly where the driver's is.
 */
#include <linux/slab.h>
#include <linux/semaphore.h>
#include "nvsim.h"

NV_STATUS PROBE_POINT os_alloc_mutex(void **mutex)
{
	struct semaphore *sem = kmalloc(sizeof(*sem), GFP_KERNEL);

	if (!sem)
		return NV_ERR_NO_MEMORY;
	sema_init(sem, 1);
	*mutex = sem;
	return NV_OK;
}

void PROBE_POINT os_free_mutex(void *mutex)
{
	kfree(mutex);
}

NV_STATUS PROBE_POINT os_acquire_mutex(void *mutex)
{
	if (!NV_MAY_SLEEP()) {
		pr_warn_once("nvsim: os_acquire_mutex called where it cannot sleep\n");
		return NV_ERR_INVALID_REQUEST;
	}
	down(mutex);
	return NV_OK;
}

void PROBE_POINT os_release_mutex(void *mutex)
{
	up(mutex);
}
