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
#include <pagetrail/rules.h>
#include <pagetrail/hitcount.h>
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

/*
 * The target's struct module (its __this_module), handed in the same way:
 * with nv_mem_pool_destroy inlined, a pool's teardown is known only as the
 * frees of pooled chunks while the driver unloads (state GOING).
 */
static unsigned long nv_module_addr;
module_param(nv_module_addr, ulong, 0400);
MODULE_PARM_DESC(nv_module_addr,
		 "address of the target's __this_module (0: none; needed only where nv_mem_pool_destroy is inlined)");

/*
 * What attach found: from the target's own symbol table when pagetrail saw
 * it load, else from the two parameters above (checked against kallsyms).
 */
unsigned long nv_pools;
static unsigned long nv_module;

/* The target runs its exit: only then does a pool's teardown free chunks. */
bool nv_target_going(void)
{
	int state;

	/* struct module begins with its state. */
	return nv_module && nv_read(nv_module, &state, sizeof(state)) &&
	       state == MODULE_STATE_GOING;
}

/* A defined symbol of a module that pagetrail saw load, by its name. */
static unsigned long nv_module_symbol(struct module *mod, const char *name)
{
	const struct mod_kallsyms *ks;
	unsigned long addr = 0;
	unsigned int i;

	rcu_read_lock_sched();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 0; ks && i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];

		if (sym->st_shndx != SHN_UNDEF &&
		    !strcmp(ks->strtab + sym->st_name, name)) {
			addr = sym->st_value;
			break;
		}
	}
	rcu_read_unlock_sched();
	return addr;
}

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
	/* static from 610.x, and inlined into their one caller each */
	DRV_INLINABLE("nv_mem_pool_alloc_pages", nv_take_entry, nv_take_ret,
		      sizeof(struct nv_take_data)),
	DRV_INLINABLE("nv_mem_pool_free_pages", nv_admit_entry, nv_admit_ret,
		      FRAME),
	DRV("nv_mem_pool_worker", nv_worker_entry, nv_frame_ret, FRAME),
	DRV("nv_mem_pool_shrinker_count", nv_count_entry, nv_count_ret, 0),
	DRV("nv_mem_pool_shrinker_scan", nv_scan_entry, nv_scan_ret, FRAME),
	/* static from 610.x: kept out of line by 610.43.02's builds so far */
	DRV_INLINABLE("nv_mem_pool_destroy", nv_destroy_entry, nv_frame_ret,
		      FRAME),
	DRV("nvidia_mmap_helper", nv_mmap_helper_entry, nv_mmap_helper_ret,
	    sizeof(struct nv_helper_data)),
	DRV("nvidia_vma_open", nv_vma_open_entry, NULL, 0),
	DRV("nvidia_vma_release", nv_vma_release_entry, NULL, 0),
	DRV("nv_alloc_system_pages", nv_alloc_entry, nv_alloc_ret, FRAME),
	DRV("nv_free_system_pages", nv_release_system_entry, nv_release_ret,
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
	{ "nv_mem_pool_alloc_pages", NV_FB_POOL_TAKE,
	  "move_pages_in_nv_alloc_system_pages,else_pooled_state_at_its_return",
	  "take_count_check(take_mismatch),with_move_pages_inlined:list_taken_from,takes_of_chunks_pooled_before_attach_look_fresh" },
	{ "nv_mem_pool_free_pages", NV_FB_POOL_ADMIT,
	  "admit_at_nv_free_system_pages_entry_if_flags.pool_and_live_pool,pool_lock_up_confirms",
	  "declined_vs_every_chunk_turned_away(both_count_as_admit_refused)" },
	{ "nv_mem_pool_destroy", NV_FB_POOL_DESTROY,
	  "frees_of_pooled_chunks_outside_any_driver_frame_while_the_target_unloads",
	  "which_pool_a_teardown_reclaim_came_from(aux_0),a_teardown_on_an_init_failure" },
};

/*
 * nv_alloc_set_page needs its return only where a fallback walks the
 * page-table entry it writes (the take or move_pages inlined); elsewhere
 * its entry is the whole observation and the return probe, the dearer
 * half of a probe hit, is not planted.
 */
static void nv_choose_set_page_probe(void)
{
	bool at_return = nv_fallbacks & (NV_FB_POOL_TAKE | NV_FB_MOVE_PAGES);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nv_probes); i++) {
		if (strcmp(nv_probes[i].symbol, "nv_alloc_set_page"))
			continue;
		nv_probes[i].entry = at_return ? nv_set_page_entry :
						 nv_set_page_observe_entry;
		nv_probes[i].ret = at_return ? nv_set_page_ret : NULL;
	}
}

/*
 * @addr is where a symbol of @target starts (its name in @sym), and that
 * symbol is @name (NULL: any name).
 */
static bool nv_target_symbol_at(unsigned long addr, const char *name,
				const char *target, char *sym)
{
	char owner[MODULE_NAME_LEN + 4];
	size_t len, olen;

	sprint_symbol(sym, addr);
	snprintf(owner, sizeof(owner), " [%s]", target);
	len = strlen(sym);
	olen = strlen(owner);
	if (!strstr(sym, "+0x0/") || len < olen ||
	    strcmp(sym + len - olen, owner))
		return false;
	return !name ||
	       (!strncmp(sym, name, strlen(name)) && sym[strlen(name)] == '+');
}

