// SPDX-License-Identifier: GPL-2.0
/* KUnit: events.bin header and records, and their text form (module/record.c). */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "../module/record.c"
#include "suites.h"

/* The format is ABI: tools/ decode it with their own copy of the header. */
static void record_abi_sizes_and_offsets_are_stable(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct pagetrail_file_header), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct pagetrail_record), 128);
	KUNIT_EXPECT_EQ(test, offsetof(struct pagetrail_record, comm), 56);
	KUNIT_EXPECT_EQ(test, offsetof(struct pagetrail_record, generation), 72);
	KUNIT_EXPECT_EQ(test, offsetof(struct pagetrail_record, cpu), 108);
	KUNIT_EXPECT_EQ(test, offsetof(struct pagetrail_record, anomalies), 120);
	KUNIT_EXPECT_EQ(test, offsetof(struct pagetrail_record, prev_alloc_seq), 124);
}

static void record_header_init_describes_this_kernel(struct kunit *test)
{
	struct pagetrail_file_header h;

	memset(&h, 0xa5, sizeof(h));
	pt_file_header_init(&h, 3);
	KUNIT_EXPECT_EQ(test, h.magic, PAGETRAIL_MAGIC);
	KUNIT_EXPECT_EQ(test, h.version, PAGETRAIL_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, h.header_size, sizeof(h));
	KUNIT_EXPECT_EQ(test, h.record_size, sizeof(struct pagetrail_record));
	KUNIT_EXPECT_EQ(test, h.page_shift, PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, h.nr_cpus, 3);
}

static void record_header_round_trips(struct kunit *test)
{
	struct pagetrail_file_header in, out;

	pt_file_header_init(&in, 64);
	memset(&out, 0, sizeof(out));
	KUNIT_ASSERT_EQ(test, pt_file_header_check(&in, sizeof(in), &out), 0);
	KUNIT_EXPECT_MEMEQ(test, &out, &in, sizeof(in));
}

/* A reader may hand in any byte offset of its buffer. */
static void record_header_check_accepts_unaligned_buffer(struct kunit *test)
{
	struct pagetrail_file_header in, out;
	u8 buf[sizeof(in) + 1];

	pt_file_header_init(&in, 2);
	memcpy(buf + 1, &in, sizeof(in));
	KUNIT_EXPECT_EQ(test, pt_file_header_check(buf + 1, sizeof(in), &out), 0);
	KUNIT_EXPECT_EQ(test, out.nr_cpus, 2);
}

enum hdr_field { HF_NONE, HF_MAGIC, HF_VERSION, HF_HEADER_SIZE, HF_RECORD_SIZE };

struct header_case {
	const char *desc;
	enum hdr_field field;
	u32 value;
	int len_delta;	/* bytes handed in, relative to the header size */
	int want;
};

static const struct header_case header_cases[] = {
	{ "valid", HF_NONE, 0, 0, 0 },
	{ "extra bytes after the header", HF_NONE, 0, 100, 0 },
	{ "empty buffer", HF_NONE, 0, -16, -ENODATA },
	{ "one byte short", HF_NONE, 0, -1, -ENODATA },
	{ "bad magic", HF_MAGIC, 0x4c525451, 0, -EINVAL },
	{ "byte-swapped magic", HF_MAGIC, 0x5054524c, 0, -EINVAL },
	{ "zero magic", HF_MAGIC, 0, 0, -EINVAL },
	{ "version 0", HF_VERSION, 0, 0, -EPROTONOSUPPORT },
	{ "version 2", HF_VERSION, 2, 0, -EPROTONOSUPPORT },
	{ "version 0xffff", HF_VERSION, 0xffff, 0, -EPROTONOSUPPORT },
	{ "header_size 0", HF_HEADER_SIZE, 0, 0, -EBADMSG },
	{ "header_size one short", HF_HEADER_SIZE, 15, 0, -EBADMSG },
	{ "header_size beyond the buffer", HF_HEADER_SIZE, 17, 0, -EBADMSG },
	{ "longer header inside the buffer", HF_HEADER_SIZE, 24, 8, 0 },
	{ "record_size 0", HF_RECORD_SIZE, 0, 0, -EBADMSG },
	{ "record_size one short", HF_RECORD_SIZE, 127, 0, -EBADMSG },
	{ "longer records", HF_RECORD_SIZE, 160, 0, 0 },
	{ "largest records", HF_RECORD_SIZE, 0xffff, 0, 0 },
};

