// SPDX-License-Identifier: GPL-2.0
/* KUnit: the debugfs control language parser (module/control.c). */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "../module/control.c"
#include "suites.h"

struct control_case {
	const char *desc;
	char buf[72];
	size_t len;		/* bytes handed to the parser; 0: strlen(@buf) */
	enum pt_cmd_op op;
	bool value;
	const char *why;	/* for refusals: the reason, or NULL for any */
};

static size_t control_len(const struct control_case *c)
{
	return c->len ? c->len : strlen(c->buf);
}

static void control_case_desc(const struct control_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

/* 64 bytes: the longest command accepted. */
#define PAD58 "                                                          "

static const struct control_case accepted[] = {
	{ "attach", "attach", 0, PT_CMD_ATTACH, false },
	{ "detach", "detach", 0, PT_CMD_DETACH, false },
	{ "freeze", "freeze", 0, PT_CMD_FREEZE, false },
	{ "thaw", "thaw", 0, PT_CMD_THAW, false },
	{ "reset", "reset", 0, PT_CMD_RESET, false },
	{ "overwrite=0", "overwrite=0", 0, PT_CMD_OVERWRITE, false },
	{ "overwrite=1", "overwrite=1", 0, PT_CMD_OVERWRITE, true },
	{ "freeze_on_anomaly=0", "freeze_on_anomaly=0", 0, PT_CMD_FREEZE_ON_ANOMALY, false },
	{ "freeze_on_anomaly=1", "freeze_on_anomaly=1", 0, PT_CMD_FREEZE_ON_ANOMALY, true },
	/* What echo and friends write. */
	{ "attach with newline", "attach\n", 0, PT_CMD_ATTACH, false },
	{ "overwrite=1 with newline", "overwrite=1\n", 0, PT_CMD_OVERWRITE, true },
	{ "freeze_on_anomaly=0 with CRLF", "freeze_on_anomaly=0\r\n", 0,
	  PT_CMD_FREEZE_ON_ANOMALY, false },
	{ "leading and trailing blanks", "  \tthaw\n\t ", 0, PT_CMD_THAW, false },
	{ "blank lines around", "\n\nreset\n\n", 0, PT_CMD_RESET, false },
	{ "64 bytes with padding", "detach" PAD58, 0, PT_CMD_DETACH, false },
	/* Only @len bytes count, whatever follows them. */
	{ "length stops before trailing junk", "freezeXYZ", 6, PT_CMD_FREEZE, false },
};

KUNIT_ARRAY_PARAM(accepted, accepted, control_case_desc);

static void control_accepts_each_command(struct kunit *test)
{
	const struct control_case *c = test->param_value;
	struct pt_cmd cmd = { .op = -1, .value = !c->value };
	const char *why = "stale";

	KUNIT_ASSERT_EQ(test, pt_control_parse(c->buf, control_len(c), &cmd, &why), 0);
	KUNIT_EXPECT_EQ(test, cmd.op, c->op);
	KUNIT_EXPECT_EQ(test, cmd.value, c->value);
	KUNIT_EXPECT_NULL(test, why);
}

static const struct control_case refused[] = {
	{ "empty", "", 0, 0, false, "empty command" },
	{ "65 bytes", "detach " PAD58, 0, 0, false, "command too long" },
	{ "one kilobyte", "attach", 1024, 0, false, "command too long" },
	{ "only whitespace", " \t\n", 0, 0, false, NULL },
	{ "unknown word", "bogus", 0, 0, false, "unknown command" },
	{ "wrong case", "Attach", 0, 0, false, "unknown command" },
	{ "prefix of a command", "free", 0, 0, false, "unknown command" },
	{ "command with a suffix", "attached", 0, 0, false, "unknown command" },
	{ "value without a command", "=1", 0, 0, false, "unknown command" },
	{ "missing value", "overwrite", 0, 0, false, "value must be 0 or 1" },
	{ "empty value", "overwrite=", 0, 0, false, "value must be 0 or 1" },
	{ "value 2", "overwrite=2", 0, 0, false, "value must be 0 or 1" },
	{ "value 01", "freeze_on_anomaly=01", 0, 0, false, "value must be 0 or 1" },
	{ "value -1", "overwrite=-1", 0, 0, false, "value must be 0 or 1" },
	{ "value true", "freeze_on_anomaly=true", 0, 0, false, "value must be 0 or 1" },
	{ "two values", "overwrite=1=1", 0, 0, false, "value must be 0 or 1" },
	{ "value on attach", "attach=1", 0, 0, false, "this command takes no value" },
	{ "empty value on reset", "reset=", 0, 0, false, "this command takes no value" },
	{ "value after a blank", "overwrite 1", 0, 0, false, "one command per write" },
	{ "two commands on a line", "attach detach", 0, 0, false, "one command per write" },
	{ "two commands on two lines", "freeze\nthaw\n", 0, 0, false, "one command per write" },
	{ "two commands, tab", "freeze\tthaw", 0, 0, false, "one command per write" },
	{ "NUL inside", "att\0ach", 7, 0, false, "NUL byte in command" },
	{ "NUL at the end", "attach\0", 7, 0, false, "NUL byte in command" },
	{ "NUL before the value", "overwrite\0=1", 12, 0, false, "NUL byte in command" },
	{ "devcg without a value", "devcg", 0, 0, false, "value must be 0 or 1" },
	{ "devcg=2", "devcg=2", 0, 0, false, "value must be 0 or 1" },
	{ "devcg_major without a value", "devcg_major", 0, 0, false,
	  "value must be a major 0..4095 or all" },
	{ "devcg_major=4096", "devcg_major=4096", 0, 0, false, "value must be a major 0..4095 or all" },
	{ "devcg_major=-1", "devcg_major=-1", 0, 0, false, "value must be a major 0..4095 or all" },
	{ "devcg_major=19x", "devcg_major=19x", 0, 0, false, "value must be a major 0..4095 or all" },
	{ "devcg_major=ALL", "devcg_major=ALL", 0, 0, false, "value must be a major 0..4095 or all" },
};

/* devcg_major= carries a number: the major, or -1 for "all". */
static void control_devcg_major_parses_the_number(struct kunit *test)
{
	static const struct { const char *in; int number; } ok[] = {
		{ "devcg_major=0", 0 }, { "devcg_major=195", 195 },
		{ "devcg_major=4095\n", 4095 }, { " devcg_major=all ", -1 },
	};
	struct pt_cmd cmd;
	const char *why;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		cmd.number = 12345;
		KUNIT_EXPECT_EQ_MSG(test, pt_control_parse(ok[i].in, strlen(ok[i].in), &cmd, &why), 0,
				    "%s", ok[i].in);
		KUNIT_EXPECT_EQ(test, cmd.op, PT_CMD_DEVCG_MAJOR);
		KUNIT_EXPECT_EQ_MSG(test, cmd.number, ok[i].number, "%s", ok[i].in);
	}
	KUNIT_EXPECT_EQ(test, pt_control_parse("devcg=1", 7, &cmd, &why), 0);
	KUNIT_EXPECT_EQ(test, cmd.op, PT_CMD_DEVCG);
	KUNIT_EXPECT_TRUE(test, cmd.value);
}