/*
 * The target's struct module and pools: its own symbol table if pagetrail
 * saw it load (then a reload needs no new parameters), else the loader's
 * addresses, each of which must name its symbol of the target.
 */
static int nv_find_target(const char *target)
{
	struct module *mod = pt_target_module();
	char sym[KSYM_SYMBOL_LEN];

	nv_module = 0;
	nv_pools = 0;
	if (mod) {
		nv_module = (unsigned long)mod;
		nv_pools = nv_module_symbol(mod, "sysmem_page_pools");
		return 0;
	}
	if (nv_module_addr) {
		if (!nv_target_symbol_at(nv_module_addr, "__this_module",
					 target, sym)) {
			pr_err("nvidia profile: nv_module_addr names '%s', not %s's __this_module\n",
			       sym, target);
			return -EINVAL;
		}
		nv_module = nv_module_addr;
	}
	if (nv_pools_addr) {
		if (!nv_target_symbol_at(nv_pools_addr, NULL, target, sym)) {
			pr_err("nvidia profile: nv_pools_addr names '%s', not a symbol of %s\n",
			       sym, target);
			return -EINVAL;
		}
		nv_pools = nv_pools_addr;
	}
	return 0;
}

/*
 * Before anything is planted, so that no handler ever runs with the wrong
 * idea of which helpers are seen: a helper with no symbol was inlined.
 */
static int nv_choose_fallbacks(const char *target)
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
	/* The inlined take and admission find their pool in the live table. */
	if ((nv_fallbacks & (NV_FB_POOL_TAKE | NV_FB_POOL_ADMIT)) &&
	    !nv_pools) {
		pr_err("nvidia profile: %s inlines the pool take/admission; their fallbacks need the address of sysmem_page_pools: load pagetrail before %s, or give nv_pools_addr (scripts/pagetrail-load reads it from /proc/kallsyms as root)\n",
		       target, target);
		return -EINVAL;
	}
	if ((nv_fallbacks & NV_FB_POOL_DESTROY) && !nv_module) {
		pr_err("nvidia profile: %s inlines nv_mem_pool_destroy; its fallback needs %s's struct module: load pagetrail before %s, or give nv_module_addr (scripts/pagetrail-load reads its __this_module from /proc/kallsyms as root)\n",
		       target, target, target);
		return -EINVAL;
	}
	if ((nv_fallbacks & NV_FB_POOL_ADMIT) && nv_layout.alloc_pool_bit < 0) {
		pr_err("nvidia profile: %s inlines nv_mem_pool_free_pages; its fallback needs nv_alloc_pool_bit\n",
		       target);
		return -EINVAL;
	}
	nv_choose_set_page_probe();
	return 0;
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
	unsigned int node, order, pools = 0, tries;
	unsigned long cell, pool;
	struct nv_pool_view pv = {};

	if (!nv_pools) {
		pr_warn("nvidia profile: nv_pools_addr not given; pool offsets cannot be checked against live pools\n");
		return 0;
	}
	/*
	 * nv_pools_addr lies at a symbol's start in the target, but its name
	 * may read as another zero-sized symbol at the same address (a
	 * lockdep __key): what proves it is the array is its contents, every
	 * pool it points to naming its own cell.
	 */
	for (node = 0; node < MAX_NUMNODES; node++) {
		for (order = 0; order <= nv_layout.max_page_order; order++) {
			cell = nv_pools +
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

	ret = nv_find_target(target);
	if (ret)
		return ret;
	ret = nv_check_live_pools(target);
	if (ret)
		return ret;
	ret = nv_choose_fallbacks(target);
	if (ret)
		return ret;
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

/* What the walks' cap left out, for coverage and stats. */
static u64 nv_not_walked(void)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < PT_ROLE_MAX; i++)
		n += atomic64_read(&nv_stats.not_walked[i]);
	return n;
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
	seq_printf(m, "walk_max=%u walks_truncated=%lld chunks_not_walked=%llu\n",
		   nv_walk_cap(),
		   (long long)atomic64_read(&nv_stats.walks_truncated),
		   nv_not_walked());
}

static void nv_show_stats(struct seq_file *m)
{
	unsigned int i;

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
	seq_printf(m, "nv_inserts=%llu\n", pt_hit_sum(nv_hits, NV_HIT_INSERTS));
	S(insert_failed);
	S(inserts_unowned);
	S(inserts_lost_ref);
	S(admit_refused);
#undef S
	seq_printf(m, "nv_allocations=%u\n", nv_allocations());
	seq_printf(m, "nv_walk_max=%u\n", nv_walk_cap());
	for (i = 1; i < PT_ROLE_MAX; i++)
		if (atomic64_read(&nv_stats.not_walked[i]))
			seq_printf(m, "nv_not_walked_%s=%lld\n", pt_role_name(i),
				   (long long)atomic64_read(
					   &nv_stats.not_walked[i]));
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
	.reset_stats = nv_stats_reset,
};
