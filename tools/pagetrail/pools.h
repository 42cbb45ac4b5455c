/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail command: a page_pool's pages in flight at its destroy. */
#ifndef PAGETRAIL_TOOL_POOLS_H
#define PAGETRAIL_TOOL_POOLS_H

#include <stdio.h>
#include <json-c/json.h>
#include "common.h"
#include "records.h"

int pt_pools_in(const struct pt_src *s);
void pt_pools_print(const struct pt_src *s, FILE *out);
struct json_object *pt_pools_json(const struct pt_src *s);

#endif /* PAGETRAIL_TOOL_POOLS_H */
