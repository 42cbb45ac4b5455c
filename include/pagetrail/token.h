/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: opaque, stable-per-load tokens for driver object pointers. */
#ifndef PAGETRAIL_TOKEN_H
#define PAGETRAIL_TOKEN_H

#include <linux/types.h>

void pt_token_init(void);
u64 pt_token(unsigned long ptr);

#endif /* PAGETRAIL_TOKEN_H */
