// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail command: what each subcommand takes and says about itself. The
 * help, `pagetrail help SUB`, the man page and README's command table are
 * all printed from these tables, so they cannot drift apart.
 */
#include <stdio.h>
#include <string.h>
#include "opt.h"

#define PT_EXIT_READ \
	"0 nothing found and coverage complete, 1 something found or not observed, 2 usage or input error"

static const struct pt_opt status_opts[] = {
	PT_OPT_FROM, PT_OPT_TRACE, PT_OPT_DEBUGFS, PT_OPT_JSON, { NULL }
};

const struct pt_cmdspec pt_spec_status = {
	.name = "status",
	.summary = "what is attached, seen, lost; exit 0 only when coverage is complete",
	.desc = "State, target, profile, probes (planted, hits, misses, fallbacks), ring produced/read/lost, chunks by state, anomalies, gaps; exit 0 only when coverage is complete (no miss, no loss, no gap).",
	.exit = "0 coverage complete, 1 something was not observed, 2 usage or input error",
	.opts = status_opts,
};

enum { K_OUT = 'o', K_FORCE = PT_KEY_FORCE, K_CHECK = PT_KEY_CHECK };

static const struct pt_opt capture_opts[] = {
	{ "output", 'o', "FILE",
	  "the capture file (default pagetrail.capture); an existing one is kept as FILE.old", K_OUT, 0 },
	{ "force", 0, NULL, "overwrite FILE instead of keeping it as FILE.old",
	  K_FORCE, 0 },
	PT_OPT_DEBUGFS,
	{ NULL }
};

const struct pt_cmdspec pt_spec_capture = {
	.name = "capture",
	.args = "[[--] COMMAND [ARG...]]",
	.summary = "snapshot everything pagetrail knows into one file",
	.desc = "Optionally run COMMAND, then snapshot control, stats, coverage, pages, anomalies, events.bin, the kernel release and build id, the target module's version and srcversion, /proc/driver/nvidia/version and params where they exist, into one file to attach to a bug report. Reading events.bin consumes the ring: capture once, analyse the capture with --from as often as you like.",
	.exit = "0 written, 2 usage error or nothing could be read or written",
	.opts = capture_opts,
	.stop_at_operand = 1,
};

static const struct pt_opt decode_opts[] = {
	{ "check", 0, NULL,
	  "print records= first_seq= last_seq= seq_gaps= on stderr; exit 1 when the sequence goes backwards",
	  K_CHECK, 0 },
	PT_OPT_FROM,
	PT_OPT_TRACE,
	{ NULL }
};

const struct pt_cmdspec pt_spec_decode = {
	.name = "decode",
	.args = "[FILE|-]",
	.summary = "events.bin as text lines",
	.desc = "events.bin (a file, or standard input) as the text lines of debugfs events, in the order the module wrote them. With --from, the events of a capture (or of a directory's events.bin); a capture given as FILE is refused with a hint to use --from.",
	.exit = "0 decoded, 1 --check found the sequence going backwards, 2 usage or input error",
	.opts = decode_opts,
};

static const struct pt_opt history_opts[] = {
	PT_OPT_FROM, PT_OPT_TRACE, PT_OPT_DEBUGFS, PT_OPT_JSON, { NULL }
};

const struct pt_cmdspec pt_spec_history = {
	.name = "history",
	.args = "PFN",
	.summary = "one page's life",
	.desc = "One page's life, oldest first: seq, time, thread, cpu, role, cause, state change, generation, allocation, index, refcount, ret, anomaly. PFN is hexadecimal (0x...) or decimal.",
	.exit = "0 records of the page found, 1 none, 2 usage or input error",
	.opts = history_opts,
};

static const struct pt_opt anomalies_opts[] = {
	PT_OPT_FROM, PT_OPT_TRACE, PT_OPT_DEBUGFS, PT_OPT_JSON, { NULL }
};

