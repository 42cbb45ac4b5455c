// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail NVIDIA profile: the probe set, the check of the live pools
 * before anything is planted, and the profile the core attaches. The
 * simulator tests/nvsim has the same names and layouts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include "nvidia.h"

/*
 * &sysmem_page_pools, handed in by scripts/pagetrail-load from
 * /proc/kallsyms: a data symbol has no kprobe to resolve it, and calling
 * kallsyms_lookup_name() through a kprobe-resolved address faults on IBT.
 * 0400: a kernel address in sysfs would undo KASLR for every local user.
 */
static unsigned long nv_pools_addr;
module_param(nv_pools_addr, ulong, 0400);
MODULE_PARM_DESC(
	nv_pools_addr,
	"address of the target's sysmem_page_pools (0: skip the live pool check)");

/* --- the probe set ------------------------------------------------------ */

#define DRV(sym, e, r, dsz)                                             \
	{                                                               \
		.symbol = sym, .in_target = true, .entry = e, .ret = r, \
		.data_size = dsz                                        \
	}
#define KERN(sym, e, r, dsz)                                          \
	{                                                             \
		.symbol = sym, .entry = e, .ret = r, .data_size = dsz \
	}
/* A static helper an optimising build may inline: its fallback covers it. */
#define DRV_INLINABLE(sym, e, r, dsz)                                   \
	{                                                               \
		.symbol = sym, .in_target = true, .optional = true,     \
		.entry = e, .ret = r, .data_size = dsz                  \
	}
#define FRAME sizeof(struct nv_frame_data)

/*
 * Innermost functions first: planting goes down this table, so a call that
 * has an outer frame started after every function it calls was probed, and
 * a nested call without its outer frame is known to be in flight since
 * before attach. Removal goes up the table, outermost first.
 */
static struct pt_probe nv_probes[] = {
	KERN("vm_insert_page", nv_insert_entry, nv_insert_ret,
	     sizeof(struct nv_insert_data)),
	KERN("up", nv_up_entry, NULL, 0),
	DRV_INLINABLE("nv_alloc_set_page", nv_set_page_entry, nv_set_page_ret,
		      sizeof(struct nv_set_page_data)),
	DRV_INLINABLE("nv_mem_pool_move_pages", nv_move_entry, nv_move_ret,
		      sizeof(struct nv_move_data)),
	DRV_INLINABLE("nv_mem_pool_free_page_list", nv_free_list_entry,
		      nv_frame_ret, FRAME),
	DRV_INLINABLE("nv_alloc_coherent_pages", nv_coherent_entry,
		      nv_coherent_ret, sizeof(struct nv_coherent_data)),
	DRV("nv_mem_pool_alloc_pages", nv_take_entry, nv_take_ret,
	    sizeof(struct nv_take_data)),
	DRV("nv_mem_pool_free_pages", nv_admit_entry, nv_admit_ret, FRAME),
	DRV("nv_mem_pool_worker", nv_worker_entry, nv_frame_ret, FRAME),
	DRV("nv_mem_pool_shrinker_count", nv_count_entry, nv_count_ret, 0),
	DRV("nv_mem_pool_shrinker_scan", nv_scan_entry, nv_scan_ret, FRAME),
	DRV("nv_mem_pool_destroy", nv_destroy_entry, nv_frame_ret, FRAME),
	DRV("nvidia_mmap_helper", nv_mmap_helper_entry, nv_mmap_helper_ret,
	    FRAME),
	DRV("nvidia_vma_open", nv_vma_open_entry, NULL, 0),
	DRV("nvidia_vma_release", nv_vma_release_entry, NULL, 0),
	DRV("nv_alloc_system_pages", nv_alloc_entry, nv_alloc_ret, FRAME),
	DRV("nv_free_system_pages", nv_release_entry, nv_release_ret,
	    sizeof(struct nv_release_data)),
	DRV("nvidia_mmap", nv_mmap_entry, nv_mmap_ret, FRAME),
	DRV("nv_alloc_contig_pages", nv_alloc_entry, nv_contig_ret, FRAME),
	DRV("nv_free_contig_pages", nv_release_entry, nv_release_ret,
	    sizeof(struct nv_release_data)),
};

unsigned int nv_fallbacks;

/* What each fallback stands in for, and the detail it cannot give (tokens). */
static const struct {
	const char *symbol;
	unsigned int flag;
	const char *via;
	const char *lost;
} nv_fallback_table[] = {
	{ "nv_alloc_set_page", NV_FB_SET_PAGE,
	  "page_table_walk_at_take_and_alloc_return",
	  "assignment_order_within_one_call" },
	{ "nv_mem_pool_move_pages", NV_FB_MOVE_PAGES,
	  "take_beside_each_pool_assignment",
	  "list_of_a_take_whose_scrub_was_not_seen" },
	{ "nv_mem_pool_free_page_list", NV_FB_FREE_LIST,
	  "mm_page_free_inside_shrinker_and_destroy",
	  "reclaims_whose_free_was_not_traced" },
	{ "nv_alloc_coherent_pages", NV_FB_COHERENT,
	  "page_table_walk_at_contig_return", "nothing_on_success" },
};

