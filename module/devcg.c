// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: record device-cgroup denials, the EPERM behind CUDA's "unknown
 * error" (999) in containers whose allow-list misses a (moved) major.
 *
 * devcgroup_inode_permission() and devcgroup_inode_mknod() are inline; both
 * call devcgroup_check_permission() (out of line on 6.1 and 6.12), which
 * runs the cgroup v2 BPF device programs (__cgroup_bpf_check_dev_permission)
 * and then the v1 devices controller (its check is static and inlined on
 * Debian's builds). A kretprobe on the first gives every verdict, one on
 * the BPF runner says which policy denied. The probes exist only while
 * recording is on; an allowed check then costs the entry handler's copy of
 * the arguments and one early return. Strings (registered name, cgroup
 * path) are filled in later by a work item that may sleep and take locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/device_cgroup.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string_helpers.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/syscall.h>
#include "compat.h"
#include <pagetrail/clock.h>
#include <pagetrail/devcg.h>
#include <pagetrail/events.h>
#include <pagetrail/record.h>
#include <pagetrail/tracker.h>
#include "trace.h"

#define PT_DEVCG_SLOTS 128 /* denials kept with their strings */
#define PT_DEVCG_MARKS 64 /* tasks between a BPF verdict and its caller */
#define PT_DEVCG_DEVICES_MAX 16384 /* bytes of /proc/devices read */
/*
 * A cgroup records this many denials back to back, then one a second:
 * a task looping on a denied open must not flush the driver's history
 * from the ring. Cgroups share buckets by hash of their id.
 */
#define PT_DEVCG_BURST 32
/* Octal, for the characters listed and all but printable ASCII. */
#define PT_DEVCG_ESCAPE (ESCAPE_OCTAL | ESCAPE_NAP | ESCAPE_APPEND)
#define PT_DEVCG_BUCKETS 64

enum { PT_SLOT_FREE, PT_SLOT_PENDING, PT_SLOT_RESOLVING, PT_SLOT_DONE };

struct pt_devcg_slot {
	struct pt_devcg_denial d;
	struct cgroup *cgrp; /* reference held until the resolver ran */
	u8 state;
};

/* devcgroup_check_permission(short type, u32 major, u32 minor, short access) */
struct pt_devcg_args {
	u32 major;
	u32 minor;
	u16 type;
	u16 access;
};

struct pt_devcg_stats {
	u64 denials; /* recorded */
	u64 ring_only; /* slot still waiting for its strings: ring record only */
	u64 no_cgroup; /* cgroup already gone at the denial */
	u64 no_name; /* /proc/devices unreadable in the resolver */
	u64 repeats; /* over the rate: counted on a kept denial like it */
	u64 rate_limited; /* over the rate, and none like it kept: count only */
};

/* Denials a cgroup's bucket spent; one comes back each second. */
struct pt_devcg_bucket {
	unsigned long last; /* jiffies of the last refill */
	u32 spent;
};

static DEFINE_MUTEX(pt_devcg_mutex); /* on/off, probe (un)registration */
static DEFINE_RAW_SPINLOCK(pt_devcg_lock); /* table, ids, stats */
static struct pt_devcg_slot pt_devcg_table[PT_DEVCG_SLOTS];
static u64 pt_devcg_last_id;
static struct pt_devcg_stats pt_devcg_stats;
static struct pt_devcg_bucket pt_devcg_buckets[PT_DEVCG_BUCKETS];
static bool pt_devcg_on;
static bool pt_devcg_bpf_planted;
static int pt_devcg_major = -1; /* record this major only; -1 all */
static struct task_struct *pt_devcg_marks[PT_DEVCG_MARKS];
static atomic_long_t pt_devcg_marks_full; /* BPF verdicts not passed on */
static struct kretprobe pt_devcg_check_rp;
static struct kretprobe pt_devcg_bpf_rp;

static void pt_devcg_resolve(struct work_struct *work);
static DECLARE_WORK(pt_devcg_work, pt_devcg_resolve);

/* --- which policy denied ------------------------------------------------ */

/* The BPF runner denied for current: remember it until the caller returns. */
static void pt_devcg_mark(void)
{
	unsigned int i, h = hash_ptr(current, 6);

	for (i = 0; i < PT_DEVCG_MARKS; i++) {
		struct task_struct **slot =
			&pt_devcg_marks[(h + i) % PT_DEVCG_MARKS];

		if (!cmpxchg(slot, NULL, current))
			return;
	}
	atomic_long_inc(&pt_devcg_marks_full);
}

static bool pt_devcg_take_mark(void)
{
	unsigned int i;

	for (i = 0; i < PT_DEVCG_MARKS; i++) {
		if (READ_ONCE(pt_devcg_marks[i]) == current) {
			WRITE_ONCE(pt_devcg_marks[i], NULL);
			return true;
		}
	}
	return false;
}

static u8 pt_devcg_source(void)
{
	if (pt_devcg_take_mark())
		return PT_DEVCG_SRC_BPF;
	return READ_ONCE(pt_devcg_bpf_planted) ? PT_DEVCG_SRC_V1 :
						 PT_DEVCG_SRC_UNKNOWN;
}

/* --- the denial, in probe context --------------------------------------- */

/* The cgroup whose policy applied, with a reference for the resolver. */
static struct cgroup *pt_devcg_task_cgroup(u8 src)
{
	struct cgroup *cgrp;

	rcu_read_lock();
#ifdef CONFIG_CGROUP_DEVICE
	if (src == PT_DEVCG_SRC_V1)
		cgrp = task_css(current, devices_cgrp_id)->cgroup;
	else
#endif
		cgrp = task_dfl_cgroup(current);
	if (!cgroup_tryget(cgrp))
		cgrp = NULL;
	rcu_read_unlock();
	return cgrp;
}

/*
 * A user string without faulting (strncpy_from_user_nofault is not
 * exported): page by page, so a name near the end of its mapping reads.
 */
static void pt_devcg_copy_user_str(char *buf, const char __user *src,
				   size_t len)
{
	size_t done = 0, chunk;

	while (done < len - 1) {
		chunk = PAGE_SIZE - offset_in_page(src + done);
		chunk = min(chunk, len - 1 - done);
		if (copy_from_user_nofault(buf + done, src + done, chunk))
			break;
		if (memchr(buf + done, '\0', chunk))
			return;
		done += chunk;
	}
	buf[done] = '\0';
}

/*
 * The node's path as the syscall named it (relative paths stay relative).
 * Opens that came without a path (io_uring workers, kernel threads, 32-bit
 * syscalls) leave it empty.
 */
static void pt_devcg_copy_path(char *buf, size_t len)
{
	unsigned long args[6];
	const char __user *name;
	struct pt_regs *regs;

	buf[0] = '\0';
	if (!in_task() || (current->flags & (PF_KTHREAD | PF_IO_WORKER)) ||
	    in_compat_syscall())
		return;
	regs = task_pt_regs(current);
	syscall_get_arguments(current, regs, args);
	switch (syscall_get_nr(current, regs)) {
#ifdef __NR_open
	case __NR_open:
#endif
#ifdef __NR_mknod
	case __NR_mknod:
#endif
		name = (const char __user *)args[0];
		break;
	case __NR_openat:
	case __NR_openat2:
	case __NR_mknodat:
		name = (const char __user *)args[1];
		break;
	default:
		return;
	}
	pt_devcg_copy_user_str(buf, name, len);
}

/* The ring record: numbers only, in the fields devcg.h documents. */
static void pt_devcg_obs(const struct pt_devcg_args *a, int err, u8 src,
			 u64 cgroup_id, u64 id, struct pt_obs *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->role = PT_ROLE_DENY;
	obs->alloc_seq = a->major;
	obs->index = a->minor;
	obs->ret = err;
	obs->aux = a->access | a->type << 8 | src << 16;
	obs->token = cgroup_id;
	obs->inner_ret = (int)id;
}

/* Under pt_devcg_lock: may this cgroup record one more denial now? */
static bool pt_devcg_take_token(u64 cgroup_id)
{
	struct pt_devcg_bucket *b =
		&pt_devcg_buckets[hash_64(cgroup_id, ilog2(PT_DEVCG_BUCKETS))];
	unsigned long back = (jiffies - b->last) / HZ;

	if (back) {
		b->spent -= min_t(unsigned long, back, b->spent);
		b->last = jiffies;
	}
	if (b->spent >= PT_DEVCG_BURST)
		return false;
	b->spent++;
	return true;
}

/*
 * Under pt_devcg_lock, over the rate: the newest kept denial of the same
 * cgroup, device and access counts it, else it is counted only.
 */
static void pt_devcg_count_repeat(const struct pt_devcg_args *a, u64 cgroup_id)
{
	u64 id, last = pt_devcg_last_id;

	for (id = last; id && id + PT_DEVCG_SLOTS > last; id--) {
		struct pt_devcg_slot *s = &pt_devcg_table[id % PT_DEVCG_SLOTS];

		if (s->d.id == id && s->d.cgroup_id == cgroup_id &&
		    s->d.major == a->major && s->d.minor == a->minor &&
		    s->d.type == a->type && s->d.access == a->access) {
			s->d.repeats++;
			pt_devcg_stats.repeats++;
			return;
		}
	}
	pt_devcg_stats.rate_limited++;
}

static void pt_devcg_deny(const struct pt_devcg_args *a, int err)
{
	u8 src = pt_devcg_source();
	struct cgroup *cgrp = pt_devcg_task_cgroup(src);
	u64 cgid = cgrp ? cgroup_id(cgrp) : 0;
	struct pt_devcg_slot *s;
	unsigned long flags;
	struct pt_obs obs;

	raw_spin_lock_irqsave(&pt_devcg_lock, flags);
	if (!pt_devcg_take_token(cgid)) {
		pt_devcg_count_repeat(a, cgid);
		raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
		if (cgrp)
			cgroup_put(cgrp);
		return;
	}
	s = &pt_devcg_table[(pt_devcg_last_id + 1) % PT_DEVCG_SLOTS];
	if (s->state == PT_SLOT_PENDING || s->state == PT_SLOT_RESOLVING) {
		/* The resolver is behind: the ring still gets it, without id. */
		pt_devcg_stats.ring_only++;
		raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
		pt_devcg_obs(a, err, src, cgid, 0, &obs);
		pt_observe_event(&obs);
		if (cgrp)
			cgroup_put(cgrp);
		return;
	}
	memset(&s->d, 0, sizeof(s->d));
	s->d.id = ++pt_devcg_last_id;
	s->d.ts_ns = pt_clock_now();
	s->d.pid = task_pid_nr(current);
	s->d.tgid = task_tgid_nr(current);
	memcpy(s->d.comm, current->comm, sizeof(s->d.comm));
	/* As ring records have it: what the task named itself prints safely. */
	pt_comm_sanitize(s->d.comm, sizeof(s->d.comm));
	s->d.type = a->type;
	s->d.major = a->major;
	s->d.minor = a->minor;
	s->d.access = a->access;
	s->d.err = err;
	s->d.source = src;
	s->d.cgroup_id = cgid;
	pt_devcg_copy_path(s->d.path, sizeof(s->d.path));
	s->cgrp = cgrp;
	s->state = PT_SLOT_PENDING;
	pt_devcg_stats.denials++;
	if (!cgrp)
		pt_devcg_stats.no_cgroup++;
	pt_devcg_obs(a, err, src, s->d.cgroup_id, s->d.id, &obs);
	raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
	pt_observe_event(&obs);
	queue_work(system_wq, &pt_devcg_work);
}

static int pt_devcg_check_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct pt_devcg_args *a = (struct pt_devcg_args *)ri->data;
	int want = READ_ONCE(pt_devcg_major);

	a->major = regs_get_kernel_argument(regs, 1);
	if (want >= 0 && a->major != (u32)want)
		return 1; /* filtered: no return probe */
	a->type = (u16)regs_get_kernel_argument(regs, 0);
	a->minor = regs_get_kernel_argument(regs, 2);
	a->access = (u16)regs_get_kernel_argument(regs, 3);
	return 0;
}
NOKPROBE_SYMBOL(pt_devcg_check_entry);