const struct pt_cmdspec pt_spec_anomalies = {
	.name = "anomalies",
	.summary = "each anomaly with history and stack",
	.desc = "Each anomaly with the page's history (records read, and what the module kept) and the culprit's kernel stack.",
	.exit = "0 no anomaly, 1 anomalies, 2 usage or input error",
	.opts = anomalies_opts,
};

static const struct pt_opt diagnose_opts[] = {
	PT_OPT_FROM, PT_OPT_TRACE, PT_OPT_DEBUGFS, PT_OPT_JSON, { NULL }
};

const struct pt_cmdspec pt_spec_diagnose = {
	.name = "diagnose",
	.summary = "root-cause class of each anomaly chain",
	.desc = "Each anomaly chain's root-cause class by a named rule, with the page, the culprit thread (or, where no rule names a class, the thread whose insert failed), the records used and the return chain to the user-visible failure.",
	.exit = PT_EXIT_READ,
	.opts = diagnose_opts,
};

static const struct pt_opt evidence_opts[] = {
	{ "output", 'o', "DIR",
	  "where evidence.json and summary.md go; existing ones are kept as .old",
	  K_OUT, 1 },
	{ "force", 0, NULL, "overwrite them instead of keeping .old copies",
	  K_FORCE, 0 },
	PT_OPT_FROM,
	PT_OPT_TRACE,
	PT_OPT_DEBUGFS,
	{ NULL }
};

const struct pt_cmdspec pt_spec_evidence = {
	.name = "evidence",
	.summary = "publishable, aliased evidence package",
	.desc = "evidence.json and summary.md: aliases instead of pfns, allocations, pids and thread names; OBSERVED / DERIVED / UNKNOWN labels; the coverage table; kernel and driver identity.",
	.exit = "0 written, 2 usage or input error",
	.opts = evidence_opts,
};

static const struct pt_opt timeline_opts[] = {
	{ "output", 'o', "FILE.svg", "where the picture goes", K_OUT, 1 },
	PT_OPT_FROM,
	PT_OPT_TRACE,
	PT_OPT_DEBUGFS,
	{ NULL }
};

const struct pt_cmdspec pt_spec_timeline = {
	.name = "timeline",
	.summary = "flagged pages' lives as a picture",
	.desc = "The flagged pages' lives as an SVG picture: one lane per page with a finding or an anomaly, transitions coloured by role, anomalies ringed.",
	.exit = "0 written, 2 usage or input error",
	.opts = timeline_opts,
};

/* devices and denials keep their option keys in their own files. */
static const struct pt_opt devices_opts[] = {
	{ "root", 0, "DIR",
	  "check the nodes under a container's rootfs (resolved inside it; nothing opened unless --open)",
	  'r', 0 },
	{ "open", 0, NULL, "open the nodes under --root too", 'o', 0 },
	{ "lxc-config", 0, "FILE", "an LXC or Proxmox container config",
	  'c', 0 },
	{ "devices-list", 0, "FILE", "a cgroup v1 devices.list", 'l', 0 },
	{ "proc-devices", 0, "FILE",
	  "majors from FILE instead of /proc/devices (a fixture)", 'p', 0 },
	{ "cgroup", 0, "unified|legacy",
	  "the host's cgroup hierarchy (default: this host's)", 'g', 0 },
	{ "no-open", 0, NULL, "do not open the nodes", 'n', 0 },
	{ "attached", 0, "CGROUP_DIR",
	  "run the device programs the kernel has in effect for a running container's cgroup",
	  'a', 0 },
	PT_OPT_JSON,
	{ NULL }
};

const struct pt_cmdspec pt_spec_devices = {
	.name = "devices",
	.summary = "NVIDIA nodes and a container's device policy, per node",
	.desc = "NVIDIA nodes against /proc/devices (stale major, mode, whether this process can open each, EPERM/EACCES/ENOENT/ENXIO in words); an LXC or Proxmox config, or a cgroup v1 devices.list, decided per node the way LXC and pve-container build the policy: missing and stale rules, optional families, and the corrected lines (Proxmox devN entries, LXC's devpath form, never a hard-coded dynamic major); with --attached, the running container's device programs run on each node.",
	.exit = "0 nothing breaks CUDA init, 1 something does, 2 usage or input error",
	.opts = devices_opts,
};