static void header_case_desc(const struct header_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(header, header_cases, header_case_desc);

static void record_header_check_verdicts(struct kunit *test)
{
	const struct header_case *c = test->param_value;
	struct pagetrail_file_header out;
	struct {
		struct pagetrail_file_header h;
		u8 tail[128];
	} buf = {};
	size_t len = sizeof(buf.h) + c->len_delta;

	pt_file_header_init(&buf.h, 1);
	switch (c->field) {
	case HF_MAGIC:
		buf.h.magic = c->value;
		break;
	case HF_VERSION:
		buf.h.version = c->value;
		break;
	case HF_HEADER_SIZE:
		buf.h.header_size = c->value;
		break;
	case HF_RECORD_SIZE:
		buf.h.record_size = c->value;
		break;
	case HF_NONE:
		break;
	}
	KUNIT_EXPECT_EQ(test, pt_file_header_check(&buf, len, &out), c->want);
}

/* A foreign file says "not ours" before anything about versions. */
static void record_header_bad_magic_wins_over_bad_version(struct kunit *test)
{
	struct pagetrail_file_header h, out;

	pt_file_header_init(&h, 1);
	h.magic = ~PAGETRAIL_MAGIC;
	h.version = 7;
	h.record_size = 0;
	KUNIT_EXPECT_EQ(test, pt_file_header_check(&h, sizeof(h), &out), -EINVAL);
}

static void record_fill(struct pagetrail_record *r)
{
	memset(r, 0, sizeof(*r));
	r->seq = 0x1122334455667788ull;
	r->ts_ns = 123456789012ull;
	r->pfn = 0x12345;
	r->head_pfn = 0x12340;
	r->token = 0xfedcba9876543210ull;
	r->prev_token = 0x0123456789abcdefull;
	r->pid = 4242;
	r->tgid = 4240;
	memcpy(r->comm, "cuinit", 6);
	r->generation = 7;
	r->alloc_seq = 99;
	r->index = 512;
	r->refcount = -3;
	r->mapcount = 2;
	r->ret = -22;
	r->inner_ret = -16;
	r->page_flags = PT_PF_HEAD | PT_PF_COMPOUND;
	r->aux = 0x10009;
	r->cpu = 1;
	r->role = PT_ROLE_ADMIT;
	r->cause = PT_CAUSE_REJECT;
	r->from_state = PT_ST_MAPPED;
	r->to_state = PT_ST_POOLED_DIRTY;
	r->anomaly = PT_AN_DOUBLE_ADMIT;
	r->order = 9;
	r->compound_order = 9;
	r->rflags = PT_RF_GAP | PT_RF_SAMPLED;
	r->anomalies = BIT(PT_AN_DOUBLE_ADMIT) | BIT(PT_AN_ADMIT_EXTRA_REF);
}

static void record_decode_round_trips(struct kunit *test)
{
	struct pagetrail_file_header h;
	struct pagetrail_record in, out;

	pt_file_header_init(&h, 1);
	record_fill(&in);
	memset(&out, 0, sizeof(out));
	KUNIT_ASSERT_EQ(test, pt_record_decode(&in, sizeof(in), &h, &out), 0);
	KUNIT_EXPECT_MEMEQ(test, &out, &in, sizeof(in));
}

static void record_decode_truncated_is_enodata(struct kunit *test)
{
	struct pagetrail_file_header h;
	struct pagetrail_record in, out;

	pt_file_header_init(&h, 1);
	record_fill(&in);
	KUNIT_EXPECT_EQ(test, pt_record_decode(&in, 0, &h, &out), -ENODATA);
	KUNIT_EXPECT_EQ(test, pt_record_decode(&in, sizeof(in) - 1, &h, &out), -ENODATA);
}

/* Records grow by appending: the known prefix survives, the rest is skipped. */
static void record_decode_longer_record_keeps_known_prefix(struct kunit *test)
{
	struct pagetrail_file_header h;
	struct pagetrail_record in, out;
	struct {
		struct pagetrail_record rec;
		u8 newer[40];
	} buf;

	pt_file_header_init(&h, 1);
	h.record_size = sizeof(buf);
	record_fill(&in);
	buf.rec = in;
	memset(buf.newer, 0xff, sizeof(buf.newer));
	KUNIT_ASSERT_EQ(test, pt_record_decode(&buf, sizeof(buf), &h, &out), 0);
	KUNIT_EXPECT_MEMEQ(test, &out, &in, sizeof(in));
	/* The whole (longer) record must be there, not only what we know. */
	KUNIT_EXPECT_EQ(test, pt_record_decode(&buf, sizeof(buf) - 1, &h, &out), -ENODATA);
}

enum rec_field { RF_ROLE, RF_FROM, RF_TO, RF_ANOMALY, RF_CAUSE };

struct enum_case {
	const char *desc;
	enum rec_field field;
	u8 value;
	int want;
};

static const struct enum_case enum_cases[] = {
	{ "role last", RF_ROLE, PT_ROLE_MAX - 1, 0 },
	{ "role past the end", RF_ROLE, PT_ROLE_MAX, -EBADMSG },
	{ "role 255", RF_ROLE, 255, -EBADMSG },
	{ "from_state last", RF_FROM, PT_ST_MAX - 1, 0 },
	{ "from_state past the end", RF_FROM, PT_ST_MAX, -EBADMSG },
	{ "to_state last", RF_TO, PT_ST_MAX - 1, 0 },
	{ "to_state past the end", RF_TO, PT_ST_MAX, -EBADMSG },
	{ "anomaly last", RF_ANOMALY, PT_AN_MAX - 1, 0 },
	{ "anomaly past the end", RF_ANOMALY, PT_AN_MAX, -EBADMSG },
	{ "cause last", RF_CAUSE, PT_CAUSE_MAX - 1, 0 },
	{ "cause past the end", RF_CAUSE, PT_CAUSE_MAX, -EBADMSG },
};

static void enum_case_desc(const struct enum_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(enum, enum_cases, enum_case_desc);

static void record_decode_checks_enum_ranges(struct kunit *test)
{
	const struct enum_case *c = test->param_value;
	struct pagetrail_file_header h;
	struct pagetrail_record in, out;

	pt_file_header_init(&h, 1);
	record_fill(&in);
	switch (c->field) {
	case RF_ROLE:
		in.role = c->value;
		break;
	case RF_FROM:
		in.from_state = c->value;
		break;
	case RF_TO:
		in.to_state = c->value;
		break;
	case RF_ANOMALY:
		in.anomaly = c->value;
		break;
	case RF_CAUSE:
		in.cause = c->value;
		break;
	}
	KUNIT_EXPECT_EQ(test, pt_record_decode(&in, sizeof(in), &h, &out), c->want);
}

#define FMT_BUF_LEN 768

/* The value of @key in a formatted line, or NULL; copied into @val. */
static const char *line_value(const char *line, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, "\n ");

			if (n >= len)
				return NULL;
			memcpy(val, p + klen + 1, n);
			val[n] = '\0';
			return val;
		}
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return NULL;
}