static int pt_devcg_check_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	int rc = (int)regs_return_value(regs);

	if (likely(!rc))
		return 0;
	pt_devcg_deny((const struct pt_devcg_args *)ri->data, rc);
	return 0;
}
NOKPROBE_SYMBOL(pt_devcg_check_ret);

/* __cgroup_bpf_check_dev_permission(short type, u32 major, ...) */
static int pt_devcg_bpf_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	int want = READ_ONCE(pt_devcg_major);

	return want >= 0 && (u32)regs_get_kernel_argument(regs, 1) != (u32)want;
}
NOKPROBE_SYMBOL(pt_devcg_bpf_entry);

static int pt_devcg_bpf_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	if (likely(!regs_return_value(regs)))
		return 0;
	pt_devcg_mark();
	return 0;
}
NOKPROBE_SYMBOL(pt_devcg_bpf_ret);

/* --- strings, in a context that may sleep ------------------------------- */

static char *pt_devcg_read_devices(void)
{
	struct file *f = pt_filp_open_kthread("/proc/devices", O_RDONLY);
	size_t used = 0;
	loff_t pos = 0;
	ssize_t n;
	char *buf;

	if (IS_ERR(f))
		return NULL;
	buf = kmalloc(PT_DEVCG_DEVICES_MAX, GFP_KERNEL);
	while (buf && used < PT_DEVCG_DEVICES_MAX - 1) {
		n = kernel_read(f, buf + used, PT_DEVCG_DEVICES_MAX - 1 - used,
				&pos);
		if (n <= 0)
			break;
		used += n;
	}
	if (buf)
		buf[used] = '\0';
	filp_close(f, NULL);
	return buf;
}