static const struct pt_opt denials_opts[] = {
	{ "file", 0, "FILE",
	  "the denials file (default /sys/kernel/debug/pagetrail/denials)",
	  'f', 0 },
	PT_OPT_JSON,
	{ NULL }
};

const struct pt_cmdspec pt_spec_denials = {
	.name = "denials",
	.summary = "recorded device-cgroup denials",
	.desc = "The device-cgroup denials the module recorded, each with its task, device, node, cgroup and the entry that would have admitted it: a Proxmox devN entry or LXC's devpath form for a cgroup2 container, the v1 allow line for a cgroup v1 one.",
	.exit = "0 no denial recorded, 1 denials recorded, 2 usage error or cannot read",
	.opts = denials_opts,
};

const struct pt_cmdspec *const pt_specs[] = {
	&pt_spec_status,    &pt_spec_capture,  &pt_spec_decode,
	&pt_spec_history,   &pt_spec_anomalies, &pt_spec_diagnose,
	&pt_spec_evidence,  &pt_spec_timeline, &pt_spec_devices,
	&pt_spec_denials,   NULL,
};

const struct pt_cmdspec *pt_cmdspec_find(const char *name)
{
	size_t i;

	for (i = 0; pt_specs[i]; i++)
		if (!strcmp(pt_specs[i]->name, name))
			return pt_specs[i];
	return NULL;
}

static int is_source_opt(const struct pt_opt *o)
{
	return o->key == PT_KEY_FROM || o->key == PT_KEY_TRACE ||
	       o->key == PT_KEY_DEBUGFS;
}

/* "[--check] [--from CAPTURE|DIR] [FILE|-]"; sources left out on request. */
static void synopsis(FILE *out, const struct pt_cmdspec *c, int sources)
{
	const struct pt_opt *o;

	fputs(c->name, out);
	for (o = c->opts; o->lng || o->shrt; o++) {
		if (!sources && is_source_opt(o))
			continue;
		if (o->shrt && o->arg && o->required)
			fprintf(out, " -%c %s", o->shrt, o->arg);
		else if (o->shrt && o->arg)
			fprintf(out, " [-%c %s]", o->shrt, o->arg);
		else if (o->arg)
			fprintf(out, " [--%s %s]", o->lng, o->arg);
		else
			fprintf(out, " [--%s]", o->lng);
	}
	if (c->args)
		fprintf(out, " %s", c->args);
}

static void opt_name(char *buf, size_t n, const struct pt_opt *o)
{
	int off = 0;

	if (o->shrt)
		off = snprintf(buf, n, "-%c%s", o->shrt, o->lng ? ", " : "");
	snprintf(buf + off, n - (size_t)off, "%s%s%s%s", o->lng ? "--" : "",
		 o->lng ? o->lng : "", o->arg ? " " : "", o->arg ? o->arg : "");
}

void pt_help_print(FILE *out, const struct pt_cmdspec *c)
{
	const struct pt_opt *o;
	char name[64];

	fputs("usage: pagetrail ", out);
	synopsis(out, c, 1);
	fprintf(out, "\n\n%s\n\noptions:\n", c->desc);
	for (o = c->opts; o->lng || o->shrt; o++) {
		opt_name(name, sizeof(name), o);
		fprintf(out, "  %-28s %s\n", name, o->help);
	}
	fprintf(out, "  %-28s %s\n\nexit status: %s\n", "-h, --help",
		"this help, then exit 0", c->exit);
}

void pt_help_list(FILE *out)
{
	size_t i;

	fputs("usage: pagetrail [--version] [--help] SUBCOMMAND [OPTIONS] [ARGS]\n"
	      "reading subcommands take --from CAPTURE|DIR, --trace TRACE.DAT or --debugfs DIR (default: live debugfs)\n\n",
	      out);
	for (i = 0; pt_specs[i]; i++)
		fprintf(out, "  %-10s %s\n", pt_specs[i]->name,
			pt_specs[i]->summary);
	fputs("\npagetrail help SUBCOMMAND (or pagetrail SUBCOMMAND --help) shows its options\n",
	      out);
}

