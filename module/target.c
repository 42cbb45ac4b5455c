// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: follow the target module. If it is not loaded, wait for it
 * (module notifier); attach its profile when it goes live; detach when it
 * goes away, after its exit code ran so pool destruction is still seen.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/seq_file.h>
#include <linux/atomic.h>
#include <pagetrail/target.h>
#include <pagetrail/profile.h>
#include <pagetrail/probes.h>
#include <pagetrail/frames.h>
#include <pagetrail/tracker.h>

enum pt_target_state {
	PT_TGT_DETACHED,
	PT_TGT_WAITING,
	PT_TGT_ATTACHED,
	PT_TGT_REFUSED
};

static const char *const pt_target_state_names[] = {
	[PT_TGT_DETACHED] = "detached",
	[PT_TGT_WAITING] = "waiting",
	[PT_TGT_ATTACHED] = "attached",
	[PT_TGT_REFUSED] = "refused",
};

static DEFINE_MUTEX(pt_target_lock); /* state, attach and detach */
static const struct pt_profile *pt_prof;
static char pt_target_name[MODULE_NAME_LEN];
static enum pt_target_state pt_state;
static int pt_target_error;
static char pt_target_why[160];
static unsigned int pt_attach_count;
static bool pt_wanted; /* attach whenever the target is live */
static struct work_struct pt_attach_work;
static struct work_struct pt_fail_work;
static char pt_fail_why[160]; /* set once by pt_target_fail() */
static atomic_t pt_failing = ATOMIC_INIT(0);
static bool pt_exiting; /* under pt_target_lock: pt_failing stays set */
/* The target's struct module, COMING to GOING (NULL: it loaded before us) */
static struct module *pt_target_mod;

struct module *pt_target_module(void)
{
	return READ_ONCE(pt_target_mod);
}

/*
 * Live, not merely present: a module past MODULE_STATE_GOING still has its
 * symbols, but refuses the kprobe. Called under pt_target_lock, so a GOING
 * that starts after this sees ATTACHED and detaches.
 */
static bool pt_target_loaded(void)
{
	char sym[MODULE_NAME_LEN + KSYM_NAME_LEN + 2];

	if (pt_prof->builtin)
		return !pt_resolve_function(pt_prof->anchor_symbol, NULL);
	snprintf(sym, sizeof(sym), "%s:%s", pt_target_name,
		 pt_prof->anchor_symbol);
	return !pt_resolve_function(sym, NULL);
}

static int pt_target_attach_locked(void)
{
	int ret;

	if (pt_state == PT_TGT_ATTACHED)
		return 0;
	pt_wanted = true;
	ret = pt_prof->check_params(pt_target_why, sizeof(pt_target_why));
	if (ret) {
		pr_err("refusing to attach to %s: %s\n", pt_target_name,
		       pt_target_why);
		pt_state = PT_TGT_REFUSED;
		pt_target_error = ret;
		return ret;
	}
	if (!pt_target_loaded()) {
		pt_state = PT_TGT_WAITING;
		pt_target_error = 0;
		pt_target_why[0] = '\0';
		pr_info("waiting for module %s\n", pt_target_name);
		return 0;
	}
	pt_frames_reset();
	pt_tracker_set_partial(true);
	ret = pt_prof->attach(pt_target_name);
	if (ret) {
		snprintf(pt_target_why, sizeof(pt_target_why),
			 "attach failed (%d), see dmesg", ret);
		pr_err("not attached to %s (%d); nothing is planted\n",
		       pt_target_name, ret);
		pt_state = PT_TGT_REFUSED;
		pt_target_error = ret;
		return ret;
	}
	/*
	 * After every probe and hook is in: while they were planted one by
	 * one (seconds on a busy machine), frees or takes went unseen, so
	 * what was observed until now is from an epoch with holes in it.
	 */
	pt_tracker_set_partial(false);
	pt_state = PT_TGT_ATTACHED;
	pt_target_error = 0;
	pt_target_why[0] = '\0';
	pt_attach_count++;
	pr_info("attached to %s (profile %s)\n", pt_target_name, pt_prof->name);
	return 0;
}

static void pt_target_detach_locked(enum pt_target_state next)
{
	if (pt_state == PT_TGT_ATTACHED) {
		pt_tracker_set_partial(true);
		pt_frames_stop();
		pt_prof->detach();
		pt_frames_reset();
		pr_info("detached from %s\n", pt_target_name);
	}
	pt_state = next;
}

int pt_target_attach(void)
{
	int ret;

	mutex_lock(&pt_target_lock);
	ret = pt_target_attach_locked();
	mutex_unlock(&pt_target_lock);
	return ret;
}

