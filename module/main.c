// SPDX-License-Identifier: GPL-2.0
/* pagetrail: module init/exit, parameters and wiring. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <pagetrail/ring.h>
#include <pagetrail/tracker.h>
#include <pagetrail/frames.h>
#include <pagetrail/probes.h>
#include <pagetrail/events.h>
#include <pagetrail/target.h>
#include <pagetrail/profile.h>
#include <pagetrail/debugfs.h>
#include <pagetrail/token.h>

static char *target;
module_param(target, charp, 0444);
MODULE_PARM_DESC(target,
		 "module to trace (default: the profile's driver, \"nvidia\")");

static bool attach = true;
module_param(attach, bool, 0444);
MODULE_PARM_DESC(attach,
		 "attach at load, or as soon as the target loads (default 1)");

static unsigned int ring_kb = 4096;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb, "flight recorder size per CPU in KiB (default 4096)");

static bool overwrite = true;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(
	overwrite,
	"ring full: 1 overwrite the oldest records, 0 drop new ones (default 1)");

static bool freeze_on_anomaly;
module_param(freeze_on_anomaly, bool, 0444);
MODULE_PARM_DESC(freeze_on_anomaly,
		 "stop recording after the first anomaly (default 0)");

static unsigned int max_pages = 16384;
module_param(max_pages, uint, 0444);
MODULE_PARM_DESC(max_pages,
		 "chunks tracked at once (default 16384, ~470 bytes each)");

static unsigned int max_anomalies = 64;
module_param(max_anomalies, uint, 0444);
MODULE_PARM_DESC(
	max_anomalies,
	"anomalies kept with history and stack (default 64; more are counted)");

module_param_named(maxactive, pt_param_maxactive, int, 0444);
MODULE_PARM_DESC(maxactive,
		 "concurrent calls tracked per return probe (default 64)");

module_param_named(backend, pt_param_backend, int, 0444);
MODULE_PARM_DESC(
	backend,
	"probe backend: 0 auto (fprobe where available), 1 kprobes, 2 fprobe only");

static const struct pt_profile *pt_profile = &pt_profile_nvidia;

static int pt_check_module_params(void)
{
	if (ring_kb < 64 || ring_kb > (1u << 20)) {
		pr_err("ring_kb=%u: must be 64..1048576\n", ring_kb);
		return -EINVAL;
	}
	if (max_pages < 64 || max_pages > (1u << 22)) {
		pr_err("max_pages=%u: must be 64..4194304\n", max_pages);
		return -EINVAL;
	}
	if (!max_anomalies || max_anomalies > 4096) {
		pr_err("max_anomalies=%u: must be 1..4096\n", max_anomalies);
		return -EINVAL;
	}
	if (pt_param_maxactive < 1 || pt_param_maxactive > 4096) {
		pr_err("maxactive=%d: must be 1..4096\n", pt_param_maxactive);
		return -EINVAL;
	}
	if (pt_param_backend < 0 || pt_param_backend > 2) {
		pr_err("backend=%d: must be 0 (auto), 1 (kprobes) or 2 (fprobe)\n",
		       pt_param_backend);
		return -EINVAL;
	}
	if (pt_param_backend == 2 && !PT_HAVE_FPROBE) {
		pr_err("backend=2: this kernel has no usable fprobe\n");
		return -EINVAL;
	}
	return 0;
}

static int __init pagetrail_init(void)
{
	const char *tgt = target && *target ? target :
					      pt_profile->default_target;
	char why[160];
	int ret;

	ret = pt_check_module_params();
	if (ret)
		return ret;
	/* Refuse bad layouts before anything exists, whatever "attach" says. */
	ret = pt_profile->check_params(why, sizeof(why));
	if (ret) {
		pr_err("refusing to load: %s (scripts/pagetrail-load finds the right values)\n",
		       why);
		return ret;
	}
	pt_token_init();
	ret = pt_probes_init();
	if (ret)
		return ret;
	ret = pt_ring_init((unsigned long)ring_kb << 10, overwrite);
	if (ret)
		return ret;
	ret = pt_tracker_init(max_pages, max_anomalies);
	if (ret)
		goto err_ring;
	pt_frames_init();
	pt_events_set_freeze_on_anomaly(freeze_on_anomaly);
	ret = pt_debugfs_init(pt_profile);
	if (ret)
		goto err_tracker;
	ret = pt_target_init(pt_profile, tgt, attach);
	if (ret)
		goto err_debugfs;
	pr_info("loaded: profile %s, target %s, ring %u KiB/cpu, %u pages\n",
		pt_profile->name, tgt, ring_kb, max_pages);
	return 0;

err_debugfs:
	pt_debugfs_exit();
err_tracker:
	pt_tracker_exit();
err_ring:
	pt_ring_exit();
	return ret;
}

static void __exit pagetrail_exit(void)
{
	/* Probes first: after this no handler runs and no reader can start. */
	pt_target_exit();
	pt_debugfs_exit();
	pt_frames_exit();
	pt_tracker_exit();
	pt_ring_exit();
	pr_info("unloaded\n");
}

module_init(pagetrail_init);
module_exit(pagetrail_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Page lifetime tracer for driver page pools");
MODULE_VERSION(PAGETRAIL_VERSION);