/* Text for roff: a backslash escaped, a leading dot or quote made inert. */
static void roff(FILE *out, const char *s, int dashes)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-' && dashes)
			fputs("\\-", out);
		else if (*s == '\n')
			fputs("\n.PP\n", out);
		else
			fputc(*s, out);
	}
}

static void roff_cmd(FILE *out, const struct pt_cmdspec *c)
{
	const struct pt_opt *o;
	char name[64], syn[512];
	FILE *m = fmemopen(syn, sizeof(syn), "w");

	if (m) {
		synopsis(m, c, 1);
		fclose(m);
	} else {
		snprintf(syn, sizeof(syn), "%s", c->name);
	}
	fputs(".SS \"pagetrail ", out);
	roff(out, syn, 1);
	fputs("\"\n", out);
	roff(out, c->desc, 0);
	fputc('\n', out);
	for (o = c->opts; o->lng || o->shrt; o++) {
		opt_name(name, sizeof(name), o);
		fputs(".TP\n.B ", out);
		roff(out, name, 1);
		fputc('\n', out);
		roff(out, o->help, 0);
		fputc('\n', out);
	}
	fputs(".TP\n.B \\-h, \\-\\-help\nthis help, then exit 0\n.PP\nExit status: ",
	      out);
	roff(out, c->exit, 0);
	fputs(".\n", out);
}

void pt_manual_roff(FILE *out)
{
	size_t i;

	fprintf(out,
		".\\\" SPDX-License-Identifier: GPL-2.0\n"
		".\\\" Generated by pagetrail help --man (tools/pagetrail/spec.c): edit that, not this.\n"
		".TH PAGETRAIL 8 \"\" \"pagetrail %s\" \"System Administration\"\n"
		".SH NAME\npagetrail \\- read, diagnose and publish what the pagetrail module recorded\n"
		".SH SYNOPSIS\n.B pagetrail\n.RB [ \\-\\-version ]\n.RB [ \\-\\-help ]\n.I SUBCOMMAND\n.RI [ OPTIONS ]\n.br\n"
		".B pagetrail help\n.I SUBCOMMAND\n"
		".SH DESCRIPTION\n"
		"pagetrail reads the files of the pagetrail kernel module (debugfs, root only), a capture of them (\\fB\\-\\-from\\fR \\fICAPTURE\\fR, or a directory of copies), or a trace\\-cmd recording of its tracepoints (\\fB\\-\\-trace\\fR \\fItrace.dat\\fR). "
		"Reading events.bin consumes the flight recorder: on a live system capture once, then analyse the capture as often as you like.\n"
		".PP\nEvery subcommand exits 0 when all is well, 1 when something was found or not observed, 2 on a usage or input error, said in one line on standard error. Every \\fB\\-\\-json\\fR output is one object with \\fBformat\\fR and \\fBsource\\fR; its JSON Schema is in tools/pagetrail/schema.\n"
		".SH SUBCOMMANDS\n",
		PT_VERSION);
	for (i = 0; pt_specs[i]; i++)
		roff_cmd(out, pt_specs[i]);
	fputs(".SH SEE ALSO\n.BR pagetrail (4),\n.BR pagetrail-load (8),\n"
	      ".BR trace-cmd (1)\n",
	      out);
}

/* A table cell: '|' escaped for GitHub's tables. */
static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* README's command table; the source options are said above it. */
void pt_manual_markdown(FILE *out)
{
	char syn[512];
	size_t i;

	fputs("| subcommand | does |\n|---|---|\n", out);
	for (i = 0; pt_specs[i]; i++) {
		FILE *m = fmemopen(syn, sizeof(syn), "w");

		if (!m)
			return;
		synopsis(m, pt_specs[i], 0);
		fclose(m);
		fputs("| `", out);
		md_cell(out, syn);
		fputs("` | ", out);
		md_cell(out, pt_specs[i]->desc);
		fputs(" |\n", out);
	}
}