/* Every name /proc/devices lists for this major, comma separated. */
static void pt_devcg_name(const char *devices, u16 type, u32 major,
			  char *out, size_t len)
{
	const char *want = type == DEVCG_DEV_BLOCK ? "Block devices:" :
						     "Character devices:";
	const char *p = devices ? strstr(devices, want) : NULL;
	char name[PT_DEVCG_NAME_LEN];
	size_t used = 0;
	unsigned int m;

	strscpy(out, devices ? "-" : "?", len);
	while (p && (p = strchr(p, '\n')) && *++p && *p != '\n') {
		if (sscanf(p, "%u %63s", &m, name) != 2 || m != major)
			continue;
		if (used + strlen(name) + 2 > len)
			break;
		if (used)
			out[used++] = ',';
		strscpy(out + used, name, len - used);
		used += strlen(name);
	}
}

/* Claim the next denial waiting for its strings, with its reference. */
static bool pt_devcg_next_pending(struct pt_devcg_denial *d,
				  struct cgroup **cgrp)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&pt_devcg_lock, flags);
	for (i = 0; i < PT_DEVCG_SLOTS; i++) {
		struct pt_devcg_slot *s = &pt_devcg_table[i];

		if (s->state != PT_SLOT_PENDING)
			continue;
		s->state = PT_SLOT_RESOLVING;
		*cgrp = s->cgrp;
		s->cgrp = NULL;
		*d = s->d;
		raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
		return true;
	}
	raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
	return false;
}

