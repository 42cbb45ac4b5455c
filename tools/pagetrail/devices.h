/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail devices: paths inside a root, confined (devices_root.c). */
#ifndef PAGETRAIL_TOOL_DEVICES_H
#define PAGETRAIL_TOOL_DEVICES_H

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include "lxc.h"

#define PT_OPEN_REFUSED (-EPERM - 10000)

/* An O_PATH descriptor of the root, or -1 with why (exit 2). */
int pt_root_open(const char *root, char *why, size_t len);
int pt_root_stat(int rootfd, const char *rel, bool follow, struct stat *st);
DIR *pt_root_opendir(int rootfd, const char *rel);
/* 0 opened, -errno, or PT_OPEN_REFUSED (not a registered NVIDIA node). */
int pt_root_open_node(int rootfd, const char *rel, const struct pt_majors *m,
		      struct stat *st);

#endif /* PAGETRAIL_TOOL_DEVICES_H */