/*
 * Before anything is planted, so that no handler ever runs with the wrong
 * idea of which helpers are seen: a helper with no symbol was inlined.
 */
static void nv_choose_fallbacks(const char *target)
{
	/* Static: too big for the stack; attach is serialized by the target lock. */
	static char syms[ARRAY_SIZE(nv_fallback_table)]
			[MODULE_NAME_LEN + KSYM_NAME_LEN + 2];
	const char *names[ARRAY_SIZE(nv_fallback_table)];
	int errors[ARRAY_SIZE(nv_fallback_table)];
	unsigned int i;

	nv_fallbacks = 0;
	for (i = 0; i < ARRAY_SIZE(nv_fallback_table); i++) {
		snprintf(syms[i], sizeof(syms[i]), "%s:%s", target,
			 nv_fallback_table[i].symbol);
		names[i] = syms[i];
	}
	if (pt_resolve_functions(names, NULL, errors, ARRAY_SIZE(names)) < 0)
		memset(errors, 0, sizeof(errors)); /* no memory: assume present */
	for (i = 0; i < ARRAY_SIZE(nv_fallback_table); i++)
		if (errors[i]) /* absent: inlined */
			nv_fallbacks |= nv_fallback_table[i].flag;
	for (i = 0; i < ARRAY_SIZE(nv_fallback_table); i++)
		if (nv_fallbacks & nv_fallback_table[i].flag)
			pr_info("nvidia profile: %s not found (inlined); fallback: %s; lost: %s\n",
				nv_fallback_table[i].symbol,
				nv_fallback_table[i].via,
				nv_fallback_table[i].lost);
}

static struct pt_tp_hook nv_tp_free = { .name = "mm_page_free",
					.probe = nv_tp_page_free };
static struct pt_tp_hook nv_tp_alloc = { .name = "mm_page_alloc",
					 .probe = nv_tp_page_alloc };

/* --- validation ---------------------------------------------------------- */

static int nv_check_params(char *why, size_t len)
{
	return pt_nv_layout_check(&nv_layout, why, len);
}

static bool nv_list_head_sane(unsigned long head)
{
	unsigned long next, back;

	if (!nv_read_ulong(head, &next) ||
	    !nv_read_ulong(next + sizeof(void *), &back))
		return false;
	return back == head;
}

/*
 * Read every pool of sysmem_page_pools: each must say it is the pool of
 * its own [node][order] cell, and its lists must be well-formed list heads.
 * The pool lock is not ours to take, so a list that looks torn is retried.
 */
static int nv_check_live_pools(const char *target)
{
	char sym[KSYM_SYMBOL_LEN], owner[MODULE_NAME_LEN + 4];
	size_t len;
	unsigned long nv_pools_sym;
	unsigned int node, order, pools = 0, tries;
	unsigned long cell, pool;
	struct nv_pool_view pv = {};

	if (!nv_pools_addr) {
		pr_warn("nvidia profile: nv_pools_addr not given; pool offsets cannot be checked against live pools\n");
		return 0;
	}
	/*
	 * The address must lie in the target at a symbol's start. Its name
	 * may read as another zero-sized symbol at the same address (a
	 * lockdep __key), so what proves it is the array is its contents:
	 * every pool it points to names its own cell, below.
	 */
	sprint_symbol(sym, nv_pools_addr);
	snprintf(owner, sizeof(owner), " [%s]", target);
	len = strlen(sym);
	if (!strstr(sym, "+0x0/") || len < strlen(owner) ||
	    strcmp(sym + len - strlen(owner), owner)) {
		pr_err("nvidia profile: nv_pools_addr names '%s', not a symbol of %s\n",
		       sym, target);
		return -EINVAL;
	}
	nv_pools_sym = nv_pools_addr;
	for (node = 0; node < MAX_NUMNODES; node++) {
		for (order = 0; order <= nv_layout.max_page_order; order++) {
			cell = nv_pools_sym +
			       sizeof(void *) *
				       (node * (nv_layout.max_page_order + 1) +
					order);
			if (!nv_read_ulong(cell, &pool))
				return -EFAULT;
			if (!pool)
				continue;
			if (!nv_pool_read(pool, &pv) || pv.node != node ||
			    pv.order != order) {
				pr_err("nvidia profile: pool [%u][%u] reads node_id=%u order=%u: nv_pool_node_id=%d/nv_pool_order=%d (or nv_max_page_order=%d) are wrong\n",
				       node, order, pv.node, pv.order,
				       nv_layout.pool_node_id,
				       nv_layout.pool_order,
				       nv_layout.max_page_order);
				return -EINVAL;
			}
			for (tries = 0; tries < 3; tries++)
				if (nv_list_head_sane(
					    pool + nv_layout.pool_clean_list) &&
				    nv_list_head_sane(
					    pool + nv_layout.pool_dirty_list))
					break;
			if (tries == 3) {
				pr_err("nvidia profile: pool [%u][%u] lists are not list heads: nv_pool_clean_list=%d/nv_pool_dirty_list=%d are wrong\n",
				       node, order, nv_layout.pool_clean_list,
				       nv_layout.pool_dirty_list);
				return -EINVAL;
			}
			pools++;
		}
	}
	pr_info("nvidia profile: %u live pools match the layout\n", pools);
	return 0;
}

