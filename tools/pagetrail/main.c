// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: dispatch to the subcommand named by argv[1]. */
#include <stdio.h>
#include <string.h>
#include "cmds.h"
#include "opt.h"

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
	const struct pt_cmdspec *spec;
	pt_cmd_fn fn;
};

static const struct pt_cmd pt_cmds[] = {
	{ &pt_spec_status, pt_cmd_status },
	{ &pt_spec_capture, pt_cmd_capture },
	{ &pt_spec_decode, pt_cmd_decode },
	{ &pt_spec_history, pt_cmd_history },
	{ &pt_spec_anomalies, pt_cmd_anomalies },
	{ &pt_spec_diagnose, pt_cmd_diagnose },
	{ &pt_spec_evidence, pt_cmd_evidence },
	{ &pt_spec_timeline, pt_cmd_timeline },
	{ &pt_spec_devices, pt_cmd_devices },
	{ &pt_spec_denials, pt_cmd_denials },
};

#define PT_NCMDS (sizeof(pt_cmds) / sizeof(pt_cmds[0]))

/*
 * pagetrail help [SUBCOMMAND | --man | --markdown]; --complete CWORD
 * WORD... is the bash completion's question (tools/pagetrail/complete.c).
 */
static int pt_help(int argc, char **argv)
{
	const struct pt_cmdspec *c;

	if (argc < 2) {
		pt_help_list(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--complete"))
		return pt_complete(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "--man")) {
		pt_manual_roff(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--markdown")) {
		pt_manual_markdown(stdout);
		return 0;
	}
	c = argc == 2 ? pt_cmdspec_find(argv[1]) : NULL;
	if (!c) {
		fprintf(stderr,
			argc == 2 ?
				"pagetrail help: no subcommand '%s' (pagetrail --help lists them)\n" :
				"pagetrail help: one subcommand at a time, not '%s ...'\n",
			argv[1]);
		return 2;
	}
	pt_help_print(stdout, c);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		pt_help_list(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help"))
		return pt_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pagetrail %s\n", PT_VERSION);
		return 0;
	}
	for (i = 0; i < PT_NCMDS; i++) {
		if (strcmp(argv[1], pt_cmds[i].spec->name))
			continue;
		if (!pt_cmds[i].fn) {
			fprintf(stderr, "pagetrail %s: not built into this binary\n",
				argv[1]);
			return 2;
		}
		return pt_cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "pagetrail: unknown %s '%s' (pagetrail --help)\n",
		argv[1][0] == '-' ? "option" : "subcommand", argv[1]);
	return 2;
}
