// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail command: the driver release behind a source. A live source
 * reads /proc/driver/TARGET/version (the driver's own line; nvsim writes
 * one too) or /sys/module/TARGET/version; a capture carries both.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "release.h"

/* The first release of each branch whose mmap context holds the reference. */
static const struct {
	unsigned int major, minor, patch;
} ctx_ref_since[] = {
	{ 535, 309, 1 }, { 580, 159, 3 }, { 595, 44, 6 }, { 595, 71, 5 },
};

/* "A.B" or "A.B.C" standing alone (a word of its own) at p. */
static int parse_word(const char *p, struct pt_release *r)
{
	unsigned int ma, mi, pa = 0;
	int len = 0, n;

	n = sscanf(p, "%u.%u%n.%u%n", &ma, &mi, &len, &pa, &len);
	if (n < 2 || len <= 0 || (p[len] && !isspace((unsigned char)p[len])))
		return -1;
	if ((size_t)len >= sizeof(r->text) || ma < 100)
		return -1;
	memcpy(r->text, p, (size_t)len);
	r->text[len] = '\0';
	r->major = ma;
	r->minor = mi;
	r->patch = n == 3 ? pa : 0;
	return 0;
}

int pt_release_parse(const char *text, struct pt_release *r)
{
	const char *p = text;

	memset(r, 0, sizeof(*r));
	if (!text)
		return -1;
	/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  610.43.02  ..." */
	while (*p && *p != '\n') {
		while (*p == ' ' || *p == '\t')
			p++;
		if (isdigit((unsigned char)*p) && (p == text || isspace((unsigned char)p[-1])) &&
		    !parse_word(p, r))
			return 0;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	memset(r, 0, sizeof(*r));
	return -1;
}

void pt_release_of_src(const struct pt_src *s, struct pt_release *r)
{
	static const char *const blobs[] = { "driver_version",
					     "nvidia_version" };
	char key[96], target[64];
	const char *id;
	size_t i, len;
	const char *v;

	for (i = 0; i < sizeof(blobs) / sizeof(blobs[0]); i++)
		if (!pt_release_parse(pt_src_text(s, blobs[i]), r)) {
			r->from = blobs[i];
			return;
		}
	id = pt_src_text(s, "identity");
	if (!pt_kv_str(id, "target", target, sizeof(target))) {
		snprintf(key, sizeof(key), "%s_version", target);
		v = pt_kv(id, key, &len);
		if (v) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%.*s", (int)len, v);
			if (!pt_release_parse(buf, r)) {
				r->from = "identity";
				return;
			}
		}
	}
	memset(r, 0, sizeof(*r));
}

int pt_release_ctx_ref(const struct pt_release *r)
{
	size_t i;

	if (!r->text[0])
		return -1;
	if (r->major > 595)
		return 1;
	for (i = 0; i < sizeof(ctx_ref_since) / sizeof(ctx_ref_since[0]); i++) {
		if (r->major != ctx_ref_since[i].major)
			continue;
		/* 595.44.x is a branch of its own; 595.45-595.70 predate the fix. */
		if (r->major == 595 && ctx_ref_since[i].minor == 44 &&
		    r->minor != 44)
			continue;
		if (r->minor > ctx_ref_since[i].minor ||
		    (r->minor == ctx_ref_since[i].minor &&
		     r->patch >= ctx_ref_since[i].patch))
			return 1;
	}
	return 0;
}