static void expect_value(struct kunit *test, const char *line, const char *key, const char *want)
{
	char val[64];
	const char *got = line_value(line, key, val, sizeof(val));

	KUNIT_EXPECT_STREQ_MSG(test, got ?: "(missing)", want, "key %s", key);
}

static void expect_number(struct kunit *test, const char *line, const char *key,
			  unsigned int base, u64 want)
{
	char val[64] = "(missing)";
	u64 got = 0;
	int err = -ENOENT;

	if (line_value(line, key, val, sizeof(val)))
		err = kstrtoull(val, base, &got);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "key %s: '%s'", key, val);
	KUNIT_EXPECT_EQ_MSG(test, got, want, "key %s", key);
}

static void expect_signed(struct kunit *test, const char *line, const char *key, s64 want)
{
	char val[64] = "(missing)";
	s64 got = 0;
	int err = -ENOENT;

	if (line_value(line, key, val, sizeof(val)))
		err = kstrtoll(val, 10, &got);
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "key %s: '%s'", key, val);
	KUNIT_EXPECT_EQ_MSG(test, got, want, "key %s", key);
}

static char *format_line(struct kunit *test, const struct pagetrail_record *r)
{
	char *line = kunit_kzalloc(test, FMT_BUF_LEN, GFP_KERNEL);
	int n;

	KUNIT_ASSERT_NOT_NULL(test, line);
	n = pt_record_format(r, line, FMT_BUF_LEN);
	KUNIT_EXPECT_EQ(test, n, (int)strlen(line));
	KUNIT_EXPECT_LT(test, n, FMT_BUF_LEN - 1);
	return line;
}

