// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail page_pool profile: the kernel's network page pool
 * (net/core/page_pool.c), a pool nobody on this project wrote. Its target
 * is the kernel itself; its layouts are the kernel's headers, so there is
 * no loader step. Functions were renamed across 6.1, 6.12 and 7.3 (page to
 * netmem): each role lists every name, and at least one of each must be
 * there to attach.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/seq_file.h>
#include <pagetrail/hitcount.h>
#include "pagepool.h"

/* role: the names one role goes by across kernels (see struct pt_probe) */
#define KERN(sym, rl, e, r, dsz)                                               \
	{                                                                      \
		.symbol = sym, .optional = true, .role = rl, .entry = e,       \
		.ret = r, .data_size = dsz                                     \
	}

/*
 * Innermost first, as the core plants them (see the NVIDIA profile): a
 * take's wrapper is planted after its core, so no wrapper call sees a
 * core that is not probed yet.
 */
static struct pt_probe pp_probes[] = {
	/* take: the core, then the 6.12/7.3 page wrapper or 6.1's only one */
	KERN("page_pool_alloc_netmems", "take", pp_take_entry, pp_take_ret,
	     sizeof(struct pp_take_call)),
	KERN("page_pool_alloc_netmem", "take", pp_take_entry, pp_take_ret,
	     sizeof(struct pp_take_call)),
	KERN("page_pool_alloc_pages", "take", pp_take_entry, pp_take_ret,
	     sizeof(struct pp_take_call)),
	/* recycle of the last reference */
	KERN("page_pool_put_unrefed_netmem", "recycle", pp_put_entry, NULL,
	     0),
	KERN("page_pool_put_defragged_page", "recycle", pp_put_entry, NULL,
	     0),
	KERN("page_pool_put_netmem_bulk", "bulk", pp_bulk_entry, NULL, 0),
	KERN("page_pool_put_page_bulk", "bulk", pp_bulk_entry, NULL, 0),
	/* a holder drops a fragment reference */
	KERN("napi_pp_put_page", "unref", pp_unref_entry, NULL, 0),
	KERN("page_pool_return_skb_page", "unref", pp_unref_entry, NULL, 0),
	/*
	 * a fragment handed out, the take of its page (planted after the
	 * page takes it wraps): was the last one over-released? One name per
	 * kernel, the innermost: in 6.12 and 7.x every fragment goes through
	 * _netmem (page_pool_alloc_frag wraps it).
	 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	KERN("page_pool_alloc_frag_netmem", NULL, pp_frag_entry, pp_frag_ret,
	     sizeof(struct pp_frag_call)),
#else
	KERN("page_pool_alloc_frag", NULL, pp_frag_entry, pp_frag_ret,
	     sizeof(struct pp_frag_call)),
#endif
	/* ring to cache */
	KERN("page_pool_refill_alloc_cache", NULL, pp_refill_entry,
	     pp_refill_ret, sizeof(struct pp_refill_call)),
	/* life */
	KERN("page_pool_create_percpu", "create", pp_create_entry,
	     pp_create_ret, 0),
	KERN("page_pool_create", "create", pp_create_entry, pp_create_ret, 0),
	KERN("page_pool_release_retry", NULL, pp_retry_entry, pp_frame_ret,
	     sizeof(struct pp_frame_data)),
	KERN("page_pool_destroy", NULL, pp_destroy_entry, pp_frame_ret,
	     sizeof(struct pp_frame_data)),
};

/* Every role needs one of its names; which one this kernel has is shown. */
static const struct {
	const char *role;
	const char *names[3];
} pp_required[] = {
	{ "take",
	  { "page_pool_alloc_netmems", "page_pool_alloc_netmem",
	    "page_pool_alloc_pages" } },
	{ "recycle",
	  { "page_pool_put_unrefed_netmem", "page_pool_put_defragged_page" } },
	{ "create", { "page_pool_create" } },
	{ "destroy", { "page_pool_destroy" } },
};

static struct pt_tp_hook pp_tp_hooks[] = {
	{ .name = "page_pool_state_hold", .probe = pp_tp_hold },
	{ .name = "page_pool_state_release", .probe = pp_tp_release },
	{ .name = "page_pool_release", .probe = pp_tp_pool_release },
	{ .name = "mm_page_free", .probe = pp_tp_page_free },
	{ .name = "mm_page_alloc", .probe = pp_tp_page_alloc },
};

