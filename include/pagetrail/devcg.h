/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: device-cgroup denial recorder (module/devcg.c). */
#ifndef PAGETRAIL_DEVCG_H
#define PAGETRAIL_DEVCG_H

#include <linux/types.h>

struct seq_file;
struct file_operations;

#define PT_DEVCG_NAME_LEN 64
#define PT_DEVCG_PATH_LEN 160

/* Who denied it: the cgroup v2 BPF device program or the v1 controller. */
enum pt_devcg_source {
	PT_DEVCG_SRC_UNKNOWN = 0, /* BPF runner not probed: v1 or BPF */
	PT_DEVCG_SRC_V1 = 1,
	PT_DEVCG_SRC_BPF = 2,
};

/*
 * One denial as the `denials` file and the devcg_deny tracepoint show it.
 * Ring records (role deny) carry the numbers only, mapped as:
 *   alloc_seq = major, index = minor, ret = errno (negative),
 *   aux = access (DEVCG_ACC_*: 1 mknod, 2 read, 4 write)
 *         | type << 8 (1 block, 2 char) | source << 16,
 *   token = cgroup id, inner_ret = this denial's id in `denials` (0: the
 *   resolver was behind and only the ring has it, counted as ring_only).
 */
struct pt_devcg_denial {
	u64 id;
	u64 ts_ns;
	u64 cgroup_id;
	u32 pid;
	u32 tgid;
	u32 major;
	u32 minor;
	int err;
	u16 type; /* DEVCG_DEV_BLOCK / DEVCG_DEV_CHAR */
	u16 access; /* DEVCG_ACC_* */
	u8 source; /* enum pt_devcg_source */
	char comm[16];
	char name[PT_DEVCG_NAME_LEN]; /* as /proc/devices lists the major */
	char cgroup[PT_DEVCG_PATH_LEN];
	char path[PT_DEVCG_PATH_LEN]; /* the node, when the syscall named one */
	u32 repeats; /* like denials after it, over the rate limit */
};

/* The strings of a denial as the devcg_deny tracepoint prints them. */
struct pt_devcg_escaped {
	char name[4 * PT_DEVCG_NAME_LEN];
	char cgroup[4 * PT_DEVCG_PATH_LEN];
	char path[4 * PT_DEVCG_PATH_LEN];
};

void pt_devcg_init(bool on, int major);
void pt_devcg_exit(void);
int pt_devcg_set_enabled(bool on);
int pt_devcg_set_major(int major);
void pt_devcg_reset(void);
void pt_devcg_show_state(struct seq_file *m);
extern const struct file_operations pt_devcg_denials_fops;

#endif /* PAGETRAIL_DEVCG_H */