/* Exactly one line, and every space-separated token is key=value. */
static void expect_one_line_of_pairs(struct kunit *test, const char *line)
{
	const char *p, *end = line + strlen(line);
	unsigned int tokens = 0, bad = 0;

	KUNIT_ASSERT_GT(test, end - line, 0);
	KUNIT_EXPECT_EQ(test, end[-1], '\n');
	KUNIT_EXPECT_PTR_EQ(test, strchr(line, '\n'), end - 1);
	KUNIT_EXPECT_NULL(test, strchr(line, '\t'));
	for (p = line; p < end - 1; p += strcspn(p, "\n ") + 1) {
		size_t n = strcspn(p, "\n ");
		const char *eq = memchr(p, '=', n);

		tokens++;
		if (!eq || eq == p || memchr(eq + 1, '=', n - (eq + 1 - p)))
			bad++;
	}
	KUNIT_EXPECT_EQ(test, tokens, 30u);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0u, "%s", line);
}

static void record_format_is_one_line_of_key_value_pairs(struct kunit *test)
{
	struct pagetrail_record r;

	record_fill(&r);
	expect_one_line_of_pairs(test, format_line(test, &r));
}

static void record_format_numbers_parse_back(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	line = format_line(test, &r);
	expect_number(test, line, "seq", 10, r.seq);
	expect_number(test, line, "ts", 10, r.ts_ns);
	expect_number(test, line, "cpu", 10, r.cpu);
	expect_number(test, line, "pid", 10, r.pid);
	expect_number(test, line, "tgid", 10, r.tgid);
	expect_number(test, line, "pfn", 0, r.pfn);
	expect_number(test, line, "order", 10, r.order);
	expect_number(test, line, "gen", 10, r.generation);
}

static void record_format_owner_fields_parse_back(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	line = format_line(test, &r);
	expect_number(test, line, "token", 16, r.token);
	expect_number(test, line, "prev_token", 16, r.prev_token);
	expect_number(test, line, "alloc", 10, r.alloc_seq);
	expect_number(test, line, "idx", 10, r.index);
	expect_number(test, line, "aux", 0, r.aux);
}