KUNIT_ARRAY_PARAM(refused, refused, control_case_desc);

static void control_refuses_malformed_input_with_a_reason(struct kunit *test)
{
	const struct control_case *c = test->param_value;
	char *buf = kunit_kzalloc(test, control_len(c) + 1, GFP_KERNEL);
	struct pt_cmd cmd = {};
	const char *why = NULL;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, c->buf, min(control_len(c), sizeof(c->buf)));
	KUNIT_EXPECT_EQ(test, pt_control_parse(buf, control_len(c), &cmd, &why), -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_GT(test, strlen(why), 0);
	if (c->why)
		KUNIT_EXPECT_STREQ(test, why, c->why);
}

/* The parser works on a copy: the caller's buffer is left as it was. */
static void control_leaves_the_input_untouched(struct kunit *test)
{
	static const char orig[] = "\toverwrite=1\n  ";
	char buf[sizeof(orig)];
	struct pt_cmd cmd;
	const char *why;

	memcpy(buf, orig, sizeof(orig));
	KUNIT_EXPECT_EQ(test, pt_control_parse(buf, sizeof(orig) - 1, &cmd, &why), 0);
	KUNIT_EXPECT_MEMEQ(test, buf, orig, sizeof(orig));
}

/* A refusal after a success must not keep the old reason, and vice versa. */
static void control_reason_follows_the_last_call(struct kunit *test)
{
	struct pt_cmd cmd;
	const char *why;

	KUNIT_EXPECT_EQ(test, pt_control_parse("bogus", 5, &cmd, &why), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, why);
	KUNIT_EXPECT_EQ(test, pt_control_parse("reset", 5, &cmd, &why), 0);
	KUNIT_EXPECT_NULL(test, why);
}

static struct kunit_case pt_control_cases[] = {
	KUNIT_CASE_PARAM(control_accepts_each_command, accepted_gen_params),
	KUNIT_CASE_PARAM(control_refuses_malformed_input_with_a_reason, refused_gen_params),
	KUNIT_CASE(control_leaves_the_input_untouched),
	KUNIT_CASE(control_reason_follows_the_last_call),
	KUNIT_CASE(control_devcg_major_parses_the_number),
	{}
};

struct kunit_suite pt_control_suite = {
	.name = "pagetrail_control",
	.test_cases = pt_control_cases,
};
