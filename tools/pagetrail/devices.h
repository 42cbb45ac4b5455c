/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail devices: paths inside a root (devices_root.c), a cgroup's device programs (devices_bpf.c). */
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

/* A device program in effect for a cgroup v2 directory (devices_bpf.c). */
struct bpf_insn;
struct pt_cgprog {
	unsigned int id;
	char name[16];
	unsigned char tag[8];
	struct bpf_insn *insns; /* as the kernel runs it (xlated) */
	size_t n;
};

struct pt_cgbpf {
	struct pt_cgprog *p;
	size_t n;
};

/* 0; -1 the programs cannot be read (why); -2 not a cgroup v2 directory. */
int pt_cgbpf_load(const char *dir, struct pt_cgbpf *b, char *why, size_t len);
void pt_cgbpf_free(struct pt_cgbpf *b);
/* 1 every program allows, 0 one denies (by), -1 cannot be decided (why). */
int pt_cgbpf_decide(const struct pt_cgbpf *b, char type, int major, int minor,
		    unsigned int access, const struct pt_cgprog **by, char *why,
		    size_t len);

#endif /* PAGETRAIL_TOOL_DEVICES_H */
