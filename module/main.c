// SPDX-License-Identifier: GPL-2.0
/* pagetrail: module init/exit, parameters and wiring. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <pagetrail/clock.h>
#include <pagetrail/ring.h>
#include <pagetrail/tracker.h>
#include <pagetrail/stage.h>
#include <pagetrail/frames.h>
#include <pagetrail/probes.h>
#include <pagetrail/recorder.h>
#include <pagetrail/target.h>
#include <pagetrail/profile.h>
#include <pagetrail/debugfs.h>
#include <pagetrail/token.h>
#include <pagetrail/devcg.h>

static char *profile;
module_param(profile, charp, 0444);
MODULE_PARM_DESC(
	profile,
	"pool to trace: nvidia (the NVIDIA open driver's, default) or pagepool (the kernel's network page_pool)");

static char *target;
module_param(target, charp, 0444);
MODULE_PARM_DESC(
	target,
	"module to trace (default: the profile's driver, \"nvidia\"; pagepool: vmlinux)");

static bool attach = true;
module_param(attach, bool, 0444);
MODULE_PARM_DESC(attach,
		 "attach at load, or as soon as the target loads (default 1)");

static unsigned int ring_kb;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(
	ring_kb,
	"flight recorder size per CPU in KiB (0: 128 MiB shared by the CPUs, 256..4096 each)");

static bool overwrite = true;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(
	overwrite,
	"ring full: 1 overwrite the oldest records, 0 drop new ones (default 1)");

static bool freeze_on_anomaly;
module_param(freeze_on_anomaly, bool, 0444);
MODULE_PARM_DESC(freeze_on_anomaly,
		 "stop recording after the first anomaly (default 0)");

static bool record_first = true;
module_param(record_first, bool, 0444);
MODULE_PARM_DESC(
	record_first,
	"probes only stage what they saw and a consumer interprets it (default 1); 0: interpret on the probe path");

static unsigned int stage_kb;
module_param(stage_kb, uint, 0444);
MODULE_PARM_DESC(
	stage_kb,
	"record_first=1: staging per CPU in KiB (0: ring_kb within 1024..4096; 64..65536)");

static unsigned int stage_wake_pct;
module_param(stage_wake_pct, uint, 0444);
MODULE_PARM_DESC(
	stage_wake_pct,
	"record_first=1: wake the consumer when a CPU's staging is this full, in percent (0: at the first observation, the default; at most 90)");

static unsigned int max_pages;
module_param(max_pages, uint, 0444);
MODULE_PARM_DESC(
	max_pages,
	"chunks tracked at once (0: one per two pages of RAM, 16384..4194304; <= 64 bytes each)");

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

module_param_named(probe_only, pt_param_probe_only, bool, 0444);
MODULE_PARM_DESC(
	probe_only,
	"1: probes planted and counted, handlers not run, nothing recorded: the probe machinery's own cost (make bench's floor); default 0");

static char *clock;
module_param(clock, charp, 0444);
MODULE_PARM_DESC(
	clock,
	"the stamps' clock: auto (the default: local where the CPUs' clocks agree, else causal), local (local_clock()), causal (never earlier than a stamp already taken on any CPU)");

static bool devcg;
module_param(devcg, bool, 0444);
MODULE_PARM_DESC(
	devcg,
	"record device-cgroup denials from load on (default 0; control: devcg=0|1)");

static int devcg_major = -1;
module_param(devcg_major, int, 0444);
MODULE_PARM_DESC(devcg_major,
		 "record denials of this major only (default -1: all)");

static const struct pt_profile *const pt_profiles[] = {
	&pt_profile_nvidia,
	&pt_profile_pagepool,
};

static const struct pt_profile *pt_profile;

static int pt_choose_profile(void)
{
	unsigned int i;

	if (!profile || !*profile) {
		pt_profile = &pt_profile_nvidia;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(pt_profiles); i++) {
		if (sysfs_streq(profile, pt_profiles[i]->name)) {
			pt_profile = pt_profiles[i];
			return 0;
		}
	}
	pr_err("profile=%s: unknown; choose nvidia or pagepool\n", profile);
	return -EINVAL;
}

/*
 * Per CPU, ftrace-style; the default is a total budget, so that a 224-thread
 * GPU host does not pin 900 MiB (code-review F21): 4 MiB each up to 32 CPUs,
 * then 128 MiB shared, never under 256 KiB.
 */
static unsigned int pt_default_ring_kb(void)
{
	return clamp((128u << 10) / num_possible_cpus(), 256u, 4096u);
}

/*
 * A driver's pool cannot hold more chunks than RAM has pages, and one that
 * holds half of RAM in order-0 chunks has long met the shrinker: one chunk
 * per two pages never overflows in practice and costs at most 64 bytes
 * per 8 KiB of RAM (0.8%): the million chunks of an 8 GiB machine, 62 MiB.
 */
static unsigned int pt_default_max_pages(void)
{
	return clamp_t(unsigned long, totalram_pages() / 2, 16384, 1u << 22);
}

