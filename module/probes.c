// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: plant and remove a profile's probe set: kprobe, kretprobe with
 * entry data, or fprobe where the kernel has it; kernel tracepoints through
 * the tracepoint API. Every probe counts hits, declined calls, entry/return
 * pairs and misses (kprobe recursion, maxactive exhaustion).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <pagetrail/frames.h>
#include <pagetrail/probes.h>

int pt_param_maxactive = 64;
int pt_param_backend;
bool pt_param_probe_only;

static DEFINE_PER_CPU(struct pt_probe_counts, pt_counts[PT_MAX_PROBES]);

#define PT_COUNT(p, field) this_cpu_inc(pt_counts[(p)->slot].field)

/*
 * Resolve functions ("module:symbol" or kernel symbols) through kprobes that
 * are registered disabled, so nothing is patched. An address is only ever
 * used as data: on IBT kernels it is the symbol + 4 (past ENDBR), and calling
 * through it would raise #CP. Registration also fails for a module that is
 * going away (kprobes take a module reference), which makes this the
 * liveness test for the target. One unregister_kprobes() for the batch: one
 * RCU grace period, not one per name (code-review F21).
 */
int pt_resolve_functions(const char *const *names, unsigned long *addrs,
			 int *errors, unsigned int n)
{
	struct kprobe **planted;
	struct kprobe *kps;
	unsigned int i, k = 0;
	int missing = 0;

	kps = kcalloc(n, sizeof(*kps), GFP_KERNEL);
	planted = kcalloc(n, sizeof(*planted), GFP_KERNEL);
	if (!kps || !planted) {
		kfree(kps);
		kfree(planted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		kps[i].symbol_name = names[i];
		kps[i].flags = KPROBE_FLAG_DISABLED;
		errors[i] = register_kprobe(&kps[i]);
		if (errors[i]) {
			missing++;
			continue;
		}
		if (addrs)
			addrs[i] = (unsigned long)kps[i].addr;
		planted[k++] = &kps[i];
	}
	if (k)
		unregister_kprobes(planted, k);
	kfree(planted);
	kfree(kps);
	return missing;
}

int pt_resolve_function(const char *name, unsigned long *addr)
{
	int error, ret;

	ret = pt_resolve_functions(&name, addr, &error, 1);
	return ret < 0 ? ret : error;
}

/*
 * A kprobe that is not ftrace-based fires from int3, which x86 runs as an
 * NMI: no task context, and the tracker's lock must not be taken there.
 */
static bool pt_skip_nmi(struct pt_probe *p)
{
	if (likely(!in_nmi()))
		return false;
	PT_COUNT(p, nmi);
	return true;
}

/* An entry that returned @rc, nonzero: its return is not tracked. */
static void pt_count_declined(struct pt_probe *p, int rc)
{
	if (rc == PT_ENTRY_SEEN)
		PT_COUNT(p, seen_at_entry);
	else
		PT_COUNT(p, filtered);
}
NOKPROBE_SYMBOL(pt_count_declined);

static int pt_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct pt_probe *p = container_of(kp, struct pt_probe, kp);

	if (pt_skip_nmi(p))
		return 0;
	PT_COUNT(p, hits);
	if (!pt_param_probe_only) {
		int rc = p->entry(p, regs, NULL);

		if (rc)
			pt_count_declined(p, rc);
	}
	return 0;
}
NOKPROBE_SYMBOL(pt_kprobe_pre);

static int pt_kretprobe_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct pt_probe *p =
		container_of(get_kretprobe(ri), struct pt_probe, rp);

	if (pt_skip_nmi(p))
		return 1;
	PT_COUNT(p, hits);
	if (!pt_param_probe_only) {
		int rc = p->entry(p, regs, ri->data);

		if (rc) {
			pt_count_declined(p, rc);
			return 1;
		}
	}
	PT_COUNT(p, entries);
	return 0;
}
NOKPROBE_SYMBOL(pt_kretprobe_entry);

static int pt_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct pt_probe *p =
		container_of(get_kretprobe(ri), struct pt_probe, rp);

	PT_COUNT(p, returns);
	if (!pt_param_probe_only)
		p->ret(p, regs, ri->data);
	return 0;
}
NOKPROBE_SYMBOL(pt_kretprobe_ret);

