// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: plant and remove a profile's probe set: kprobe, kretprobe with
 * entry data, or fprobe where the kernel has it; kernel tracepoints through
 * the tracepoint API. Every probe counts hits, declined calls, entry/return
 * pairs and misses (kprobe recursion, maxactive exhaustion).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/tracepoint.h>
#include <linux/cpumask.h>
#include <pagetrail/probes.h>

int pt_param_maxactive = 64;
int pt_param_backend;

static DEFINE_PER_CPU(struct pt_probe_counts, pt_counts[PT_MAX_PROBES]);

#define PT_COUNT(p, field) this_cpu_inc(pt_counts[(p)->slot].field)

/*
 * Resolve a function ("module:symbol" or a kernel symbol) through a kprobe
 * that is registered disabled, so nothing is patched. The address is only
 * ever used as data: on IBT kernels it is the symbol + 4 (past ENDBR), and
 * calling through it would raise #CP. Registration also fails for a module
 * that is going away (kprobes take a module reference), which makes this
 * the liveness test for the target.
 */
int pt_resolve_function(const char *name, unsigned long *addr)
{
	struct kprobe kp = { .symbol_name = name,
			     .flags = KPROBE_FLAG_DISABLED };
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	if (addr)
		*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
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

static int pt_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct pt_probe *p = container_of(kp, struct pt_probe, kp);

	if (pt_skip_nmi(p))
		return 0;
	PT_COUNT(p, hits);
	if (p->entry(p, regs, NULL))
		PT_COUNT(p, filtered);
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
	if (p->entry(p, regs, ri->data)) {
		PT_COUNT(p, filtered);
		return 1;
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
static int pt_fprobe_entry(struct fprobe *fp, unsigned long entry_ip,
			   unsigned long ret_ip, struct pt_regs *regs,
			   void *data)
{
	struct pt_probe *p = container_of(fp, struct pt_probe, fp);

	PT_COUNT(p, hits);
	if (p->entry(p, regs, data)) {
		PT_COUNT(p, filtered);
		return 1;
	}
	if (p->ret)
		PT_COUNT(p, entries);
	return 0;
}
NOKPROBE_SYMBOL(pt_fprobe_entry);

static void pt_fprobe_exit(struct fprobe *fp, unsigned long entry_ip,
			   unsigned long ret_ip, struct pt_regs *regs,
			   void *data)
{
	struct pt_probe *p = container_of(fp, struct pt_probe, fp);

	PT_COUNT(p, returns);
	p->ret(p, regs, data);
}
NOKPROBE_SYMBOL(pt_fprobe_exit);

static int pt_plant_fprobe(struct pt_probe *p)
{
	unsigned long addr;
	int ret;

	/* The fentry site (sym + 4 on IBT) is what register_fprobe_ips wants. */
	ret = pt_resolve_function(p->name, &addr);
	if (ret)
		return ret;
	memset(&p->fp, 0, sizeof(p->fp));
	p->fp.entry_handler = pt_fprobe_entry;
	if (p->ret) {
		p->fp.exit_handler = pt_fprobe_exit;
		p->fp.entry_data_size = p->data_size;
		p->fp.nr_maxactive = pt_probe_maxactive(p);
	}
	return register_fprobe_ips(&p->fp, &addr, 1);
}
#else
static int pt_plant_fprobe(struct pt_probe *p)
{
	return -EOPNOTSUPP;
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
		sum->nmi += c->nmi;
	}
}

static int pt_plant(struct pt_probe *p, const char *target)
{
	int ret = -EOPNOTSUPP;

	if (p->in_target)
		snprintf(p->name, sizeof(p->name), "%s:%s", target, p->symbol);
	else
		strscpy(p->name, p->symbol, sizeof(p->name));
	p->error = 0;
	p->backend = PT_BACKEND_NONE;
	pt_counts_reset(p->slot);

	/* fprobe when asked or by default where it exists; else kprobes. */
	if (PT_HAVE_FPROBE && pt_param_backend != 1) {
		ret = pt_plant_fprobe(p);
		if (!ret)
			p->backend = PT_BACKEND_FPROBE;
		else if (pt_param_backend == 2)
			return ret;
	}
	if (p->backend == PT_BACKEND_NONE)
		ret = pt_plant_kprobe(p);
	return ret;
}

static void pt_unplant(struct pt_probe *p)
{
	switch (p->backend) {
	case PT_BACKEND_KPROBE:
		unregister_kprobe(&p->kp);
		break;
	case PT_BACKEND_KRETPROBE:
		unregister_kretprobe(&p->rp);
		break;
#if PT_HAVE_FPROBE
	case PT_BACKEND_FPROBE:
		unregister_fprobe(&p->fp);
		break;
#endif
	default:
		return;
	}
}

/*
 * Plant every probe of @set; on the first failure of a required probe remove
 * what was planted and fail: a partial set would report gaps it made itself.
 */
int pt_probes_attach(struct pt_probe *set, unsigned int n, const char *target)
{
	unsigned int i;
	int ret;

	if (n > PT_MAX_PROBES)
		return -E2BIG;
	for (i = 0; i < n; i++)
		set[i].slot = i;
	for (i = 0; i < n; i++) {
		ret = pt_plant(&set[i], target);
		if (!ret)
			continue;
		set[i].error = ret;
		set[i].backend = PT_BACKEND_NONE;
		if (set[i].optional) {
			pr_info("optional probe %s not planted (%d)\n",
				set[i].name, ret);
			continue;
		}
		pr_err("cannot probe %s (%d); nothing attached\n", set[i].name,
		       ret);
		pt_probes_detach(set, i);
		return ret;
	}
	return 0;
}

/* Removal waits for running handlers, so the caller may free their state after. */
void pt_probes_detach(struct pt_probe *set, unsigned int n)
{
	unsigned int i;

	for (i = n; i-- > 0;) {
		pt_unplant(&set[i]);
		set[i].backend = PT_BACKEND_NONE;
	}
}

unsigned long pt_probe_missed(const struct pt_probe *p)
{
	switch (p->backend) {
	case PT_BACKEND_KPROBE:
		return p->kp.nmissed;
	case PT_BACKEND_KRETPROBE:
		return p->rp.nmissed + p->rp.kp.nmissed;
#if PT_HAVE_FPROBE
	case PT_BACKEND_FPROBE:
		return p->fp.nmissed;
#endif
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
			"probe=%s backend=%s planted=%d error=%d hits=%llu filtered=%llu entries=%llu returns=%llu pending=%lld missed=%lu nmi=%llu\n",
			p->name[0] ? p->name : p->symbol,
			pt_backend_name(p->backend),
			p->backend != PT_BACKEND_NONE, p->error, c.hits,
			c.filtered, c.entries, c.returns,
			p->ret ? (s64)(c.entries - c.returns) : 0,
			pt_probe_missed(p), c.nmi);
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
