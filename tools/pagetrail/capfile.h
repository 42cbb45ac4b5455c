/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: the capture file, a versioned list of named sections. */
#ifndef PAGETRAIL_TOOL_CAPFILE_H
#define PAGETRAIL_TOOL_CAPFILE_H

#include <stdio.h>
#include "common.h"

/*
 * Format (version 1), text framing around raw bytes:
 *
 *   pagetrail-capture 1\n
 *   section NAME LEN\n  LEN bytes  \n      (repeated, names unique)
 *   end\n                                     (then end of file)
 *
 * NAME is 1..63 of [a-z0-9._-]; LEN is decimal without sign or leading
 * zeros. Anything else, anywhere, is refused.
 */
#define PT_CAP_MAGIC "pagetrail-capture 1\n"
#define PT_CAP_MAX_SECTIONS 64
#define PT_CAP_MAX_NAME 63

int pt_cap_write_header(FILE *f);
int pt_cap_write_section(FILE *f, const char *name, const void *data,
			 size_t len);
int pt_cap_write_end(FILE *f);

/* Parse a whole capture image into s's blobs; 0, or -1 with a reason in err. */
int pt_cap_parse(struct pt_src *s, const char *buf, size_t len, char *err,
		 size_t errlen);

#endif /* PAGETRAIL_TOOL_CAPFILE_H */