static int pt_check_module_params(void)
{
	if (!ring_kb)
		ring_kb = pt_default_ring_kb();
	if (ring_kb < 64 || ring_kb > (1u << 20)) {
		pr_err("ring_kb=%u: must be 64..1048576\n", ring_kb);
		return -EINVAL;
	}
	/* A flight recorder must not be what runs the machine out of memory. */
	if ((u64)ring_kb * num_possible_cpus() >
	    (u64)(totalram_pages() << (PAGE_SHIFT - 10)) / 4) {
		pr_err("ring_kb=%u: %u CPUs x %u KiB is more than a quarter of RAM (%lu KiB)\n",
		       ring_kb, num_possible_cpus(), ring_kb,
		       totalram_pages() << (PAGE_SHIFT - 10));
		return -EINVAL;
	}
	if (!max_pages)
		max_pages = pt_default_max_pages();
	if (max_pages < 64 || max_pages > (1u << 22)) {
		pr_err("max_pages=%u: must be 0 (auto) or 64..4194304\n",
		       max_pages);
		return -EINVAL;
	}
	/* Staging only bridges the consumer's lag: not below 1 MiB a CPU. */
	if (!stage_kb)
		stage_kb = clamp(ring_kb, 1024u, 4096u);
	if (stage_kb < 64 || stage_kb > 65536) {
		pr_err("stage_kb=%u: must be 64..65536\n", stage_kb);
		return -EINVAL;
	}
	/* The ring and the staging together: a quarter of RAM at most. */
	if (record_first &&
	    (u64)(ring_kb + stage_kb) * num_possible_cpus() >
		    (u64)(totalram_pages() << (PAGE_SHIFT - 10)) / 4) {
		pr_err("stage_kb=%u: %u CPUs x (ring_kb %u + stage_kb %u) KiB is more than a quarter of RAM\n",
		       stage_kb, num_possible_cpus(), ring_kb, stage_kb);
		return -EINVAL;
	}
	if (stage_wake_pct > 90) {
		pr_err("stage_wake_pct=%u: must be 0..90 (the rest is the margin while the consumer wakes)\n",
		       stage_wake_pct);
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
	const char *tgt;
	char why[160];
	int ret;

	ret = pt_choose_profile();
	if (ret)
		return ret;
	tgt = target && *target ? target : pt_profile->default_target;
	if (pt_profile->builtin && strcmp(tgt, pt_profile->default_target)) {
		pr_err("target=%s: profile %s traces the kernel itself (target %s)\n",
		       tgt, pt_profile->name, pt_profile->default_target);
		return -EINVAL;
	}
	ret = pt_check_module_params();
	if (ret)
		return ret;
	if (strlen(tgt) >= MODULE_NAME_LEN) {
		pr_err("target=%s: longer than a module name (%zu characters at most)\n",
		       tgt, MODULE_NAME_LEN - 1);
		return -EINVAL;
	}
	/* Refuse bad layouts before anything exists, whatever "attach" says. */
	ret = pt_profile->check_params(why, sizeof(why));
	if (ret) {
		pr_err("refusing to load: %s (scripts/pagetrail-load finds the right values)\n",
		       why);
		return ret;
	}
	pt_token_init();
	ret = pt_clock_init(clock);
	if (ret)
		return ret;
	ret = pt_ring_init((unsigned long)ring_kb << 10, overwrite,
			   pt_recorder_issued);
	if (ret) {
		pr_err("ring_kb=%u: cannot allocate %u KiB on each of %u CPUs (%d); choose a smaller ring\n",
		       ring_kb, ring_kb, num_possible_cpus(), ret);
		return ret;
	}
	ret = pt_tracker_init(max_pages, max_anomalies);
	if (ret) {
		pr_err("max_pages=%u max_anomalies=%u: cannot allocate the tracker table (%d); choose smaller values\n",
		       max_pages, max_anomalies, ret);
		goto err_ring;
	}
	ret = pt_stage_init(record_first ? stage_kb : 0, stage_wake_pct);
	if (ret) {
		pr_err("record_first=1: cannot allocate %u KiB of staging on each of %u CPUs (%d); choose a smaller stage_kb\n",
		       stage_kb, num_possible_cpus(), ret);
		goto err_tracker;
	}
	ret = pt_frames_init();
	if (ret) {
		pr_err("cannot allocate the per-task frame table for %u CPUs (%d)\n",
		       num_possible_cpus(), ret);
		goto err_stage;
	}
	pt_recorder_set_freeze_on_anomaly(freeze_on_anomaly);
	ret = pt_target_init(pt_profile, tgt, attach);
	if (ret)
		goto err_frames;
	/* Last: readers of control and stats need the target state to exist. */
	ret = pt_debugfs_init(pt_profile);
	if (ret)
		goto err_target;
	pt_devcg_init(devcg, devcg_major); /* off on failure, says why */
	pr_info("loaded: profile %s, target %s, ring %u KiB/cpu, %u pages, clock %s (%s)\n",
		pt_profile->name, tgt, ring_kb, max_pages, pt_clock_name(),
		pt_clock_reason());
	if (pt_param_probe_only)
		pr_warn("probe_only=1: probes count their hits, no handler runs, nothing is recorded\n");
	return 0;

err_target:
	pt_target_exit();
err_frames:
	pt_frames_exit();
err_stage:
	pt_stage_exit();
err_tracker:
	pt_tracker_exit();
err_ring:
	pt_ring_exit();
	return ret;
}

static void __exit pagetrail_exit(void)
{
	/* Readers first, then probes: after this no handler runs. */
	pt_debugfs_exit();
	pt_devcg_exit();
	pt_target_exit();
	pt_stage_exit();
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
