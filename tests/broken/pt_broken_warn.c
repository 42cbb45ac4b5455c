// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately broken module: it triggers a kernel warning at load. The
 * runner's self-test loads it to prove that a run whose scenarios all pass
 * still fails when the kernel logged a warning.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init pt_broken_warn_init(void)
{
	WARN(1, "pt_broken_warn: deliberate warning for the runner self-test\n");
	return 0;
}

static void __exit pt_broken_warn_exit(void)
{
}

module_init(pt_broken_warn_init);
module_exit(pt_broken_warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pagetrail test: warns at load (runner self-test)");
