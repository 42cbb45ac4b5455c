/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: which kernel addresses a probe handler may read. */
#ifndef PAGETRAIL_MEMSAFE_H
#define PAGETRAIL_MEMSAFE_H

#include <linux/types.h>

bool pt_ram_readable(unsigned long addr, size_t len);

#endif /* PAGETRAIL_MEMSAFE_H */