static void record_format_page_facts_parse_back(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	line = format_line(test, &r);
	expect_signed(test, line, "ref", r.refcount);
	expect_signed(test, line, "map", r.mapcount);
	expect_number(test, line, "head", 0, r.head_pfn);
	expect_number(test, line, "corder", 10, r.compound_order);
	expect_number(test, line, "pflags", 0, r.page_flags);
	expect_signed(test, line, "ret", r.ret);
	expect_signed(test, line, "inner_ret", r.inner_ret);
}

static void record_format_names_roles_states_and_anomalies(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	line = format_line(test, &r);
	expect_value(test, line, "comm", "cuinit");
	expect_value(test, line, "role", "admit");
	expect_value(test, line, "cause", "reject");
	expect_value(test, line, "from", "mapped");
	expect_value(test, line, "to", "pooled_dirty");
	expect_value(test, line, "anomaly", "DOUBLE_ADMIT");
	expect_number(test, line, "gap", 10, 1);
	expect_number(test, line, "anomalies", 0, r.anomalies);
}

static void record_format_gap_is_zero_without_the_flag(struct kunit *test)
{
	struct pagetrail_record r;

	record_fill(&r);
	r.rflags = PT_RF_SAMPLED;
	expect_number(test, format_line(test, &r), "gap", 10, 0);
}

/* The context bits print as names; the gap bit beside them stays its own. */
static void record_format_context_names_each_context(struct kunit *test)
{
	static const char *const names[] = { "task", "bh", "softirq", "irq" };
	struct pagetrail_record r;
	unsigned int c;

	for (c = PT_RUN_TASK; c <= PT_RUN_IRQ; c++) {
		record_fill(&r);
		r.rflags = PT_RF_SAMPLED | PT_RF_GAP | c << PT_RF_RUN_SHIFT;
		expect_value(test, format_line(test, &r), "ctx", names[c]);
		expect_number(test, format_line(test, &r), "gap", 10, 1);
	}
}

static void record_format_unknown_enums_print_unknown(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	r.role = 200;
	r.cause = PT_CAUSE_MAX;
	r.from_state = PT_ST_MAX;
	r.to_state = 255;
	r.anomaly = PT_AN_MAX;
	line = format_line(test, &r);
	expect_value(test, line, "role", "unknown");
	expect_value(test, line, "cause", "unknown");
	expect_value(test, line, "from", "unknown");
	expect_value(test, line, "to", "unknown");
	expect_value(test, line, "anomaly", "unknown");
}

static void record_format_comm_spaces_and_equals_become_underscores(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	memset(r.comm, 0, sizeof(r.comm));
	memcpy(r.comm, "my app=x y", 10);
	line = format_line(test, &r);
	expect_value(test, line, "comm", "my_app_x_y");
	expect_one_line_of_pairs(test, line);
}

/* comm is set by the task itself (prctl PR_SET_NAME): any byte but NUL. */
static void record_format_comm_control_characters_keep_one_line(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	memset(r.comm, 0, sizeof(r.comm));
	memcpy(r.comm, "a\tb\nseq=1 x", 11);
	line = format_line(test, &r);
	expect_one_line_of_pairs(test, line);
	expect_number(test, line, "seq", 10, r.seq);
}

/* All 16 bytes used, no NUL: printed whole, nothing read beyond. */
static void record_format_full_comm_without_nul(struct kunit *test)
{
	struct pagetrail_record r;

	record_fill(&r);
	memcpy(r.comm, "abcdefghijklmnop", sizeof(r.comm));
	expect_value(test, format_line(test, &r), "comm", "abcdefghijklmnop");
}

/*
 * pages and anomalies print the comm stored at stamp time (F12): the
 * sanitiser leaves one token, stops at the first NUL and clears the rest.
 */
