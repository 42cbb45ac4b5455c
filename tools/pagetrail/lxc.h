/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail devices/denials: container device policy as LXC and Proxmox build it. */
#ifndef PAGETRAIL_TOOL_LXC_H
#define PAGETRAIL_TOOL_LXC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PT_ACC_M 1u /* the kernel's DEVCG_ACC_* bits */
#define PT_ACC_R 2u
#define PT_ACC_W 4u
#define PT_ACC_ALL (PT_ACC_M | PT_ACC_R | PT_ACC_W)
#define PT_ANY (-1) /* '*' */

/* How a corrected rule is written (also used by pagetrail denials). */
enum pt_rule_syntax {
	PT_SYN_LXC_V2, /* lxc.cgroup2.devices.allow/deny = ... */
	PT_SYN_LXC_V1, /* lxc.cgroup.devices.allow/deny = ... */
	PT_SYN_V1_LIST, /* a cgroup v1 devices.list line */
};

enum pt_flavor {
	PT_FLAVOR_LXC, /* LXC's key = value config */
	PT_FLAVOR_PVE, /* Proxmox /etc/pve/lxc/ID.conf (key: value) */
	PT_FLAVOR_DEVLIST, /* a cgroup v1 devices.list */
};

/* What happened to a rule when LXC built the device list from it. */
enum pt_fate {
	PT_FATE_ACTIVE, /* in the program */
	PT_FATE_LISTTYPE, /* bare 'a': set the list type, cleared before */
	PT_FATE_CLEARED, /* an empty key later removed it from the config */
	PT_FATE_RESET, /* a later bare 'a' emptied the list */
	PT_FATE_DROPPED, /* a deny in allow-list mode (or allow in deny-list) */
	PT_FATE_FLIP, /* it flipped an equal earlier rule (fate_line) */
	PT_FATE_FLIPPED, /* a later equal rule flipped it (fate_line) */
	PT_FATE_SAME, /* equal to an earlier rule: nothing changed */
	PT_FATE_UNRESOLVED, /* devpath or devN path not there: start fails */
	PT_FATE_IGNORED, /* not applied on this host's cgroup hierarchy */
};

struct pt_devrule {
	char type; /* 'a', 'b', 'c' */
	int major; /* PT_ANY for '*' */
	int minor;
	char access[4]; /* as LXC keeps it: the first three letters */
	bool allow;
	bool bare; /* the value was exactly "a": sets the list type */
	bool v1; /* lxc.cgroup.devices.* (or a devices.list line) */
	char *devpath; /* "/dev/x MODE" form: stat()ed at start */
	int devn; /* >= 0: made by Proxmox from devN */
	bool base; /* from LXC's shipped common.conf/userns.conf */
	const char *file; /* the file it came from (owned by the config) */
	int line;
	char *text; /* key and value as written */
	int err_col; /* > 0: LXC cannot parse it (err_msg) */
	char *err_msg;
	int cleared_by; /* line of the empty key that removed it, or 0 */
	enum pt_fate fate;
	int fate_line;
};

struct pt_mount {
	char *src;
	char *dst;
	char *opts;
	const char *file;
	int line;
	char *text;
};

/* A Proxmox devN entry: path[,gid=N][,mode=0NNN][,uid=N][,deny-write=1] */
struct pt_pvedev {
	int n;
	char *path;
	bool deny_write;
	int line;
	char *text;
};

/* Something about the config a person should know (not a device verdict). */
struct pt_note {
	const char *file;
	int line;
	char *kind; /* "ignored", "include", "snapshot", ... */
	char *text;
};

struct pt_ctconf {
	enum pt_flavor flavor;
	bool legacy; /* the host's devices controller is cgroup v1 */
	bool builtin; /* use built-in copies of LXC's shipped configs */
	struct pt_devrule *rules; /* cgroup2 device rules, in LXC's order */
	size_t nr_rules;
	struct pt_devrule *v1rules; /* lxc.cgroup.devices.*, in order */
	size_t nr_v1;
	struct pt_mount *mounts;
	size_t nr_mounts;
	struct pt_pvedev *devs;
	size_t nr_devs;
	struct pt_note *notes;
	size_t nr_notes;
	char **files;
	size_t nr_files;
	const char *path; /* the top file */
	bool unprivileged;
	bool console_off;
	bool has_base; /* LXC's common.conf device rules are in */
	int includes_depth;
};

struct pt_parse_error {
	const char *file;
	int line;
	int col; /* 1-based */
	char msg[200];
};

/* A live or fixture /proc/devices. */
struct pt_majent {
	char type; /* 'c' or 'b' */
	int major;
	char *name;
};

struct pt_majors {
	struct pt_majent *e;
	size_t n;
};

/* A device number or why there is none. */
struct pt_devnum {
	char type; /* 'c', 'b'; 0 when unresolved */
	int major;
	int minor;
	int err; /* errno of the stat, or ENODEV: not a device */
	bool guessed; /* from the name and /proc/devices, not a stat */
};

/* Maps a host path to its device (stat, or a name in a fixture). */
typedef void (*pt_resolve_fn)(void *ctx, const char *path,
			      struct pt_devnum *out);

/* The device list LXC builds (cgroup2) or the kernel keeps (cgroup v1). */
struct pt_bpf_item {
	struct pt_devrule *rule;
	char type;
	int major;
	int minor;
	char access[4];
	bool allow;
};

struct pt_policy {
	bool v1; /* kernel v1 exception semantics instead of LXC's BPF list */
	bool deny_default; /* allow-list (LXC) / behavior deny (v1) */
	struct pt_bpf_item *items; /* LXC: newest first is program order */
	size_t n;
};

/* The decision for one device. */
struct pt_verdict {
	bool allowed;
	bool no_program; /* LXC attaches no device program at all */
	const struct pt_devrule *by; /* the rule that decided, or NULL */
};

int pt_ctconf_load(const char *path, bool devlist, bool builtin,
		   struct pt_ctconf *c, struct pt_parse_error *err);
void pt_ctconf_free(struct pt_ctconf *c);
/* 0, or -1 with err naming the first rule LXC would refuse. */
int pt_ctconf_check_rules(const struct pt_ctconf *c,
			  struct pt_parse_error *err);

int pt_policy_build(struct pt_ctconf *c, pt_resolve_fn res, void *ctx,
		    struct pt_policy *p);
void pt_policy_free(struct pt_policy *p);
void pt_policy_check(const struct pt_policy *p, char type, int major, int minor,
		     unsigned int access, struct pt_verdict *v);
unsigned int pt_lxc_access_bits(const char *acc);

void pt_rule_format(enum pt_rule_syntax syn, char sep, char type, int major,
		    int minor, unsigned int access, char *buf, size_t len);
const char *pt_access_str(unsigned int access, char *buf);

int pt_majors_read(const char *path, struct pt_majors *m,
		   struct pt_parse_error *err);
void pt_majors_free(struct pt_majors *m);
const char *pt_majors_name(const struct pt_majors *m, char type, int major);
int pt_majors_find(const struct pt_majors *m, char type, const char *name);

/* Whole-file reader shared by the parsers: rejects directories and NULs. */
int pt_text_read(const char *path, char **data, size_t *len,
		 struct pt_parse_error *err);

#endif /* PAGETRAIL_TOOL_LXC_H */
