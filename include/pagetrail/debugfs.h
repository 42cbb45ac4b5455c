/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: the debugfs tree. */
#ifndef PAGETRAIL_DEBUGFS_H
#define PAGETRAIL_DEBUGFS_H

struct pt_profile;

int pt_debugfs_init(const struct pt_profile *profile);
void pt_debugfs_exit(void);

#endif /* PAGETRAIL_DEBUGFS_H */
