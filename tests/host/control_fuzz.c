// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the real debugfs control parser (module/control.c),
 * built in userspace against tests/host/kshim. Whatever the bytes, it must
 * return 0 with a known command or -EINVAL with a reason, never read past
 * the input, and accept exactly what its grammar says.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include "../../module/control.c"

static const char *const words[] = { "attach", "detach", "freeze", "thaw", "reset",
				     "overwrite", "freeze_on_anomaly", "devcg",
				     "devcg_major" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size heap copy: ASan sees any read past the write. */
	char *buf = malloc(size ? size : 1);
	struct pt_cmd cmd = { .op = 99 };
	const char *why = (const char *)1;
	int ret;

	memcpy(buf, data, size);
	ret = pt_control_parse(buf, size, &cmd, &why);
	if (ret) {
		assert(ret == -EINVAL);
		assert(why && *why);
	} else {
		assert(why == NULL);
		assert(cmd.op <= PT_CMD_DEVCG_MAJOR);
		/* The command word it took must be in the input. */
		assert(memmem(data, size, words[cmd.op], strlen(words[cmd.op])));
		assert(size > 0 && size <= PT_CMD_MAX);
		if (cmd.op == PT_CMD_DEVCG_MAJOR)
			assert(cmd.number >= -1 && cmd.number <= 4095);
	}
	free(buf);
	return 0;
}
