// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the control device. Dynamic major, registered as "nvsimctl" in
 * /proc/devices and given no class or device node, like nvidia-uvm: the
 * test makes /dev/nvsimctl from /proc/devices the way nvidia-modprobe does.
 * Each open file is a client with at most one mmap context; its ioctls are
 * the RM calls CUDA makes (allocate, map, free) plus test controls.
 */
#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "nvsim.h"

static dev_t nvsim_devt;
static struct cdev nvsim_cdev;
static bool nvsim_cdev_added;

static int nvsim_ctl_open(struct inode *inode, struct file *file)
{
	nv_linux_file_private_t *nvlfp = kzalloc(sizeof(*nvlfp), GFP_KERNEL);

	if (!nvlfp)
		return -ENOMEM;
	spin_lock_init(&nvlfp->free_list_lock);
	file->private_data = nvlfp;
	return 0;
}

/* nvidia_ctl_close(): deferred frees first, then what the client still holds. */
static int nvsim_ctl_release(struct inode *inode, struct file *file)
{
	nv_linux_file_private_t *nvlfp = file->private_data;

	nvsim_ctl_free_deferred(nvlfp);
	nvsim_numa_context_free(&nvlfp->mmap_context);
	nvsim_rm_free_owner(nvlfp);
	/* 595.71.05+: after RM's cleanup, the context's reference goes. */
	if (nvlfp->context_ref) {
		nvsim_inc(context_refs_dropped);
		nvsim_alloc_put(nvlfp->mmap_context.alloc);
	}
	kfree(nvlfp);
	return 0;
}

/* A coherent-NUMA GPU's context: device pages, no allocation behind it. */
static int nvsim_ioc_map_numa(nv_linux_file_private_t *nvlfp, const struct nvsim_map_req *req)
{
	nv_alloc_mapping_context_t *ctx = &nvlfp->mmap_context;
	int rc;

	if (ctx->valid || !req->pages || req->pages > 4096) {
		nvsim_inc(ioctl_rejected);
		return ctx->valid ? -EBUSY : -ERANGE;
	}
	rc = nvsim_numa_context_init(ctx, req->pages);
	if (rc)
		return rc;
	ctx->alloc = NULL;
	ctx->page_index = 0;
	ctx->prot = NV_PROTECT_READ_WRITE;
	ctx->caching = NV_MEMORY_CACHED;
	ctx->valid = NV_TRUE;
	return 0;
}

/*
 * nv_add_mapping_context_to_file(): the nv_alloc_t pointer, with no
 * usage_count reference before 595.71.05 and one from it on (release.c),
 * dropped when this file closes. RM validates the range now, not at mmap.
 */
static int nvsim_ioc_map_context(nv_linux_file_private_t *nvlfp, const struct nvsim_map_req *req)
{
	nv_alloc_mapping_context_t *ctx = &nvlfp->mmap_context;
	struct nvsim_alloc *na;
	int rc = 0;

	if (req->flags & ~NVSIM_MAP_NUMA) {
		nvsim_inc(ioctl_rejected);
		return -EINVAL;
	}
	if (req->flags & NVSIM_MAP_NUMA)
		return nvsim_ioc_map_numa(nvlfp, req);

	mutex_lock(&nvsim_allocs_lock);
	na = nvsim_alloc_find_locked(req->handle);
	if (!na)
		rc = -ENOENT;
	else if (ctx->valid)
		rc = -EBUSY;
	else if (!req->pages || req->page_index + req->pages > na->at.num_pages ||
		 req->page_index + req->pages < req->page_index)
		rc = -ERANGE;
	if (!rc) {
		ctx->alloc = &na->at;
		ctx->page_index = req->page_index;
		ctx->num_pages = req->pages;
		ctx->prot = NV_PROTECT_READ_WRITE;
		ctx->caching = na->at.cache_type;
		ctx->valid = NV_TRUE;
		nvlfp->context_handle = req->handle;
		if (nvsim_ctx_ref) {
			nvsim_inc(context_refs_taken);
			atomic64_inc(&na->at.usage_count);
			nvlfp->context_ref = true;
		}
	}
	mutex_unlock(&nvsim_allocs_lock);
	if (rc)
		nvsim_inc(ioctl_rejected);
	return rc;
}

static int nvsim_ioc_pfn(struct nvsim_pfn_req *req)
{
	struct nvsim_alloc *na;
	int rc = 0;

	mutex_lock(&nvsim_allocs_lock);
	na = nvsim_alloc_find_locked(req->handle);
	if (!na || req->page_index >= na->at.num_pages ||
	    !na->at.page_table[req->page_index].virt_addr) {
		rc = -ENOENT;
	} else {
		req->pfn = na->at.page_table[req->page_index].phys_addr >> PAGE_SHIFT;
		/* May be 0: that is what foreign_put is about. */
		req->refcount = page_count(pfn_to_page(req->pfn));
	}
	mutex_unlock(&nvsim_allocs_lock);
	if (rc)
		nvsim_inc(ioctl_rejected);
	return rc;
}

