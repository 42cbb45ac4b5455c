// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail: allocation tokens. Records never carry kernel pointers: an
 * allocation is named by a keyed hash of its address, stable while the
 * module is loaded, so a reused address (kmalloc hands the same nv_alloc_t
 * slot out again) keeps its token and generations tell the reuses apart.
 */
#include <linux/siphash.h>
#include <linux/random.h>
#include <pagetrail/token.h>

static siphash_key_t pt_token_key;

void pt_token_init(void)
{
	get_random_bytes(&pt_token_key, sizeof(pt_token_key));
}

u64 pt_token(unsigned long ptr)
{
	return ptr ? siphash_1u64(ptr, &pt_token_key) : 0;
}
