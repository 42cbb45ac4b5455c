/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: the debugfs control language (parse only; main.c executes). */
#ifndef PAGETRAIL_CONTROL_H
#define PAGETRAIL_CONTROL_H

#include <linux/types.h>

enum pt_cmd_op {
	PT_CMD_ATTACH,
	PT_CMD_DETACH,
	PT_CMD_FREEZE,
	PT_CMD_THAW,
	PT_CMD_RESET,
	PT_CMD_OVERWRITE, /* overwrite=0|1 */
	PT_CMD_FREEZE_ON_ANOMALY, /* freeze_on_anomaly=0|1 */
	PT_CMD_DEVCG, /* devcg=0|1: record device-cgroup denials */
	PT_CMD_DEVCG_MAJOR, /* devcg_major=N|all: only this major (number) */
};

struct pt_cmd {
	enum pt_cmd_op op;
	bool value;
	int number; /* PT_CMD_DEVCG_MAJOR: 0..4095, -1 for all */
};

int pt_control_parse(const char *buf, size_t len, struct pt_cmd *cmd,
		     const char **why);

#endif /* PAGETRAIL_CONTROL_H */
