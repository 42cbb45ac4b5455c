// SPDX-License-Identifier: GPL-2.0
/*
 * devcg_bpf: the cgroup v2 device policy LXC generates, without LXC or
 * libbpf, for pagetrail's device-denial scenarios.
 *
 *   devcg_bpf attach CGROUP_DIR 'c 195:* rwm' 'c 1:3 rw' ...
 *       load a BPF_PROG_TYPE_CGROUP_DEVICE allow-list (everything else is
 *       denied, as with lxc.cgroup2.devices.deny = a) and attach it to the
 *       cgroup (BPF_F_ALLOW_MULTI, as LXC does); it stays after exit
 *   devcg_bpf open [-o FILE] [--hold] PATH...
 *       open each PATH read-write; print "open PATH pid=N ok" or
 *       "open PATH pid=N err=EPERM" per path (to FILE if given, written
 *       whole when done); --hold then waits to be killed, so a container
 *       whose init this is stays up to be looked at; exit 1 if any failed
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_INSNS 4096

static struct bpf_insn prog[MAX_INSNS];
static int nr;

static void emit(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	if (nr == MAX_INSNS) {
		fprintf(stderr, "devcg_bpf: program too long\n");
		exit(2);
	}
	prog[nr++] = (struct bpf_insn){ .code = code, .dst_reg = dst,
					.src_reg = src, .off = off, .imm = imm };
}

/* One rule: c|b|a MAJOR|*:MINOR|* [rwm]; the verdict is allow. */
static void emit_rule(const char *rule)
{
	char type, maj[16], min[16], acc[8] = "rwm";
	int access = 0, jumps[4], nj = 0, i;

	if (sscanf(rule, " %c %15[^:]:%15s %7s", &type, maj, min, acc) < 3 ||
	    !strchr("abc", type)) {
		fprintf(stderr, "devcg_bpf: bad rule '%s'\n", rule);
		exit(2);
	}
	for (i = 0; acc[i]; i++)
		access |= acc[i] == 'm' ? 1 : acc[i] == 'r' ? 2 : acc[i] == 'w' ? 4 : 0;
	/* r2 = type, r3 = access, r4 = major, r5 = minor (set up in main) */
	if (type != 'a') {
		jumps[nj++] = nr;
		emit(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 0, type == 'b' ? 1 : 2);
	}
	/* requested access must be a subset of the rule's */
	emit(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0);
	emit(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_1, 0, 0, access);
	jumps[nj++] = nr;
	emit(BPF_JMP | BPF_JNE | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0);
	if (strcmp(maj, "*")) {
		jumps[nj++] = nr;
		emit(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 0, atoi(maj));
	}
	if (strcmp(min, "*")) {
		jumps[nj++] = nr;
		emit(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_5, 0, 0, atoi(min));
	}
	emit(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	emit(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	for (i = 0; i < nj; i++)
		prog[jumps[i]].off = nr - jumps[i] - 1;
}

static int cmd_attach(const char *cgdir, int nrules, char **rules)
{
	static char log[65536];
	union bpf_attr attr;
	int cg, fd, i;

	/* struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; } */
	emit(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, 0, 0);
	emit(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
	emit(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 0, 0);
	emit(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16);
	emit(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1, 4, 0);
	emit(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_5, BPF_REG_1, 8, 0);
	for (i = 0; i < nrules; i++)
		emit_rule(rules[i]);
	emit(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	emit(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = (__u64)(unsigned long)prog;
	attr.insn_cnt = nr;
	attr.license = (__u64)(unsigned long)"GPL";
	attr.log_buf = (__u64)(unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (fd < 0) {
		fprintf(stderr, "devcg_bpf: BPF_PROG_LOAD: %s\n%s\n",
			strerror(errno), log);
		return 1;
	}
	cg = open(cgdir, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		fprintf(stderr, "devcg_bpf: %s: %s\n", cgdir, strerror(errno));
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.target_fd = cg;
	attr.attach_bpf_fd = fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = BPF_F_ALLOW_MULTI;
	if (syscall(__NR_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr))) {
		fprintf(stderr, "devcg_bpf: BPF_PROG_ATTACH %s: %s\n", cgdir,
			strerror(errno));
		return 1;
	}
	printf("attached %d insns, %d rules to %s\n", nr, nrules, cgdir);
	return 0;
}

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENXIO: return "ENXIO";
	case ENODEV: return "ENODEV";
	default: return "other";
	}
}

static int cmd_open(int n, char **paths)
{
	const char *out = NULL;
	int i, fd, bad = 0, hold = 0;
	char tmp[4096];

	while (n > 0 && paths[0][0] == '-') {
		if (!strcmp(paths[0], "--hold")) {
			hold = 1;
		} else if (!strcmp(paths[0], "-o") && n > 1) {
			out = paths[1];
			paths++;
			n--;
		} else {
			fprintf(stderr, "devcg_bpf: unknown option %s\n", paths[0]);
			return 2;
		}
		paths++;
		n--;
	}
	if (out) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", out);
		if (!freopen(tmp, "w", stdout))
			return 2;
	}
	for (i = 0; i < n; i++) {
		fd = open(paths[i], O_RDWR);
		if (fd < 0) {
			printf("open %s pid=%d err=%s\n", paths[i], (int)getpid(),
			       errname(errno));
			bad = 1;
			continue;
		}
		printf("open %s pid=%d ok\n", paths[i], (int)getpid());
		close(fd);
	}
	fflush(stdout);
	if (out && rename(tmp, out))
		return 2;
	while (hold)
		pause();
	return bad;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "attach"))
		return cmd_attach(argv[2], argc - 3, argv + 3);
	if (argc >= 3 && !strcmp(argv[1], "open"))
		return cmd_open(argc - 2, argv + 2);
	fprintf(stderr, "usage: devcg_bpf attach CGROUP_DIR RULE... | open PATH...\n");
	return 2;
}
