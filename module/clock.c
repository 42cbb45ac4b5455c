// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the stamp's clock (clock.h). Chosen at load, and made causal
 * later if the kernel marks the TSC unstable: the probes read the choice
 * through a static key, so the local clock costs nothing more than
 * local_clock() itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <pagetrail/clock.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#endif

DEFINE_STATIC_KEY_FALSE(pt_clock_causal_key);

atomic64_t pt_clock_last;
static const char *pt_clock_why = "";
static bool pt_clock_auto;
static DEFINE_MUTEX(pt_clock_lock);

/*
 * Whether every CPU's local_clock() reads one time. The kernel's own
 * answer (sched_clock_stable()) is not exported. On x86 it follows the
 * TSC being marked unstable and the paravirt clock's own word; this asks
 * more (an invariant TSC, bare metal), erring towards causal: a wrong
 * "causal" costs a shared write per stamp, a wrong "local" misorders.
 */
static bool pt_clock_cpus_agree(const char **why)
{
#if !defined(CONFIG_HAVE_UNSTABLE_SCHED_CLOCK)
	*why = "sched_clock is stable on this architecture";
	return true;
#elif defined(CONFIG_X86)
	if (!boot_cpu_has(X86_FEATURE_CONSTANT_TSC) ||
	    !boot_cpu_has(X86_FEATURE_NONSTOP_TSC)) {
		*why = "no invariant TSC (constant_tsc, nonstop_tsc)";
		return false;
	}
	if (check_tsc_unstable()) {
		*why = "the TSC is marked unstable";
		return false;
	}
	if (boot_cpu_has(X86_FEATURE_HYPERVISOR)) {
		*why = "under a hypervisor, whose clock may not be stable";
		return false;
	}
	*why = "invariant TSC";
	return true;
#else
	*why = "sched_clock may be unstable on this architecture";
	return false;
#endif
}

int pt_clock_init(const char *mode)
{
	bool causal;

	pt_clock_auto = !mode || !*mode || sysfs_streq(mode, "auto");
	if (pt_clock_auto) {
		causal = !pt_clock_cpus_agree(&pt_clock_why);
	} else if (sysfs_streq(mode, "local")) {
		causal = false;
		pt_clock_why = "clock=local";
	} else if (sysfs_streq(mode, "causal")) {
		causal = true;
		pt_clock_why = "clock=causal";
	} else {
		pr_err("clock=%s: unknown; choose auto, local or causal\n",
		       mode);
		return -EINVAL;
	}
	atomic64_set(&pt_clock_last, local_clock());
	if (causal)
		static_branch_enable(&pt_clock_causal_key);
	else
		static_branch_disable(&pt_clock_causal_key);
	return 0;
}

void pt_clock_recheck(void)
{
	const char *why;

	if (!pt_clock_auto || pt_clock_is_causal() || pt_clock_cpus_agree(&why))
		return;
	mutex_lock(&pt_clock_lock);
	if (!pt_clock_is_causal()) {
		atomic64_set(&pt_clock_last, local_clock());
		pt_clock_why = why;
		static_branch_enable(&pt_clock_causal_key);
		pr_warn("clock: %s since load: stamps are causal from now on, earlier ones only as exact as each CPU's clock\n",
			why);
	}
	mutex_unlock(&pt_clock_lock);
}

const char *pt_clock_name(void)
{
	return pt_clock_is_causal() ? "causal" : "local";
}

const char *pt_clock_reason(void)
{
	return pt_clock_why;
}