static int nv_attach(const char *target)
{
	int ret;

	ret = nv_check_live_pools(target);
	if (ret)
		return ret;
	nv_choose_fallbacks(target);
	ret = pt_probes_attach(nv_probes, ARRAY_SIZE(nv_probes), target);
	if (ret)
		return ret;
	/* Last: frees and allocations are judged by the frames above. */
	ret = pt_tp_attach(&nv_tp_free, 0);
	if (ret)
		goto err_probes;
	ret = pt_tp_attach(&nv_tp_alloc, 1);
	if (ret)
		goto err_free;
	return 0;
err_free:
	pt_tp_detach(&nv_tp_free);
err_probes:
	pt_probes_detach(nv_probes, ARRAY_SIZE(nv_probes));
	return ret;
}

static void nv_detach(void)
{
	pt_tp_detach(&nv_tp_alloc);
	pt_tp_detach(&nv_tp_free);
	pt_probes_detach(nv_probes, ARRAY_SIZE(nv_probes));
}

static void nv_show_fallbacks(struct seq_file *m)
{
	unsigned int i, n = 0;

	seq_puts(m, "fallbacks=");
	for (i = 0; i < ARRAY_SIZE(nv_fallback_table); i++)
		if (nv_fallbacks & nv_fallback_table[i].flag)
			seq_printf(m, "%s%s", n++ ? "," : "",
				   nv_fallback_table[i].symbol);
	seq_puts(m, n ? "\n" : "none\n");
}

static void nv_show_probes(struct seq_file *m)
{
	unsigned int i;

	pt_probes_show(m, nv_probes, ARRAY_SIZE(nv_probes));
	for (i = 0; i < ARRAY_SIZE(nv_fallback_table); i++)
		if (nv_fallbacks & nv_fallback_table[i].flag)
			seq_printf(m, "fallback=%s via=%s lost=%s\n",
				   nv_fallback_table[i].symbol,
				   nv_fallback_table[i].via,
				   nv_fallback_table[i].lost);
	seq_printf(m, "tracepoint=kmem:%s hooked=%d hits=%llu\n",
		   nv_tp_free.name, nv_tp_free.registered,
		   pt_tp_hits(&nv_tp_free));
	seq_printf(m, "tracepoint=kmem:%s hooked=%d hits=%llu\n",
		   nv_tp_alloc.name, nv_tp_alloc.registered,
		   pt_tp_hits(&nv_tp_alloc));
}

static void nv_show_stats(struct seq_file *m)
{
#define S(x) \
	seq_printf(m, "nv_" #x "=%lld\n", (long long)atomic64_read(&nv_stats.x))
	S(decode_errors);
	S(walks_truncated);
	S(take_mismatch);
	S(reclaim_mismatch);
	S(shrink_count_calls);
	S(shrink_count_sum);
	S(shrink_scan_calls);
	S(shrink_scan_freed);
	S(mmaps);
	S(mmap_failed);
	S(inserts);
	S(insert_failed);
	S(inserts_unowned);
	S(admit_refused);
#undef S
	seq_printf(m, "nv_allocations=%d\n", atomic_read(&nv_stats.alloc_seq));
}

/* Every counter but the allocation numbering, which names allocations. */
static void nv_reset_stats(void)
{
	int alloc_seq = atomic_read(&nv_stats.alloc_seq);

	memset(&nv_stats, 0, sizeof(nv_stats));
	atomic_set(&nv_stats.alloc_seq, alloc_seq);
}

const struct pt_profile pt_profile_nvidia = {
	.name = "nvidia",
	.default_target = "nvidia",
	.anchor_symbol = "nv_alloc_system_pages",
	.check_params = nv_check_params,
	.attach = nv_attach,
	.detach = nv_detach,
	.show_probes = nv_show_probes,
	.show_stats = nv_show_stats,
	.show_control = nv_show_fallbacks,
	.reset_stats = nv_reset_stats,
};
