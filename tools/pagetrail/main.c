// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: dispatch to the subcommand named by argv[1]. */
#include <stdio.h>
#include <string.h>
#include "cmds.h"

/*
 * Subcommands live in separate files that are built in pieces; a weak
 * reference lets the command link while one of them is absent, and says
 * so instead of failing to build.
 */
#pragma weak pt_cmd_status
#pragma weak pt_cmd_capture
#pragma weak pt_cmd_decode
#pragma weak pt_cmd_history
#pragma weak pt_cmd_anomalies
#pragma weak pt_cmd_diagnose
#pragma weak pt_cmd_evidence
#pragma weak pt_cmd_timeline
#pragma weak pt_cmd_devices
#pragma weak pt_cmd_denials

struct pt_cmd {
	const char *name;
	pt_cmd_fn fn;
	const char *help;
};

static const struct pt_cmd pt_cmds[] = {
	{ "status", pt_cmd_status, "what is attached, seen, lost; exit 0 only when coverage is complete" },
	{ "capture", pt_cmd_capture, "[-o FILE] [-- COMMAND...]: snapshot everything into one file" },
	{ "decode", pt_cmd_decode, "[--check] [FILE|-]: events.bin as text lines" },
	{ "history", pt_cmd_history, "PFN [--json]: one page's life" },
	{ "anomalies", pt_cmd_anomalies, "[--json]: each anomaly with history and stack" },
	{ "diagnose", pt_cmd_diagnose, "[--json]: root-cause class of each anomaly chain" },
	{ "evidence", pt_cmd_evidence, "-o DIR: publishable, aliased evidence package" },
	{ "timeline", pt_cmd_timeline, "-o FILE.svg: flagged pages' lives as a picture" },
	{ "devices", pt_cmd_devices, "[--root DIR [--open]] [--lxc-config FILE | --devices-list FILE] [--proc-devices FILE] [--cgroup unified|legacy] [--no-open] [--attached CGROUP_DIR] [--json]: NVIDIA nodes and a container's device policy, per node" },
	{ "denials", pt_cmd_denials, "[--json]: recorded device-cgroup denials" },
};

static void pt_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: pagetrail SUBCOMMAND [ARGS]\n"
		     "common: --from CAPTURE | --trace trace.dat (default: live debugfs)\n\n");
	for (i = 0; i < sizeof(pt_cmds) / sizeof(pt_cmds[0]); i++)
		fprintf(out, "  %-10s %s\n", pt_cmds[i].name, pt_cmds[i].help);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		pt_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		pt_usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(pt_cmds) / sizeof(pt_cmds[0]); i++) {
		if (strcmp(argv[1], pt_cmds[i].name))
			continue;
		if (!pt_cmds[i].fn) {
			fprintf(stderr, "pagetrail: %s: not built into this binary\n",
				argv[1]);
			return 2;
		}
		return pt_cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "pagetrail: unknown subcommand '%s' (pagetrail --help)\n",
		argv[1]);
	return 2;
}
