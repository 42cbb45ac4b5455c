// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: parse one control command, as written to debugfs "control":
 *   attach | detach | freeze | thaw | reset | overwrite=0|1 | freeze_on_anomaly=0|1
 *   | devcg=0|1 | devcg_major=N|all
 * Surrounding whitespace (the newline echo adds) is accepted; anything else
 * is -EINVAL with a reason the caller logs.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <pagetrail/control.h>

#define PT_CMD_MAX 64

static const struct {
	const char *word;
	enum pt_cmd_op op;
	bool takes_value;
} pt_cmds[] = {
	{ "attach", PT_CMD_ATTACH, false },
	{ "detach", PT_CMD_DETACH, false },
	{ "freeze", PT_CMD_FREEZE, false },
	{ "thaw", PT_CMD_THAW, false },
	{ "reset", PT_CMD_RESET, false },
	{ "overwrite", PT_CMD_OVERWRITE, true },
	{ "freeze_on_anomaly", PT_CMD_FREEZE_ON_ANOMALY, true },
	{ "devcg", PT_CMD_DEVCG, true },
	{ "devcg_major", PT_CMD_DEVCG_MAJOR, true },
};

/* devcg_major=: a major number (0..4095) or "all". */
static int pt_control_major(const char *value, struct pt_cmd *cmd,
			    const char **why)
{
	if (value && !strcmp(value, "all")) {
		cmd->number = -1;
		return 0;
	}
	if (!value || kstrtoint(value, 10, &cmd->number) || cmd->number < 0 ||
	    cmd->number > 4095) {
		*why = "value must be a major 0..4095 or all";
		return -EINVAL;
	}
	return 0;
}

int pt_control_parse(const char *buf, size_t len, struct pt_cmd *cmd,
		     const char **why)
{
	char line[PT_CMD_MAX + 1];
	char *word, *value;
	unsigned int i;

	*why = NULL;
	if (len == 0 || len > PT_CMD_MAX) {
		*why = len ? "command too long" : "empty command";
		return -EINVAL;
	}
	memcpy(line, buf, len);
	line[len] = '\0';
	if (strlen(line) != len) {
		*why = "NUL byte in command";
		return -EINVAL;
	}
	word = strim(line);
	if (strpbrk(word, "\n\t ")) {
		*why = "one command per write";
		return -EINVAL;
	}
	value = strchr(word, '=');
	if (value)
		*value++ = '\0';

	for (i = 0; i < ARRAY_SIZE(pt_cmds); i++) {
		if (strcmp(word, pt_cmds[i].word))
			continue;
		cmd->op = pt_cmds[i].op;
		cmd->value = false;
		if (cmd->op == PT_CMD_DEVCG_MAJOR)
			return pt_control_major(value, cmd, why);
		if (!pt_cmds[i].takes_value) {
			if (value) {
				*why = "this command takes no value";
				return -EINVAL;
			}
			return 0;
		}
		if (!value || (strcmp(value, "0") && strcmp(value, "1"))) {
			*why = "value must be 0 or 1";
			return -EINVAL;
		}
		cmd->value = value[0] == '1';
		return 0;
	}
	*why = "unknown command";
	return -EINVAL;
}
