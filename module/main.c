// SPDX-License-Identifier: GPL-2.0
/* pagetrail: module init/exit, parameters and wiring. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>

static struct dentry *pt_dir;

static int __init pagetrail_init(void)
{
	pt_dir = debugfs_create_dir("pagetrail", NULL);
	pr_info("loaded\n");
	return 0;
}

static void __exit pagetrail_exit(void)
{
	debugfs_remove_recursive(pt_dir);
	pr_info("unloaded\n");
}

module_init(pagetrail_init);
module_exit(pagetrail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Page lifetime tracer for driver page pools");
