// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: NVIDIA's character device families, registered the way the driver
 * and nvidia-uvm do, so /proc/devices names and dynamic majors are real in
 * the guest: "nvidia" (195:0..253, /dev/nvidiaN) and "nvidiactl" (195:255)
 * on the fixed major; "nvidia-uvm" (minor 0 nvidia-uvm, 1 nvidia-uvm-tools),
 * "nvidia-caps" and "nvidia-caps-imex-channels" on dynamic majors. No class
 * and no nodes: userspace makes them from /proc/devices, as
 * nvidia-modprobe does. Opens succeed and do nothing.
 *
 * "After the kernel upgrade" (R3): dev_pad=N takes N dynamic majors first,
 * as drivers that now load earlier would, so the families land lower;
 * uvm_major=, caps_major=, imex_major= place a family at a given major.
 */
#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/module.h>
#include "nvsim.h"

#define NVSIM_NV_MAJOR 195
#define NVSIM_DEV_PAD_MAX 64

static unsigned int dev_pad;
module_param(dev_pad, uint, 0444);
MODULE_PARM_DESC(dev_pad,
		 "dynamic majors taken before the NVIDIA families (R3: majors move), 0..64");
static unsigned int uvm_major;
module_param(uvm_major, uint, 0444);
MODULE_PARM_DESC(uvm_major, "major of nvidia-uvm (default 0: dynamic)");
static unsigned int caps_major;
module_param(caps_major, uint, 0444);
MODULE_PARM_DESC(caps_major, "major of nvidia-caps (default 0: dynamic)");
static unsigned int imex_major;
module_param(imex_major, uint, 0444);
MODULE_PARM_DESC(imex_major,
		 "major of nvidia-caps-imex-channels (default 0: dynamic)");

struct nvsim_devfam {
	const char *name;
	unsigned int *want; /* fixed major, or NULL for 195 */
	unsigned int first_minor;
	unsigned int count;
	dev_t base;
	struct cdev cdev;
	bool registered;
	bool added;
};

static struct nvsim_devfam nvsim_devfams[] = {
	{ .name = "nvidia", .first_minor = 0, .count = 254 },
	{ .name = "nvidiactl", .first_minor = 255, .count = 1 },
	{ .name = "nvidia-uvm", .want = &uvm_major, .count = 2 },
	{ .name = "nvidia-caps", .want = &caps_major, .count = 256 },
	{ .name = "nvidia-caps-imex-channels", .want = &imex_major,
	  .count = 256 },
};

static dev_t nvsim_pads[NVSIM_DEV_PAD_MAX];
static unsigned int nvsim_nr_pads;

static int nvsim_dev_open(struct inode *inode, struct file *file)
{
	return 0;
}

static int nvsim_dev_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations nvsim_dev_fops = {
	.owner = THIS_MODULE,
	.open = nvsim_dev_open,
	.release = nvsim_dev_release,
	.llseek = noop_llseek,
};

static int nvsim_devfam_register(struct nvsim_devfam *f)
{
	unsigned int major = f->want ? *f->want : NVSIM_NV_MAJOR;
	int rc;

	if (major) {
		f->base = MKDEV(major, f->first_minor);
		rc = register_chrdev_region(f->base, f->count, f->name);
	} else {
		rc = alloc_chrdev_region(&f->base, f->first_minor, f->count,
					 f->name);
	}
	if (rc) {
		pr_err("nvsim: devices: cannot register %s (major %u): %d\n",
		       f->name, major, rc);
		return rc;
	}
	f->registered = true;
	cdev_init(&f->cdev, &nvsim_dev_fops);
	f->cdev.owner = THIS_MODULE;
	rc = cdev_add(&f->cdev, f->base, f->count);
	if (rc)
		return rc;
	f->added = true;
	return 0;
}

void nvsim_devices_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nvsim_devfams); i++) {
		struct nvsim_devfam *f = &nvsim_devfams[i];

		if (f->added)
			cdev_del(&f->cdev);
		if (f->registered)
			unregister_chrdev_region(f->base, f->count);
		f->added = false;
		f->registered = false;
	}
	for (i = 0; i < nvsim_nr_pads; i++)
		unregister_chrdev_region(nvsim_pads[i], 1);
	nvsim_nr_pads = 0;
}

int nvsim_devices_init(void)
{
	unsigned int i;
	int rc;

	if (dev_pad > NVSIM_DEV_PAD_MAX) {
		pr_err("nvsim: dev_pad=%u: at most %u\n", dev_pad,
		       NVSIM_DEV_PAD_MAX);
		return -EINVAL;
	}
	for (i = 0; i < dev_pad; i++) {
		rc = alloc_chrdev_region(&nvsim_pads[i], 0, 1, "nvsim-pad");
		if (rc)
			goto fail;
		nvsim_nr_pads++;
	}
	for (i = 0; i < ARRAY_SIZE(nvsim_devfams); i++) {
		rc = nvsim_devfam_register(&nvsim_devfams[i]);
		if (rc)
			goto fail;
	}
	pr_info("nvsim: devices: nvidia %u nvidiactl %u nvidia-uvm %u nvidia-caps %u nvidia-caps-imex-channels %u (dev_pad=%u)\n",
		MAJOR(nvsim_devfams[0].base), MAJOR(nvsim_devfams[1].base),
		MAJOR(nvsim_devfams[2].base), MAJOR(nvsim_devfams[3].base),
		MAJOR(nvsim_devfams[4].base), dev_pad);
	return 0;
fail:
	nvsim_devices_exit();
	return rc;
}