void pt_target_detach(void)
{
	mutex_lock(&pt_target_lock);
	pt_wanted = false;
	pt_target_detach_locked(PT_TGT_DETACHED);
	mutex_unlock(&pt_target_lock);
}

bool pt_target_attached(void)
{
	return READ_ONCE(pt_state) == PT_TGT_ATTACHED;
}

static void pt_attach_workfn(struct work_struct *work)
{
	mutex_lock(&pt_target_lock);
	if (pt_wanted)
		pt_target_attach_locked();
	mutex_unlock(&pt_target_lock);
}

/* Wrong layouts seen at run time: stop tracing rather than record lies. */
static void pt_fail_workfn(struct work_struct *work)
{
	mutex_lock(&pt_target_lock);
	if (pt_state == PT_TGT_ATTACHED) {
		pt_target_detach_locked(PT_TGT_REFUSED);
		pt_wanted = false;
		pt_target_error = -EINVAL;
		strscpy(pt_target_why, pt_fail_why, sizeof(pt_target_why));
		pr_err("detached from %s: %s\n", pt_target_name, pt_target_why);
	}
	/* Re-armed for the next attach, unless the module is going away. */
	if (!pt_exiting)
		atomic_set(&pt_failing, 0);
	mutex_unlock(&pt_target_lock);
}

/* Probe context: once a contradiction was seen, walks stop early. */
bool pt_target_failing(void)
{
	return atomic_read(&pt_failing);
}

/* From probe context: the profile found the layout contradicted by the target. */
void pt_target_fail(const char *why)
{
	if (atomic_cmpxchg(&pt_failing, 0, 1))
		return;
	strscpy(pt_fail_why, why, sizeof(pt_fail_why));
	schedule_work(&pt_fail_work);
}

static int pt_module_event(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, pt_target_name))
		return NOTIFY_DONE;
	/* Seen loading: its struct module is the profile's until it goes. */
	if (action == MODULE_STATE_COMING)
		WRITE_ONCE(pt_target_mod, mod);
	if (action == MODULE_STATE_LIVE) {
		/* Planting kprobes inside the notifier chain is not ours to do. */
		schedule_work(&pt_attach_work);
	} else if (action == MODULE_STATE_GOING) {
		mutex_lock(&pt_target_lock);
		if (pt_state == PT_TGT_ATTACHED) {
			pt_target_detach_locked(PT_TGT_WAITING);
			pr_info("%s is unloading; waiting for it to come back\n",
				pt_target_name);
		}
		/* Detached: no handler reads it any more; it is freed next. */
		WRITE_ONCE(pt_target_mod, NULL);
		mutex_unlock(&pt_target_lock);
	}
	return NOTIFY_DONE;
}

static struct notifier_block pt_module_nb = { .notifier_call =
						      pt_module_event };

int pt_target_init(const struct pt_profile *profile, const char *target,
		   bool attach)
{
	int ret;

	pt_prof = profile;
	strscpy(pt_target_name, target, sizeof(pt_target_name));
	INIT_WORK(&pt_attach_work, pt_attach_workfn);
	INIT_WORK(&pt_fail_work, pt_fail_workfn);
	pt_state = PT_TGT_DETACHED;
	ret = register_module_notifier(&pt_module_nb);
	if (ret)
		return ret;
	if (attach) {
		ret = pt_target_attach();
		if (ret) {
			/*
			 * As at unload: a handler planted before the failing
			 * step may have queued pt_fail_work, and a LIVE event
			 * an attach; neither may outlive the module.
			 */
			pt_target_exit();
			return ret;
		}
	}
	return 0;
}

/*
 * Probes first: until they are gone a handler can queue pt_fail_work, so
 * cancelling before that would leave work to run in freed module text.
 * pt_failing stays set, so nothing queues it again.
 */
void pt_target_exit(void)
{
	unregister_module_notifier(&pt_module_nb);
	mutex_lock(&pt_target_lock);
	pt_wanted = false;
	pt_target_detach_locked(PT_TGT_DETACHED);
	pt_exiting = true;
	atomic_set(&pt_failing, 1);
	mutex_unlock(&pt_target_lock);
	cancel_work_sync(&pt_attach_work);
	cancel_work_sync(&pt_fail_work);
}

void pt_target_show(struct seq_file *m)
{
	mutex_lock(&pt_target_lock);
	seq_printf(m,
		   "state=%s\ntarget=%s\nprofile=%s\nattaches=%u\nerror=%d\n",
		   pt_target_state_names[pt_state], pt_target_name,
		   pt_prof->name, pt_attach_count, pt_target_error);
	if (pt_target_why[0])
		seq_printf(m, "reason=%s\n", pt_target_why);
	mutex_unlock(&pt_target_lock);
}