/* Put the strings into the slot, unless a reset reused it meanwhile. */
static void pt_devcg_complete(const struct pt_devcg_denial *d, bool named)
{
	struct pt_devcg_slot *s = &pt_devcg_table[d->id % PT_DEVCG_SLOTS];
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_devcg_lock, flags);
	if (s->d.id == d->id && s->state == PT_SLOT_RESOLVING) {
		memcpy(s->d.name, d->name, sizeof(s->d.name));
		memcpy(s->d.cgroup, d->cgroup, sizeof(s->d.cgroup));
		s->state = PT_SLOT_DONE;
	}
	if (!named)
		pt_devcg_stats.no_name++;
	raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
}

/*
 * What would split a key=value line (blanks, '=', backslash) and anything
 * not printable ASCII, octal escaped: the cgroup (named by whoever may
 * create it) and the path (the denied task's own string) reach the trace
 * as they do the `denials` file, never raw.
 */
static void pt_devcg_escape(char *dst, size_t len, const char *src)
{
	int n = string_escape_str(src, dst, len - 1, PT_DEVCG_ESCAPE,
				  " \t\n\\=");

	dst[min_t(size_t, n, len - 1)] = '\0';
}

static void pt_devcg_trace(const struct pt_devcg_denial *d,
			   struct pt_devcg_escaped *e)
{
	if (!trace_devcg_deny_enabled())
		return;
	pt_devcg_escape(e->name, sizeof(e->name), d->name);
	pt_devcg_escape(e->cgroup, sizeof(e->cgroup), d->cgroup);
	pt_devcg_escape(e->path, sizeof(e->path), d->path);
	trace_devcg_deny(d, e);
}

