/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: one table per subcommand for its options, help and manual. */
#ifndef PAGETRAIL_TOOL_OPT_H
#define PAGETRAIL_TOOL_OPT_H

#include <stdio.h>

#ifndef PT_VERSION
#define PT_VERSION "unknown" /* the Makefile passes dkms.conf's */
#endif

/* One option: --lng [ARG] or -s [ARG]; key is what pt_opt_next returns. */
struct pt_opt {
	const char *lng;
	char shrt;
	const char *arg; /* value name ("FILE"), NULL for a flag */
	const char *help;
	int key;
	int required; /* shown without brackets; the subcommand checks it */
};

/*
 * One subcommand: what `pagetrail SUB --help`, `pagetrail help SUB`, the
 * command list and the man page print. Every text comes from here.
 */
struct pt_cmdspec {
	const char *name;
	const char *args; /* operands in the synopsis: "PFN", "[FILE|-]" */
	const char *summary; /* one line */
	const char *desc; /* paragraphs, '\n'-separated */
	const char *exit; /* exit status */
	const struct pt_opt *opts; /* ends with { NULL } */
	int stop_at_operand; /* capture: the first operand starts a command */
};

enum {
	PT_OPT_END = 0,
	PT_OPT_OPERAND = -1, /* an operand: p->val */
	PT_OPT_HELP = -2, /* --help printed: exit 0 */
	PT_OPT_ERR = -3, /* a usage error printed, one line: exit 2 */
};

/* The options every reading subcommand shares. */
enum {
	PT_KEY_FROM = 0x100,
	PT_KEY_TRACE,
	PT_KEY_DEBUGFS,
	PT_KEY_JSON,
	PT_KEY_FORCE,
	PT_KEY_CHECK,
};

#define PT_OPT_FROM                                                           \
	{ "from", 0, "CAPTURE|DIR",                                           \
	  "read a capture file or a directory of debugfs copies instead of the live module", \
	  PT_KEY_FROM, 0 }
#define PT_OPT_TRACE                                                          \
	{ "trace", 0, "TRACE.DAT",                                            \
	  "read trace-cmd's recording of pagetrail's tracepoints", PT_KEY_TRACE, 0 }
#define PT_OPT_DEBUGFS                                                        \
	{ "debugfs", 0, "DIR",                                                \
	  "the live debugfs directory (default $PAGETRAIL_DEBUGFS, else /sys/kernel/debug/pagetrail)", \
	  PT_KEY_DEBUGFS, 0 }
#define PT_OPT_JSON \
	{ "json", 0, NULL, "one JSON object instead of text", PT_KEY_JSON, 0 }

struct pt_optp {
	const struct pt_cmdspec *c;
	int argc;
	char **argv;
	int i; /* next argv index */
	const char *val; /* the option's value or the operand */
	const char *name; /* the option as written, for messages */
	int operands_only; /* after "--" */
	int stopped;
};

void pt_opt_init(struct pt_optp *p, const struct pt_cmdspec *c, int argc,
		 char **argv);
/* The next option's key, or PT_OPT_*; never prints on END or OPERAND. */
int pt_opt_next(struct pt_optp *p);
/* A usage error: one line, "pagetrail SUB: ..."; returns 2. */
int pt_usage_err(const struct pt_cmdspec *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void pt_help_print(FILE *out, const struct pt_cmdspec *c);
void pt_help_list(FILE *out);
const struct pt_cmdspec *pt_cmdspec_find(const char *name);
/* The manual as roff (pagetrail.8) or markdown (README), from the same tables. */
void pt_manual_roff(FILE *out);
void pt_manual_markdown(FILE *out);
/* What may stand at WORD[CWORD] of "pagetrail ...": argv is CWORD WORD... */
int pt_complete(int argc, char **argv);

extern const struct pt_cmdspec pt_spec_status, pt_spec_capture, pt_spec_decode,
	pt_spec_history, pt_spec_anomalies, pt_spec_diagnose, pt_spec_evidence,
	pt_spec_timeline, pt_spec_devices, pt_spec_denials;
extern const struct pt_cmdspec *const pt_specs[];

#endif /* PAGETRAIL_TOOL_OPT_H */
