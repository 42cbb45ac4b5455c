/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail command: the NVIDIA driver release a source was recorded on,
 * and what that release does that a diagnosis depends on.
 */
#ifndef PAGETRAIL_TOOL_RELEASE_H
#define PAGETRAIL_TOOL_RELEASE_H

#include "common.h"

struct pt_release {
	char text[32]; /* "610.43.02"; "" when no source says */
	unsigned int major, minor, patch;
	const char *from; /* where it was read */
};

/* A release from /proc/driver/X/version text or a bare "A.B[.C]". */
int pt_release_parse(const char *text, struct pt_release *r);
/* From a source: its driver_version, nvidia_version or identity. */
void pt_release_of_src(const struct pt_src *s, struct pt_release *r);
/*
 * Whether the release's mmap context holds a usage_count reference on its
 * allocation (595.71.05, 595.44.06, 580.159.03, 535.309.01 and later, and
 * 610.x): 1 yes, 0 no, -1 release unknown.
 */
int pt_release_ctx_ref(const struct pt_release *r);

#endif /* PAGETRAIL_TOOL_RELEASE_H */
