/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: see kernel.h beside it. */
#include <linux/kernel.h>