static int pt_probe_maxactive(const struct pt_probe *p)
{
	int n = p->maxactive ? p->maxactive : pt_param_maxactive;

	return max_t(int, n, 2 * num_possible_cpus());
}

#if PT_HAVE_FPROBE
/*
 * Two fprobes for the whole set, one ftrace_ops each, so attaching patches
 * the text in two batches and detaching waits for two RCU-tasks grace
 * periods instead of one per function (code-review F21): the functions
 * whose returns pagetrail needs, and those it observes at entry only. An
 * fprobe with an exit handler takes a return slot (rethook node, or fgraph
 * shadow-stack frame) at every entry before any handler runs, which cost
 * a fifth of a hit at up() and at the entry-only nv_alloc_set_page. The
 * handlers find their probe by entry_ip through a small open-addressed
 * hash (one multiply and, nearly always, one compare: a binary search's
 * branches cost a hit more under TCG). One profile's sets are attached at
 * a time.
 */
#define PT_FSET_HASH_BITS 6
#define PT_FSET_HASH (1u << PT_FSET_HASH_BITS)
static_assert(PT_FSET_HASH >= 2 * PT_MAX_PROBES);

struct pt_fset {
	struct fprobe fp;
	unsigned int n;
	unsigned long ips[PT_MAX_PROBES];
	struct pt_probe *probes[PT_MAX_PROBES];
	u8 slot[PT_FSET_HASH]; /* 1 + the index of the ip hashed here, or 0 */
	bool registered;
	unsigned long attach; /* counts registrations, see pt_fcall */
};

enum { PT_FSET_ENTRY, PT_FSET_RETURN, PT_FSETS };
static struct pt_fset pt_fsets[PT_FSETS];

/*
 * The entry data of one call: which attach its entry ran under, then the
 * probe's own data. Where fprobe tracks returns on the fgraph shadow stack
 * (6.14+), a frame entered before a detach still returns to the handler
 * when the same fprobe is registered again; its entry belongs to an earlier
 * attach epoch and must not pair with this one (rethook, before, dropped
 * such returns at unregister). A frame entered under this attach always
 * returns while it lasts, so the check drops nothing of the current epoch.
 * The entry-only set has none: its handlers get NULL, as kprobes give.
 */
struct pt_fcall {
	unsigned long attach;
	unsigned long data[]; /* pt_probe.data_size bytes */
};

#ifdef PT_FPROBE_CONTEXTS
/* Where the handlers' pt_regs are copied out of ftrace_regs (see compat.h). */
DEFINE_PER_CPU(struct pt_regs, pt_fprobe_regs_buf[PT_FPROBE_CONTEXTS]);
#endif

static struct pt_probe *pt_fprobe_lookup(struct fprobe *fp, unsigned long ip)
{
	struct pt_fset *set = container_of(fp, struct pt_fset, fp);
	unsigned int h = hash_long(ip, PT_FSET_HASH_BITS);
	unsigned int s;

	/* Never full (PT_FSET_HASH > PT_MAX_PROBES): an empty slot ends it. */
	while ((s = set->slot[h])) {
		if (set->ips[s - 1] == ip)
			return set->probes[s - 1];
		h = (h + 1) & (PT_FSET_HASH - 1);
	}
	return NULL;
}
NOKPROBE_SYMBOL(pt_fprobe_lookup);

static int pt_fprobe_entry(struct fprobe *fp, unsigned long entry_ip,
			   unsigned long ret_ip, struct pt_fprobe_regs *fregs,
			   void *data)
{
	struct pt_probe *p = pt_fprobe_lookup(fp, entry_ip);
	struct pt_fcall *call = data;

	if (unlikely(!p))
		return 1;
	PT_COUNT(p, hits);
	if (call)
		call->attach = READ_ONCE(pt_fsets[PT_FSET_RETURN].attach);
	if (!pt_param_probe_only) {
		int rc = p->entry(p, pt_fprobe_pt_regs(fregs),
				  call ? call->data : NULL);

		if (rc) {
			pt_count_declined(p, rc);
			return 1;
		}
	}
	if (!p->ret)
		return 1; /* entry only: nothing to return to */
	PT_COUNT(p, entries);
	return 0;
}
NOKPROBE_SYMBOL(pt_fprobe_entry);