static void pt_devcg_resolve(struct work_struct *work)
{
	struct pt_devcg_denial *d = kmalloc(sizeof(*d), GFP_KERNEL);
	struct pt_devcg_escaped *e = kmalloc(sizeof(*e), GFP_KERNEL);
	char *devices = pt_devcg_read_devices();
	struct cgroup *cgrp;

	if (!d || !e) {
		pr_warn_once("devcg: no memory to resolve denials\n");
		kfree(devices);
		kfree(e);
		kfree(d);
		return;
	}
	while (pt_devcg_next_pending(d, &cgrp)) {
		pt_devcg_name(devices, d->type, d->major, d->name,
			      sizeof(d->name));
		if (cgrp) {
			cgroup_path(cgrp, d->cgroup, sizeof(d->cgroup));
			cgroup_put(cgrp);
		} else {
			strscpy(d->cgroup, "?", sizeof(d->cgroup));
		}
		pt_devcg_complete(d, !!devices);
		pt_devcg_trace(d, e);
	}
	kfree(devices);
	kfree(e);
	kfree(d);
}

/* --- on, off, filter ----------------------------------------------------- */

static int pt_devcg_plant(struct kretprobe *rp, const char *sym,
			  kretprobe_handler_t entry, kretprobe_handler_t ret,
			  size_t data_size)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = sym;
	rp->entry_handler = entry;
	rp->handler = ret;
	rp->data_size = data_size;
	rp->maxactive = max_t(int, 64, 2 * num_possible_cpus());
	return register_kretprobe(rp);
}

static void pt_devcg_clear_marks(void)
{
	unsigned int i;

	for (i = 0; i < PT_DEVCG_MARKS; i++)
		WRITE_ONCE(pt_devcg_marks[i], NULL);
}

