// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: the driver release it models, and the one behaviour that changed
 * between releases and matters to a tracer's diagnosis: from 595.71.05
 * (and 595.44.06, 580.159.03, 535.309.01, all 2026-04-28 or later) and in
 * 610.x, the control file's mmap context takes a usage_count reference on
 * its allocation and drops it when that file closes (nvidia-610.md D5).
 * An allocation can then no longer be freed under a live context: RM's
 * free leaves the pages to the context, and they are released at its close.
 * The release is a load parameter; its default follows the linkage this
 * build has (NVSIM_STATIC_POOL: 610.x). /proc/driver/nvsim/version says
 * it the way /proc/driver/nvidia/version does, for the tools that read it.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include "nvsim.h"

#ifdef NVSIM_STATIC_POOL
static char *release = "610.43.02";
#else
static char *release = "595.45.04";
#endif
module_param(release, charp, 0444);
MODULE_PARM_DESC(release, "driver release modelled (595.71.05+: the mmap context holds a reference)");

bool nvsim_ctx_ref;

/* The first release of each branch whose context holds the reference. */
static const struct {
	unsigned int major, minor, patch;
} nvsim_ctx_ref_since[] = {
	{ 535, 309, 1 }, { 580, 159, 3 }, { 595, 44, 6 }, { 595, 71, 5 },
};

static bool nvsim_release_has_ctx_ref(unsigned int ma, unsigned int mi,
				      unsigned int pa)
{
	unsigned int i;

	if (ma > 595)
		return true;
	for (i = 0; i < ARRAY_SIZE(nvsim_ctx_ref_since); i++) {
		if (ma != nvsim_ctx_ref_since[i].major)
			continue;
		/* 595.44.x is its own branch; 595.45-595.70 predate the fix. */
		if (ma == 595 && nvsim_ctx_ref_since[i].minor == 44 && mi != 44)
			continue;
		if (mi > nvsim_ctx_ref_since[i].minor ||
		    (mi == nvsim_ctx_ref_since[i].minor &&
		     pa >= nvsim_ctx_ref_since[i].patch))
			return true;
	}
	return false;
}

static int nvsim_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (nvsim, %s linkage, mmap context %s)\n",
		   release, IS_ENABLED(NVSIM_STATIC_POOL) ? "610.x" : "595.x",
		   nvsim_ctx_ref ? "holds a usage_count reference" : "holds no reference");
	return 0;
}

int nvsim_release_init(void)
{
	unsigned int ma, mi, pa = 0;
	int n = sscanf(release, "%u.%u.%u", &ma, &mi, &pa);

	if (n < 2 || ma < 590) {
		pr_err("nvsim: release=%s: want MAJOR.MINOR[.PATCH] of a release with the pool (590.44.01 or later)\n",
		       release);
		return -EINVAL;
	}
	nvsim_ctx_ref = nvsim_release_has_ctx_ref(ma, mi, pa);
	if (!proc_mkdir("driver/nvsim", NULL) ||
	    !proc_create_single("driver/nvsim/version", 0444, NULL,
				nvsim_version_show)) {
		remove_proc_subtree("driver/nvsim", NULL);
		return -ENOMEM;
	}
	pr_info("nvsim: models %s: the mmap context %s\n", release,
		nvsim_ctx_ref ? "holds a usage_count reference" : "holds no reference");
	return 0;
}

void nvsim_release_exit(void)
{
	remove_proc_subtree("driver/nvsim", NULL);
}