static void pt_fprobe_exit(struct fprobe *fp, unsigned long entry_ip,
			   unsigned long ret_ip, struct pt_fprobe_regs *fregs,
			   void *data)
{
	struct pt_probe *p = pt_fprobe_lookup(fp, entry_ip);
	struct pt_fcall *call = data;

	/* An earlier attach's frame: its entry was counted in that epoch. */
	if (unlikely(!p || call->attach !=
				   READ_ONCE(pt_fsets[PT_FSET_RETURN].attach)))
		return;
	PT_COUNT(p, returns);
	if (!pt_param_probe_only)
		p->ret(p, pt_fprobe_pt_regs(fregs), call->data);
}
NOKPROBE_SYMBOL(pt_fprobe_exit);

/* Into its set's table and hash; registered once all are in. */
static void pt_fset_add(struct pt_probe *p, unsigned long ip)
{
	struct pt_fset *set =
		&pt_fsets[p->ret ? PT_FSET_RETURN : PT_FSET_ENTRY];
	unsigned int i = set->n++;
	unsigned int h = hash_long(ip, PT_FSET_HASH_BITS);

	set->ips[i] = ip;
	set->probes[i] = p;
	while (set->slot[h])
		h = (h + 1) & (PT_FSET_HASH - 1);
	set->slot[h] = i + 1;
}

static int pt_fset_register_one(struct pt_fset *set, bool returns)
{
	size_t data = 0;
	int active = 0;
	unsigned int i;
	int ret;

	if (!set->n)
		return 0;
	for (i = 0; i < set->n; i++) {
		data = max(data, set->probes[i]->data_size);
		active += pt_probe_maxactive(set->probes[i]);
	}
	memset(&set->fp, 0, sizeof(set->fp));
	set->fp.entry_handler = pt_fprobe_entry;
	if (returns) {
		set->fp.exit_handler = pt_fprobe_exit;
		set->fp.entry_data_size = sizeof(struct pt_fcall) + data;
		pt_fprobe_set_maxactive(&set->fp, active);
		WRITE_ONCE(set->attach, set->attach + 1);
	}
	ret = register_fprobe_ips(&set->fp, set->ips, set->n);
	set->registered = !ret;
	return ret;
}

static int pt_fset_register(void)
{
	int ret = pt_fset_register_one(&pt_fsets[PT_FSET_RETURN], true);

	return ret ?: pt_fset_register_one(&pt_fsets[PT_FSET_ENTRY], false);
}

static void pt_fset_unregister(void)
{
	unsigned int i;

	for (i = 0; i < PT_FSETS; i++) {
		if (pt_fsets[i].registered)
			unregister_fprobe(&pt_fsets[i].fp);
		pt_fsets[i].registered = false;
		pt_fsets[i].n = 0;
		memset(pt_fsets[i].slot, 0, sizeof(pt_fsets[i].slot));
	}
}

/* Both sets' counts: a probe's own share is not kept by fprobe. */
static unsigned long pt_fset_missed(void)
{
	return pt_fsets[PT_FSET_ENTRY].fp.nmissed +
	       pt_fsets[PT_FSET_RETURN].fp.nmissed;
}
#else
static void pt_fset_add(struct pt_probe *p, unsigned long ip)
{
}

static int pt_fset_register(void)
{
	return -EOPNOTSUPP;
}

static void pt_fset_unregister(void)
{
}

static unsigned long pt_fset_missed(void)
{
	return 0;
}
#endif

static int pt_plant_kprobe(struct pt_probe *p)
{
	int ret;

	if (!p->ret) {
		memset(&p->kp, 0, sizeof(p->kp));
		p->kp.symbol_name = p->name;
		p->kp.pre_handler = pt_kprobe_pre;
		ret = register_kprobe(&p->kp);
		if (!ret)
			p->backend = PT_BACKEND_KPROBE;
		return ret;
	}
	memset(&p->rp, 0, sizeof(p->rp));
	p->rp.kp.symbol_name = p->name;
	p->rp.entry_handler = pt_kretprobe_entry;
	p->rp.handler = pt_kretprobe_ret;
	p->rp.data_size = p->data_size;
	p->rp.maxactive = pt_probe_maxactive(p);
	ret = register_kretprobe(&p->rp);
	if (!ret)
		p->backend = PT_BACKEND_KRETPROBE;
	return ret;
}

