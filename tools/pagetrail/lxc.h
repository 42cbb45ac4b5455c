/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail devices/denials: container device allow-lists and /proc/devices. */
#ifndef PAGETRAIL_TOOL_LXC_H
#define PAGETRAIL_TOOL_LXC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PT_ACC_M 1u /* the kernel's DEVCG_ACC_* bits */
#define PT_ACC_R 2u
#define PT_ACC_W 4u
#define PT_ANY (-1) /* '*' */

/* Where a rule came from, which also says how to write a corrected one. */
enum pt_rule_syntax {
	PT_SYN_LXC_V2, /* lxc.cgroup2.devices.allow/deny = ... */
	PT_SYN_LXC_V1, /* lxc.cgroup.devices.allow/deny = ... */
	PT_SYN_V1_LIST, /* a cgroup v1 devices.list line */
};

struct pt_devrule {
	char type; /* 'c', 'b' or 'a' (all) */
	int major; /* PT_ANY for '*' */
	int minor;
	unsigned int access; /* PT_ACC_* */
	bool allow;
	enum pt_rule_syntax syntax;
	int line;
	char text[256]; /* the line as written, trimmed */
};

struct pt_mount {
	char src[256];
	char dst[256];
	int line;
};

struct pt_policy {
	struct pt_devrule *rules;
	size_t nr_rules;
	struct pt_mount *mounts;
	size_t nr_mounts;
	bool default_allow; /* no allow-list: everything not denied is allowed */
	enum pt_rule_syntax syntax; /* what corrected lines should look like */
	char sep; /* '=' (LXC) or ':' (Proxmox /etc/pve/lxc/ID.conf) */
};

struct pt_parse_error {
	int line;
	int col; /* 1-based */
	char msg[200];
};

/* A live or fixture /proc/devices. */
struct pt_majors {
	struct {
		char type; /* 'c' or 'b' */
		int major;
		char name[64];
	} e[512];
	size_t n;
};

int pt_lxc_parse(FILE *f, struct pt_policy *pol, struct pt_parse_error *err);
int pt_devlist_parse(FILE *f, struct pt_policy *pol,
		     struct pt_parse_error *err);
void pt_policy_free(struct pt_policy *pol);
/* NULL when denied; else the rule that admits it (or a static "default"). */
const struct pt_devrule *pt_policy_allows(const struct pt_policy *pol,
					  char type, int major, int minor,
					  unsigned int access);
void pt_rule_format(enum pt_rule_syntax syn, char sep, char type, int major,
		    int minor, unsigned int access, char *buf, size_t len);
const char *pt_access_str(unsigned int access, char *buf);

int pt_majors_read(const char *path, struct pt_majors *m);
const char *pt_majors_name(const struct pt_majors *m, char type, int major);
int pt_majors_find(const struct pt_majors *m, char type, const char *name);

#endif /* PAGETRAIL_TOOL_LXC_H */
