// SPDX-License-Identifier: GPL-2.0
/* pagetrail command: reading and writing the capture container. */
#include <stdlib.h>
#include <string.h>
#include "capfile.h"

int pt_cap_write_header(FILE *f)
{
	return fputs(PT_CAP_MAGIC, f) < 0 ? -1 : 0;
}

int pt_cap_write_section(FILE *f, const char *name, const void *data,
			 size_t len)
{
	if (fprintf(f, "section %s %zu\n", name, len) < 0)
		return -1;
	if (len && fwrite(data, 1, len, f) != len)
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

int pt_cap_write_end(FILE *f)
{
	return fputs("end\n", f) < 0 ? -1 : 0;
}

static int valid_name(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || n > PT_CAP_MAX_NAME)
		return 0;
	for (i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		      (p[i] >= '0' && p[i] <= '9') || p[i] == '.' ||
		      p[i] == '_' || p[i] == '-'))
			return 0;
	return 1;
}

/* Decimal, no sign, no leading zero, no overflow; *end after the digits. */
static int parse_len(const char *p, const char *lim, size_t *out,
		     const char **end)
{
	size_t v = 0;
	const char *q = p;

	if (q >= lim || *q < '0' || *q > '9' ||
	    (*q == '0' && q + 1 < lim && q[1] >= '0' && q[1] <= '9'))
		return -1;
	for (; q < lim && *q >= '0' && *q <= '9'; q++) {
		if (v > (SIZE_MAX - 9) / 10)
			return -1;
		v = v * 10 + (size_t)(*q - '0');
	}
	*out = v;
	*end = q;
	return 0;
}

static int parse_section(struct pt_src *s, const char **pp, const char *lim,
			 char *err, size_t errlen)
{
	const char *p = *pp, *name, *sp, *nl;
	size_t len, nlen;
	char nbuf[PT_CAP_MAX_NAME + 1];
	char *data;

	nl = memchr(p, '\n', (size_t)(lim - p));
	if (!nl || (size_t)(nl - p) < 8 || memcmp(p, "section ", 8)) {
		snprintf(err, errlen, "bad section header");
		return -1;
	}
	name = p + 8;
	sp = memchr(name, ' ', (size_t)(nl - name));
	if (!sp || !valid_name(name, (size_t)(sp - name))) {
		snprintf(err, errlen, "bad section name");
		return -1;
	}
	nlen = (size_t)(sp - name);
	if (parse_len(sp + 1, nl, &len, &p) || p != nl) {
		snprintf(err, errlen, "bad section length");
		return -1;
	}
	p = nl + 1;
	if (len > (size_t)(lim - p) || (size_t)(lim - p) - len < 1 ||
	    p[len] != '\n') {
		snprintf(err, errlen, "section %.*s truncated", (int)nlen,
			 name);
		return -1;
	}
	memcpy(nbuf, name, nlen);
	nbuf[nlen] = '\0';
	if (pt_src_text(s, nbuf) || s->nblobs >= PT_CAP_MAX_SECTIONS) {
		snprintf(err, errlen,
			 "section %s repeated or too many sections", nbuf);
		return -1;
	}
	data = malloc(len + 1);
	if (!data) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(data, p, len);
	data[len] = '\0';
	if (pt_src_add(s, nbuf, data, len)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*pp = p + len + 1;
	return 0;
}

int pt_cap_parse(struct pt_src *s, const char *buf, size_t len, char *err,
		 size_t errlen)
{
	const char *p = buf, *lim = buf + len;
	size_t ml = strlen(PT_CAP_MAGIC);

	if (len < ml || memcmp(buf, PT_CAP_MAGIC, ml)) {
		if (len >= 18 && !memcmp(buf, "pagetrail-capture ", 18))
			snprintf(
				err, errlen,
				"capture format version not supported (this tool reads 1)");
		else
			snprintf(err, errlen, "not a pagetrail capture file");
		return -1;
	}
	p += ml;
	for (;;) {
		if (lim - p == 4 && !memcmp(p, "end\n", 4))
			return 0;
		if (p >= lim) {
			snprintf(err, errlen, "truncated: no end marker");
			return -1;
		}
		if (parse_section(s, &p, lim, err, errlen))
			return -1;
	}
}