static bool pp_probe_planted(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pp_probes); i++)
		if (!strcmp(pp_probes[i].symbol, name))
			return pp_probes[i].backend != PT_BACKEND_NONE;
	return false;
}

static int pp_check_params(char *why, size_t len)
{
	return 0;
}

static void pp_detach(void)
{
	int i;

	for (i = ARRAY_SIZE(pp_tp_hooks) - 1; i >= 0; i--)
		pt_tp_detach(&pp_tp_hooks[i]);
	pt_probes_detach(pp_probes, ARRAY_SIZE(pp_probes));
}

static int pp_attach(const char *target)
{
	unsigned int i, j;
	int ret;

	pp_registry_reset();
	ret = pt_probes_attach(pp_probes, ARRAY_SIZE(pp_probes), target);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(pp_required); i++) {
		for (j = 0; j < ARRAY_SIZE(pp_required[i].names) &&
			    pp_required[i].names[j];
		     j++)
			if (pp_probe_planted(pp_required[i].names[j]))
				break;
		if (j == ARRAY_SIZE(pp_required[i].names) ||
		    !pp_required[i].names[j]) {
			pr_err("pagepool profile: no probe for the pool's %s (none of its names is traceable on this kernel); nothing attached\n",
			       pp_required[i].role);
			ret = -ENOENT;
			goto err;
		}
	}
	/* Last: the tracepoints judge pages by what the probes above saw. */
	for (i = 0; i < ARRAY_SIZE(pp_tp_hooks); i++) {
		ret = pt_tp_attach(&pp_tp_hooks[i], i);
		if (ret)
			goto err;
	}
	return 0;
err:
	pp_detach();
	return ret;
}

static void pp_show_probes(struct seq_file *m)
{
	unsigned int i;

	pt_probes_show(m, pp_probes, ARRAY_SIZE(pp_probes));
	for (i = 0; i < ARRAY_SIZE(pp_tp_hooks); i++)
		seq_printf(m, "tracepoint=%s hooked=%d hits=%llu\n",
			   pp_tp_hooks[i].name, pp_tp_hooks[i].registered,
			   pt_tp_hits(&pp_tp_hooks[i]));
}

static void pp_show_stats(struct seq_file *m)
{
#define S(x)                                   \
	seq_printf(m, "pp_" #x "=%lld\n", \
		   (long long)atomic64_read(&pp_stats.x))
	S(pools_created);
	S(pools_gone);
	S(pools_unknown);
	S(registry_full);
#define H(x, i) seq_printf(m, "pp_" #x "=%llu\n", pt_hit_sum(pp_hits, i))
	H(takes, PP_HIT_TAKES);
	H(recycles_cache, PP_HIT_RECYCLES_CACHE);
	H(recycles_ring, PP_HIT_RECYCLES_RING);
	H(bulk_recycles, PP_HIT_BULK_RECYCLES);
	H(releases, PP_HIT_RELEASES);
	H(unrefs, PP_HIT_UNREFS);
#undef H
	S(frag_underflows);
	S(frag_reuses);
	S(net_iov);
	S(take_nested);
	S(take_depth_lost);
#undef S
	seq_printf(m, "pp_pools_live=%u\n", pp_registry_live());
}

static void pp_show_control(struct seq_file *m)
{
	unsigned int i, j;

	/* which of each role's names this kernel gave */
	for (i = 0; i < ARRAY_SIZE(pp_required); i++)
		for (j = 0; j < ARRAY_SIZE(pp_required[i].names) &&
			    pp_required[i].names[j];
		     j++)
			if (pp_probe_planted(pp_required[i].names[j]))
				seq_printf(m, "pagepool_%s=%s\n",
					   pp_required[i].role,
					   pp_required[i].names[j]);
}

static void pp_reset_stats(void)
{
	atomic64_t *c = (atomic64_t *)&pp_stats;
	unsigned int i;

	/* One by one: handlers on other CPUs are counting. */
	for (i = 0; i < sizeof(pp_stats) / sizeof(*c); i++)
		atomic64_set(&c[i], 0);
	pt_hit_reset(pp_hits);
}

const struct pt_profile pt_profile_pagepool = {
	.name = "pagepool",
	.default_target = "vmlinux",
	.anchor_symbol = "page_pool_create",
	.builtin = true,
	.check_params = pp_check_params,
	.attach = pp_attach,
	.detach = pp_detach,
	.show_probes = pp_show_probes,
	.show_stats = pp_show_stats,
	.show_control = pp_show_control,
	.reset_stats = pp_reset_stats,
};
