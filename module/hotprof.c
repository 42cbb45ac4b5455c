// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: the IRQs-off section's parts, timed (PAGETRAIL_HOTPROF=1
 * builds only; see hotprof.h). Each mark reads the clock once, and that
 * read is charged to the part it ends: hotprof_clock_ns, the cost of one
 * read measured at each section's start, is what to subtract per part.
 */
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <pagetrail/hotprof.h>

struct pt_hotprof_cpu {
	u64 ns[PT_HP_MAX];
	u64 clock_ns;
	u64 sections;
	u64 stage_sections;
	u64 stage_obs; /* observations those sections staged */
	u64 stage_single; /* sections of one observation */
	u64 last;
};

static DEFINE_PER_CPU(struct pt_hotprof_cpu, pt_hotprof_cpu);

static const char *const pt_hotprof_names[PT_HP_MAX] = {
	[PT_HP_LOOKUP] = "lookup",
	[PT_HP_RULE] = "rule",
	[PT_HP_FILL] = "fill",
	[PT_HP_STAMP] = "stamp",
	[PT_HP_HISTORY] = "history",
	[PT_HP_COUNT] = "count",
	[PT_HP_RING] = "ring",
	[PT_HP_UNLOCK] = "unlock",
	[PT_HP_STAGE_ENTER] = "stage_enter",
	[PT_HP_STAGE_CLOCK] = "stage_clock",
	[PT_HP_STAGE_WHO] = "stage_who",
	[PT_HP_STAGE_WRITE] = "stage_write",
	[PT_HP_STAGE_PUBLISH] = "stage_publish",
};

/* IRQs off: the section starts, and one clock read is measured. */
void pt_hotprof_begin(void)
{
	struct pt_hotprof_cpu *p = this_cpu_ptr(&pt_hotprof_cpu);
	u64 t0 = local_clock();

	p->last = local_clock();
	p->clock_ns += p->last - t0;
	p->sections++;
}

/*
 * The probe path's staging section (record first) of @n observations; no
 * clock measured. How many stage alone says what fewer, fuller sections
 * could save.
 */
void pt_hotprof_begin_stage(unsigned int n)
{
	struct pt_hotprof_cpu *p = this_cpu_ptr(&pt_hotprof_cpu);

	p->last = local_clock();
	p->stage_sections++;
	p->stage_obs += n;
	p->stage_single += n == 1;
}

void pt_hotprof_mark(enum pt_hotprof_part part)
{
	struct pt_hotprof_cpu *p = this_cpu_ptr(&pt_hotprof_cpu);
	u64 now = local_clock();

	p->ns[part] += now - p->last;
	p->last = now;
}

/* Sums since load; racy against running sections, like every counter. */
void pt_hotprof_show(struct seq_file *m)
{
	u64 ns[PT_HP_MAX] = {}, clock_ns = 0, sections = 0, stage_sections = 0;
	u64 stage_obs = 0, stage_single = 0;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct pt_hotprof_cpu *p =
			per_cpu_ptr(&pt_hotprof_cpu, cpu);

		for (i = 0; i < PT_HP_MAX; i++)
			ns[i] += READ_ONCE(p->ns[i]);
		clock_ns += READ_ONCE(p->clock_ns);
		sections += READ_ONCE(p->sections);
		stage_sections += READ_ONCE(p->stage_sections);
		stage_obs += READ_ONCE(p->stage_obs);
		stage_single += READ_ONCE(p->stage_single);
	}
	seq_printf(m, "hotprof_sections=%llu\n", sections);
	seq_printf(m, "hotprof_stage_sections=%llu\n", stage_sections);
	seq_printf(m, "hotprof_stage_obs=%llu\n", stage_obs);
	seq_printf(m, "hotprof_stage_single=%llu\n", stage_single);
	seq_printf(m, "hotprof_clock_ns=%llu\n", clock_ns);
	for (i = 0; i < PT_HP_MAX; i++)
		seq_printf(m, "hotprof_%s_ns=%llu\n", pt_hotprof_names[i],
			   ns[i]);
}