static int pt_devcg_enable_locked(void)
{
	int ret;

	pt_devcg_clear_marks();
	/* The BPF runner first, so no BPF verdict reaches an unmarked caller. */
	ret = pt_devcg_plant(&pt_devcg_bpf_rp, "__cgroup_bpf_check_dev_permission",
			     pt_devcg_bpf_entry, pt_devcg_bpf_ret, 0);
	WRITE_ONCE(pt_devcg_bpf_planted, !ret);
	if (ret)
		pr_info("devcg: no probe on the BPF device runner (%d): denials name no source\n",
			ret);
	ret = pt_devcg_plant(&pt_devcg_check_rp, "devcgroup_check_permission",
			     pt_devcg_check_entry, pt_devcg_check_ret,
			     sizeof(struct pt_devcg_args));
	if (ret) {
		pr_warn("devcg: cannot probe devcgroup_check_permission: %d\n",
			ret);
		if (pt_devcg_bpf_planted)
			unregister_kretprobe(&pt_devcg_bpf_rp);
		WRITE_ONCE(pt_devcg_bpf_planted, false);
		return ret;
	}
	pt_devcg_on = true;
	pr_info("devcg: recording device-cgroup denials (major %d, source %s)\n",
		READ_ONCE(pt_devcg_major),
		pt_devcg_bpf_planted ? "v1 and bpf" : "unknown");
	return 0;
}

static void pt_devcg_disable_locked(void)
{
	unregister_kretprobe(&pt_devcg_check_rp);
	if (pt_devcg_bpf_planted)
		unregister_kretprobe(&pt_devcg_bpf_rp);
	pr_info("devcg: stopped; %lu check and %lu bpf-runner calls missed\n",
		(unsigned long)pt_devcg_check_rp.nmissed,
		pt_devcg_bpf_planted ? (unsigned long)pt_devcg_bpf_rp.nmissed : 0UL);
	WRITE_ONCE(pt_devcg_bpf_planted, false);
	pt_devcg_on = false;
	pt_devcg_clear_marks();
}

int pt_devcg_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&pt_devcg_mutex);
	if (on && !pt_devcg_on)
		ret = pt_devcg_enable_locked();
	else if (!on && pt_devcg_on)
		pt_devcg_disable_locked();
	mutex_unlock(&pt_devcg_mutex);
	return ret;
}

int pt_devcg_set_major(int major)
{
	if (major < -1 || major > 4095)
		return -EINVAL;
	WRITE_ONCE(pt_devcg_major, major);
	/* A call filtered on one probe and not the other must leave no mark. */
	pt_devcg_clear_marks();
	return 0;
}

/* Forget every denial; references of unresolved ones are dropped. */
void pt_devcg_reset(void)
{
	unsigned long flags;
	unsigned int i;

	mutex_lock(&pt_devcg_mutex);
	cancel_work_sync(&pt_devcg_work);
	raw_spin_lock_irqsave(&pt_devcg_lock, flags);
	for (i = 0; i < PT_DEVCG_SLOTS; i++) {
		if (pt_devcg_table[i].cgrp)
			cgroup_put(pt_devcg_table[i].cgrp);
		memset(&pt_devcg_table[i], 0, sizeof(pt_devcg_table[i]));
	}
	pt_devcg_last_id = 0;
	memset(&pt_devcg_stats, 0, sizeof(pt_devcg_stats));
	memset(pt_devcg_buckets, 0, sizeof(pt_devcg_buckets));
	atomic_long_set(&pt_devcg_marks_full, 0);
	raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
	mutex_unlock(&pt_devcg_mutex);
}

/* Never fails the module: a bad filter or a missing symbol leaves it off. */
void pt_devcg_init(bool on, int major)
{
	if (pt_devcg_set_major(major)) {
		pr_err("devcg_major=%d: must be -1 (all) or 0..4095; recording stays off\n",
		       major);
		return;
	}
	if (on)
		pt_devcg_set_enabled(true);
}

void pt_devcg_exit(void)
{
	pt_devcg_set_enabled(false);
	pt_devcg_reset(); /* waits for the resolver, drops references */
}

/* --- debugfs ------------------------------------------------------------ */