static void comm_sanitize_forged_line_becomes_one_token(struct kunit *test)
{
	char comm[16] = "x\nanomaly=9 k";
	char tail[16] = "ok";

	comm[15] = 'z';
	pt_comm_sanitize(comm, sizeof(comm));
	KUNIT_EXPECT_STREQ(test, comm, "x_anomaly_9_k");
	tail[3] = 'q'; /* bytes after the NUL are not a name */
	pt_comm_sanitize(tail, sizeof(tail));
	KUNIT_EXPECT_STREQ(test, tail, "ok");
	KUNIT_EXPECT_EQ(test, tail[3], 0);
}

static void record_format_empty_comm_keeps_the_key(struct kunit *test)
{
	struct pagetrail_record r;
	const char *line;

	record_fill(&r);
	memset(r.comm, 0, sizeof(r.comm));
	line = format_line(test, &r);
	KUNIT_EXPECT_NOT_NULL(test, strstr(line, " comm= role=admit "));
}

static const size_t format_sizes[] = { 0, 1, 2, 16, 64, 200 };

static void format_size_desc(const size_t *size, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "buffer of %zu bytes", *size);
}

KUNIT_ARRAY_PARAM(format_size, format_sizes, format_size_desc);

/* A short buffer gets a terminated prefix of the line, and nothing beyond. */
static void record_format_truncates_safely(struct kunit *test)
{
	const size_t size = *(const size_t *)test->param_value;
	const size_t guard = 16;
	struct pagetrail_record r;
	const char *full;
	char *buf;
	size_t i;
	int n;

	record_fill(&r);
	full = format_line(test, &r);
	buf = kunit_kmalloc(test, size + guard, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0x5a, size + guard);
	n = pt_record_format(&r, buf, size);
	KUNIT_EXPECT_EQ(test, n, size ? (int)size - 1 : 0);
	if (size) {
		KUNIT_EXPECT_EQ(test, buf[n], '\0');
		KUNIT_EXPECT_EQ(test, strncmp(buf, full, n), 0);
	}
	for (i = size; i < size + guard; i++)
		if (buf[i] != 0x5a)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, size + guard, "wrote past the buffer at %zu", i);
}

static struct kunit_case pt_record_cases[] = {
	KUNIT_CASE(record_abi_sizes_and_offsets_are_stable),
	KUNIT_CASE(record_header_init_describes_this_kernel),
	KUNIT_CASE(record_header_round_trips),
	KUNIT_CASE(record_header_check_accepts_unaligned_buffer),
	KUNIT_CASE_PARAM(record_header_check_verdicts, header_gen_params),
	KUNIT_CASE(record_header_bad_magic_wins_over_bad_version),
	KUNIT_CASE(record_decode_round_trips),
	KUNIT_CASE(record_decode_truncated_is_enodata),
	KUNIT_CASE(record_decode_longer_record_keeps_known_prefix),
	KUNIT_CASE_PARAM(record_decode_checks_enum_ranges, enum_gen_params),
	KUNIT_CASE(record_format_is_one_line_of_key_value_pairs),
	KUNIT_CASE(record_format_numbers_parse_back),
	KUNIT_CASE(record_format_owner_fields_parse_back),
	KUNIT_CASE(record_format_page_facts_parse_back),
	KUNIT_CASE(record_format_names_roles_states_and_anomalies),
	KUNIT_CASE(record_format_gap_is_zero_without_the_flag),
	KUNIT_CASE(record_format_context_names_each_context),
	KUNIT_CASE(record_format_unknown_enums_print_unknown),
	KUNIT_CASE(record_format_comm_spaces_and_equals_become_underscores),
	KUNIT_CASE(record_format_comm_control_characters_keep_one_line),
	KUNIT_CASE(record_format_full_comm_without_nul),
	KUNIT_CASE(comm_sanitize_forged_line_becomes_one_token),
	KUNIT_CASE(record_format_empty_comm_keeps_the_key),
	KUNIT_CASE_PARAM(record_format_truncates_safely, format_size_gen_params),
	{}
};

struct kunit_suite pt_record_suite = {
	.name = "pagetrail_record",
	.test_cases = pt_record_cases,
};
