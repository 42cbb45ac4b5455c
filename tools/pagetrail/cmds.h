/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: one function per subcommand, each in its own file. */
#ifndef PAGETRAIL_TOOL_CMDS_H
#define PAGETRAIL_TOOL_CMDS_H

/*
 * Every subcommand takes the arguments after its name (argv[0] is the
 * subcommand) and returns the process exit status: 0 all seen and fine,
 * 1 something was not seen or is wrong, 2 usage or input error.
 */
typedef int (*pt_cmd_fn)(int argc, char **argv);

int pt_cmd_status(int argc, char **argv);
int pt_cmd_capture(int argc, char **argv);
int pt_cmd_decode(int argc, char **argv);
int pt_cmd_history(int argc, char **argv);
int pt_cmd_anomalies(int argc, char **argv);
int pt_cmd_diagnose(int argc, char **argv);
int pt_cmd_evidence(int argc, char **argv);
int pt_cmd_timeline(int argc, char **argv);
int pt_cmd_devices(int argc, char **argv);
int pt_cmd_denials(int argc, char **argv);

#endif /* PAGETRAIL_TOOL_CMDS_H */