static void pt_counts_reset(unsigned int slot)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&pt_counts[slot], cpu), 0,
		       sizeof(struct pt_probe_counts));
}

void pt_probe_counts(const struct pt_probe *p, struct pt_probe_counts *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct pt_probe_counts *c =
			per_cpu_ptr(&pt_counts[p->slot], cpu);

		sum->hits += c->hits;
		sum->filtered += c->filtered;
		sum->entries += c->entries;
		sum->returns += c->returns;
		sum->seen_at_entry += c->seen_at_entry;
		sum->nmi += c->nmi;
	}
}

static void pt_probe_name(struct pt_probe *p, const char *target)
{
	if (p->in_target)
		snprintf(p->name, sizeof(p->name), "%s:%s", target, p->symbol);
	else
		strscpy(p->name, p->symbol, sizeof(p->name));
	p->error = 0;
	p->backend = PT_BACKEND_NONE;
	pt_counts_reset(p->slot);
}

/* A probe that cannot be planted: fatal unless the profile marked it optional. */
static bool pt_probe_failed(struct pt_probe *p, int ret)
{
	p->error = ret;
	p->backend = PT_BACKEND_NONE;
	if (p->optional) {
		pr_info("optional probe %s not planted (%d)\n", p->name, ret);
		return false;
	}
	pr_err("cannot probe %s (%d); nothing attached\n", p->name, ret);
	return true;
}

/*
 * The kprobe path, one probe at a time, in the set's order: the profile
 * lists inner functions first, so no outer frame is seen without them.
 */
static int pt_attach_kprobes(struct pt_probe *set, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		if (set[i].error)
			continue; /* optional and absent */
		ret = pt_plant_kprobe(&set[i]);
		if (ret && pt_probe_failed(&set[i], ret))
			return ret;
	}
	return 0;
}

/*
 * Plant every probe of @set; on the first failure of a required probe remove
 * what was planted and fail: a partial set would report gaps it made itself.
 * Every name is resolved first, in one batch; then one fprobe takes every
 * function at once where the kernel has fprobe, else kprobes are planted.
 */
int pt_probes_attach(struct pt_probe *set, unsigned int n, const char *target)
{
	const char *names[PT_MAX_PROBES];
	unsigned long addrs[PT_MAX_PROBES];
	int errors[PT_MAX_PROBES];
	unsigned int i;
	int ret;

	if (n > PT_MAX_PROBES)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		set[i].slot = i;
		pt_probe_name(&set[i], target);
		names[i] = set[i].name;
	}
	ret = pt_resolve_functions(names, addrs, errors, n);
	if (ret < 0)
		return ret;
	for (i = 0; i < n; i++)
		if (errors[i] && pt_probe_failed(&set[i], errors[i]))
			return errors[i];

	if (PT_HAVE_FPROBE && pt_param_backend != 1) {
		pt_fset_unregister(); /* empty unless a detach was skipped */
		/* The fentry site (sym + 4 on IBT) is what fprobe wants. */
		for (i = 0; i < n; i++)
			if (!set[i].error)
				pt_fset_add(&set[i], addrs[i]);
		ret = pt_fset_register();
		if (!ret) {
			for (i = 0; i < n; i++)
				if (!set[i].error)
					set[i].backend = PT_BACKEND_FPROBE;
			return 0;
		}
		pt_fset_unregister();
		if (pt_param_backend == 2) {
			pr_err("cannot register the fprobe for %u functions (%d); nothing attached\n",
			       n, ret);
			return ret;
		}
		pr_info("fprobe refused (%d); using kprobes\n", ret);
	}
	ret = pt_attach_kprobes(set, n);
	if (ret)
		pt_probes_detach(set, n);
	return ret;
}