/* Commands whose argument is only written back: counters and self-check. */
static long nvsim_ctl_ioctl_report(unsigned int cmd, void __user *uarg)
{
	long rc;

	if (cmd == NVSIM_IOC_STATS) {
		struct nvsim_stats *st = kzalloc(sizeof(*st), GFP_KERNEL);

		if (!st)
			return -ENOMEM;
		nvsim_snapshot(st);
		rc = copy_to_user(uarg, st, sizeof(*st)) ? -EFAULT : 0;
		kfree(st);
		return rc;
	}
	if (cmd == NVSIM_IOC_SELFCHECK) {
		struct nvsim_selfcheck *sc = kzalloc(sizeof(*sc), GFP_KERNEL);

		if (!sc)
			return -ENOMEM;
		rc = nvsim_selfcheck(sc, NULL);
		if (!rc && copy_to_user(uarg, sc, sizeof(*sc)))
			rc = -EFAULT;
		kfree(sc);
		return rc;
	}
	if (cmd == NVSIM_IOC_DRAIN) {
		nvsim_drain_pools();
		return 0;
	}
	return -ENOTTY;
}

static long nvsim_ctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	nv_linux_file_private_t *nvlfp = file->private_data;
	void __user *uarg = (void __user *)arg;
	union {
		struct nvsim_alloc_req alloc;
		struct nvsim_map_req map;
		struct nvsim_free_req free;
		struct nvsim_pfn_req pfn;
		struct nvsim_pin_req pin;
		struct nvsim_unpin_req unpin;
		struct nvsim_foreign_req foreign;
		struct nvsim_reuse_req reuse;
	} u;
	size_t size = _IOC_SIZE(cmd);
	int rc;

	if (cmd == NVSIM_IOC_STATS || cmd == NVSIM_IOC_SELFCHECK || cmd == NVSIM_IOC_DRAIN)
		return nvsim_ctl_ioctl_report(cmd, uarg);

	if (_IOC_TYPE(cmd) != NVSIM_IOC_MAGIC || size > sizeof(u)) {
		nvsim_inc(ioctl_rejected);
		return -ENOTTY;
	}
	memset(&u, 0, sizeof(u));
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&u, uarg, size)) {
		nvsim_inc(ioctl_rejected);
		return -EFAULT;
	}

	switch (cmd) {
	case NVSIM_IOC_ALLOC:
		rc = nvsim_rm_alloc(nvlfp, &u.alloc);
		break;
	case NVSIM_IOC_MAP_CONTEXT:
		rc = nvsim_ioc_map_context(nvlfp, &u.map);
		break;
	case NVSIM_IOC_FREE:
		rc = nvsim_rm_free(nvlfp, u.free.handle);
		break;
	case NVSIM_IOC_PFN:
		rc = nvsim_ioc_pfn(&u.pfn);
		break;
	case NVSIM_IOC_PIN:
		rc = nvsim_fault_pin(&u.pin);
		break;
	case NVSIM_IOC_UNPIN:
		rc = nvsim_fault_unpin(u.unpin.pin_id);
		break;
	case NVSIM_IOC_FOREIGN_PUT:
		rc = nvsim_fault_foreign_put(&u.foreign);
		break;
	case NVSIM_IOC_REUSE:
		rc = nvsim_fault_reuse(&u.reuse);
		break;
	default:
		nvsim_inc(ioctl_rejected);
		return -ENOTTY;
	}

	/* Outputs go back even on failure: NV_STATUS says why. */
	if ((_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &u, size))
		return -EFAULT;
	return rc;
}

static const struct file_operations nvsim_ctl_fops = {
	.owner = THIS_MODULE,
	.open = nvsim_ctl_open,
	.release = nvsim_ctl_release,
	.unlocked_ioctl = nvsim_ctl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = nvidia_mmap,
};

int nvsim_chardev_init(void)
{
	int rc;

	rc = alloc_chrdev_region(&nvsim_devt, 0, 1, NVSIM_CTL_NAME);
	if (rc) {
		pr_err("nvsim: alloc_chrdev_region: %d\n", rc);
		return rc;
	}
	cdev_init(&nvsim_cdev, &nvsim_ctl_fops);
	nvsim_cdev.owner = THIS_MODULE;
	rc = cdev_add(&nvsim_cdev, nvsim_devt, 1);
	if (rc) {
		pr_err("nvsim: cdev_add: %d\n", rc);
		unregister_chrdev_region(nvsim_devt, 1);
		return rc;
	}
	nvsim_cdev_added = true;
	pr_info("nvsim: %s is %u:%u (see /proc/devices)\n", NVSIM_CTL_NAME, MAJOR(nvsim_devt),
		MINOR(nvsim_devt));
	return 0;
}

void nvsim_chardev_exit(void)
{
	if (!nvsim_cdev_added)
		return;
	cdev_del(&nvsim_cdev);
	unregister_chrdev_region(nvsim_devt, 1);
	nvsim_cdev_added = false;
}
