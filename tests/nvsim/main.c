// SPDX-License-Identifier: GPL-2.0
/*
 * nvsim: a test target that behaves like the NVIDIA open module's
 * system-memory page pool and sysmem mmap path (driver 590.48.01 .. 595.x)
 * wherever a kprobe-based tracer can see it. Module load and unload; the
 * unload line states whether every page nvsim took came back.
 */
#include <linux/init.h>
#include <linux/module.h>
#include "nvsim.h"

/* flags.pool must be byte 25 bit 3, which offsetof() cannot check. */
static int nvsim_check_flag_bits(void)
{
	nv_alloc_t probe = {};
	const u8 *raw = (const u8 *)&probe;

	probe.flags.pool = 1;
	probe.flags.zeroed = 1;
	if (raw[25] != 0x08 || raw[24] != 0x04) {
		pr_err("nvsim: nv_alloc_t flag bits misplaced (24=0x%02x 25=0x%02x)\n",
		       raw[24], raw[25]);
		return -EINVAL;
	}
	return 0;
}

static void nvsim_report_balance(void)
{
	s64 fresh = nvsim_read(chunks_fresh), freed = nvsim_read(chunks_freed);
	s64 contained = nvsim_read(chunks_contained);
	s64 pfresh = nvsim_read(pages_fresh), pfreed = nvsim_read(pages_freed);
	s64 pcontained = nvsim_read(pages_contained);
	bool balanced = fresh == freed + contained && pfresh == pfreed + pcontained &&
			!nvsim_read(allocs_live);

	pr_info("nvsim: unload: chunks_fresh=%lld chunks_freed=%lld chunks_contained=%lld pages_fresh=%lld pages_freed=%lld pages_contained=%lld allocs_live=%lld balanced=%d\n",
		fresh, freed, contained, pfresh, pfreed, pcontained, nvsim_read(allocs_live),
		balanced);
}

static int __init nvsim_init(void)
{
	int rc;

	nvsim_check_layouts();
	rc = nvsim_check_flag_bits();
	if (rc)
		return rc;

	rc = nvsim_release_init();
	if (rc)
		return rc;
	rc = nvsim_pool_aux_init();
	if (rc)
		goto out_release;
	rc = nvsim_debugfs_init();
	if (rc)
		goto out_aux;
	/* The driver ignores this failure (a positive NV_STATUS); nvsim does not. */
	if (nv_init_page_pools() != NV_OK) {
		rc = -ENOMEM;
		goto out_pools;
	}
	rc = nvsim_chardev_init();
	if (rc)
		goto out_pools;
	rc = nvsim_devices_init();
	if (rc) {
		nvsim_chardev_exit();
		goto out_pools;
	}

	pr_info("nvsim: loaded: NVreg_EnableSystemMemoryPools=0x%x NV_MAX_PAGE_ORDER=%d nodes=%u\n",
		NVreg_EnableSystemMemoryPools, NV_MAX_PAGE_ORDER, num_possible_nodes());
	return 0;

out_pools:
	nv_destroy_page_pools();
	nvsim_debugfs_exit();
out_aux:
	nvsim_pool_aux_exit();
out_release:
	nvsim_release_exit();
	return rc;
}

static void __exit nvsim_exit(void)
{
	nvsim_devices_exit();
	nvsim_chardev_exit();
	nvsim_faults_exit();
	nv_destroy_page_pools();
	nvsim_alloc_exit();
	nvsim_faults_check_contained();
	nvsim_report_balance();
	nvsim_debugfs_exit();
	nvsim_pool_aux_exit();
	nvsim_release_exit();
}

module_init(nvsim_init);
module_exit(nvsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pagetrail test target: NVIDIA open module sysmem pool and mmap simulator");
