/* SPDX-License-Identifier: GPL-2.0 */
/* The system's uapi types; ringshim.h adds the kernel's short names. */
#include_next <linux/types.h>