void pt_devcg_show_state(struct seq_file *m)
{
	seq_printf(m, "devcg=%d\ndevcg_major=%d\n", READ_ONCE(pt_devcg_on),
		   READ_ONCE(pt_devcg_major));
}

static const char *pt_devcg_source_name(u8 src)
{
	switch (src) {
	case PT_DEVCG_SRC_V1:
		return "v1";
	case PT_DEVCG_SRC_BPF:
		return "bpf";
	default:
		return "unknown";
	}
}

static void pt_devcg_show_one(struct seq_file *m, const struct pt_devcg_denial *d)
{
	seq_printf(m, "id=%llu ts=%llu pid=%u tgid=%u comm=", d->id, d->ts_ns,
		   d->pid, d->tgid);
	seq_escape(m, d->comm, " \t\n\\=");
	seq_printf(m, " type=%c dev=%u:%u name=%s access=%s%s%s err=%d source=%s cgroup_id=%llu cgroup=",
		   d->type == DEVCG_DEV_BLOCK ? 'b' : 'c', d->major, d->minor,
		   d->name[0] ? d->name : "?",
		   d->access & DEVCG_ACC_READ ? "r" : "",
		   d->access & DEVCG_ACC_WRITE ? "w" : "",
		   d->access & DEVCG_ACC_MKNOD ? "m" : "", d->err,
		   pt_devcg_source_name(d->source), d->cgroup_id);
	seq_escape_str(m, d->cgroup[0] ? d->cgroup : "?", PT_DEVCG_ESCAPE,
		       " \t\n\\");
	seq_puts(m, " path=");
	seq_escape_str(m, d->path[0] ? d->path : "-", PT_DEVCG_ESCAPE,
		       " \t\n\\");
	seq_printf(m, " repeats=%u\n", d->repeats);
}

/*
 * The `denials` file: a summary line, then one line per denial kept, oldest
 * first; blanks and backslashes in comm, cgroup and path are octal escaped.
 */
static int pt_devcg_denials_show(struct seq_file *m, void *v)
{
	struct pt_devcg_denial *d = kmalloc(sizeof(*d), GFP_KERNEL);
	struct pt_devcg_stats st;
	unsigned long flags;
	u64 id, first, last;
	bool have;

	if (!d)
		return -ENOMEM;
	raw_spin_lock_irqsave(&pt_devcg_lock, flags);
	st = pt_devcg_stats;
	last = pt_devcg_last_id;
	raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
	first = last > PT_DEVCG_SLOTS ? last - PT_DEVCG_SLOTS + 1 : 1;
	seq_printf(m, "devcg=%d major=%d denials=%llu kept=%llu ring_only=%llu no_cgroup=%llu no_name=%llu source_unknown_marks=%llu repeats=%llu rate_limited=%llu\n",
		   READ_ONCE(pt_devcg_on), READ_ONCE(pt_devcg_major),
		   st.denials, last ? last - first + 1 : 0, st.ring_only,
		   st.no_cgroup, st.no_name,
		   (u64)atomic_long_read(&pt_devcg_marks_full), st.repeats,
		   st.rate_limited);
	for (id = first; last && id <= last; id++) {
		struct pt_devcg_slot *s = &pt_devcg_table[id % PT_DEVCG_SLOTS];

		raw_spin_lock_irqsave(&pt_devcg_lock, flags);
		have = s->d.id == id;
		if (have)
			*d = s->d;
		raw_spin_unlock_irqrestore(&pt_devcg_lock, flags);
		if (have)
			pt_devcg_show_one(m, d);
	}
	kfree(d);
	return 0;
}

static int pt_devcg_denials_open(struct inode *inode, struct file *file)
{
	/* Let strings of denials just recorded arrive first. */
	flush_work(&pt_devcg_work);
	return single_open(file, pt_devcg_denials_show, NULL);
}

const struct file_operations pt_devcg_denials_fops = {
	.owner = THIS_MODULE,
	.open = pt_devcg_denials_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};
