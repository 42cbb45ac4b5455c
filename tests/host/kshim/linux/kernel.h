/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel helpers module/control.c uses, so
 * the real parser can be fuzzed under ASan/UBSan (tests/host/control_fuzz.sh).
 * Each follows the kernel's documented behaviour, nothing more.
 */
#ifndef PT_KSHIM_KERNEL_H
#define PT_KSHIM_KERNEL_H
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* lib/string_helpers.c: skip leading and cut trailing whitespace. */
static inline char *strim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* lib/kstrtox.c: the whole string (one trailing newline allowed), base 10. */
static inline int kstrtoint(const char *s, unsigned int base, int *res)
{
	char *end;
	long v;

	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s) && *s != '-')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, base);
	if (end == s)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
		return -ERANGE;
	*res = (int)v;
	return 0;
}
#endif