/*
 * Removal waits for running handlers, so the caller may free their state
 * after. Batched: one grace period for all kprobes, one for all kretprobes,
 * one RCU-tasks period for the fprobe.
 */
void pt_probes_detach(struct pt_probe *set, unsigned int n)
{
	struct kretprobe *rps[PT_MAX_PROBES];
	struct kprobe *kps[PT_MAX_PROBES];
	unsigned int i, nk = 0, nr = 0;

	/* A failed attach's undo too: no call data is read from here on. */
	pt_frames_stop();
	for (i = n; i-- > 0;) {
		switch (set[i].backend) {
		case PT_BACKEND_KPROBE:
			kps[nk++] = &set[i].kp;
			break;
		case PT_BACKEND_KRETPROBE:
			rps[nr++] = &set[i].rp;
			break;
		default:
			break;
		}
	}
	pt_fset_unregister();
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(rps, nr);
	for (i = 0; i < n; i++)
		set[i].backend = PT_BACKEND_NONE;
}

unsigned long pt_probe_missed(const struct pt_probe *p)
{
	switch (p->backend) {
	case PT_BACKEND_KPROBE:
		return p->kp.nmissed;
	case PT_BACKEND_KRETPROBE:
		return p->rp.nmissed + p->rp.kp.nmissed;
	case PT_BACKEND_FPROBE:
		return pt_fset_missed(); /* the fprobes' counts, not this probe's */
	default:
		return 0;
	}
}

static const char *pt_backend_name(enum pt_backend b)
{
	switch (b) {
	case PT_BACKEND_KPROBE:
		return "kprobe";
	case PT_BACKEND_KRETPROBE:
		return "kretprobe";
	case PT_BACKEND_FPROBE:
		return "fprobe";
	default:
		return "none";
	}
}

void pt_probes_show(struct seq_file *m, const struct pt_probe *set,
		    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct pt_probe *p = &set[i];
		struct pt_probe_counts c;

		pt_probe_counts(p, &c);
		seq_printf(
			m,
			"probe=%s backend=%s planted=%d error=%d hits=%llu filtered=%llu entries=%llu returns=%llu at_entry=%llu pending=%lld missed=%lu nmi=%llu%s%s\n",
			p->name[0] ? p->name : p->symbol,
			pt_backend_name(p->backend),
			p->backend != PT_BACKEND_NONE, p->error, c.hits,
			c.filtered, c.entries, c.returns, c.seen_at_entry,
			p->ret ? (s64)(c.entries - c.returns) : 0,
			pt_probe_missed(p), c.nmi, p->role ? " role=" : "",
			p->role ? p->role : "");
	}
}

static void pt_tp_match(struct tracepoint *tp, void *priv)
{
	struct pt_tp_hook *h = priv;

	if (!strcmp(tp->name, h->name))
		h->tp = tp;
}

DEFINE_PER_CPU(u64, pt_tp_hit_counts[PT_MAX_TP_HOOKS]);

u64 pt_tp_hits(const struct pt_tp_hook *h)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(pt_tp_hit_counts[h->slot], cpu);
	return sum;
}

int pt_tp_attach(struct pt_tp_hook *h, unsigned int slot)
{
	int cpu, ret;

	if (slot >= PT_MAX_TP_HOOKS)
		return -E2BIG;
	h->slot = slot;
	for_each_possible_cpu(cpu)
		per_cpu(pt_tp_hit_counts[slot], cpu) = 0;
	h->tp = NULL;
	for_each_kernel_tracepoint(pt_tp_match, h);
	if (!h->tp) {
		pr_err("kernel tracepoint %s not found\n", h->name);
		return -ENOENT;
	}
	ret = tracepoint_probe_register(h->tp, h->probe, h);
	if (ret) {
		pr_err("cannot hook tracepoint %s (%d)\n", h->name, ret);
		return ret;
	}
	h->registered = true;
	return 0;
}

void pt_tp_detach(struct pt_tp_hook *h)
{
	if (!h->registered)
		return;
	tracepoint_probe_unregister(h->tp, h->probe, h);
	h->registered = false;
	/* No probe may still run in our text once we return. */
	tracepoint_synchronize_unregister();
}
