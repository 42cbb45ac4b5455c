// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail devices --attached: the cgroup v2 device programs the kernel
 * runs for a cgroup (a running container's), read back through bpf(2) the
 * way `bpftool cgroup show` lists them, and run here on one device. LXC's
 * and systemd's programs only load the context, mask, shift, compare and
 * return; a program that does anything else cannot be decided from outside.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "devices.h"

#define PT_BPF_MAX_PROGS 64
#define PT_BPF_MAX_INSNS 1000000u /* BPF_COMPLEXITY_LIMIT_INSNS */
#define PT_BPF_MAX_STEPS 1000000u
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static long pt_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static int pt_prog_info(int fd, struct bpf_prog_info *info)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (__u32)fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (uintptr_t)info;
	return pt_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) ? -errno : 0;
}

/* One program by id: its name, tag and the instructions the kernel runs. */
static int pt_prog_read(__u32 id, struct pt_cgprog *p, char *why, size_t len)
{
	struct bpf_prog_info info;
	union bpf_attr a;
	int fd, rc;

	memset(&a, 0, sizeof(a));
	a.prog_id = id;
	fd = (int)pt_bpf(BPF_PROG_GET_FD_BY_ID, &a);
	if (fd < 0) {
		snprintf(why, len, "program id %u: %s", id, strerror(errno));
		return -1;
	}
	memset(&info, 0, sizeof(info));
	rc = pt_prog_info(fd, &info);
	if (!rc &&
	    (!info.xlated_prog_len ||
	     info.xlated_prog_len / sizeof(struct bpf_insn) > PT_BPF_MAX_INSNS))
		rc = -EPERM;
	if (!rc) {
		p->n = info.xlated_prog_len / sizeof(struct bpf_insn);
		p->insns = calloc(p->n, sizeof(struct bpf_insn));
		if (!p->insns)
			exit(2);
		memset(&info, 0, sizeof(info));
		info.xlated_prog_len = (__u32)(p->n * sizeof(struct bpf_insn));
		info.xlated_prog_insns = (uintptr_t)p->insns;
		rc = pt_prog_info(fd, &info);
		if (!rc && !info.xlated_prog_insns)
			rc = -EPERM; /* bpf_dump_raw_ok(): kptr_restrict */
	}
	close(fd);
	p->id = id;
	memcpy(p->name, info.name, sizeof(p->name) - 1);
	memcpy(p->tag, info.tag, sizeof(p->tag));
	if (rc) {
		snprintf(
			why, len,
			"program id %u: the kernel does not show its instructions (%s)",
			id, strerror(-rc));
		free(p->insns);
		p->insns = NULL;
		p->n = 0;
		return -1;
	}
	return 0;
}

int pt_cgbpf_load(const char *dir, struct pt_cgbpf *b, char *why, size_t len)
{
	__u32 ids[PT_BPF_MAX_PROGS];
	union bpf_attr a;
	struct statfs sf;
	size_t i;
	int cg;

	memset(b, 0, sizeof(*b));
	cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -2;
	}
	if (fstatfs(cg, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		close(cg);
		snprintf(
			why, len,
			"not a cgroup v2 directory (a running container's is under /sys/fs/cgroup)");
		return -2;
	}
	memset(&a, 0, sizeof(a));
	a.query.target_fd = (__u32)cg;
	a.query.attach_type = BPF_CGROUP_DEVICE;
	a.query.query_flags = BPF_F_QUERY_EFFECTIVE;
	a.query.prog_ids = (uintptr_t)ids;
	a.query.prog_cnt = PT_BPF_MAX_PROGS;
	if (pt_bpf(BPF_PROG_QUERY, &a)) {
		int e = errno;

		close(cg);
		snprintf(why, len, "BPF_PROG_QUERY: %s", strerror(e));
		return -1;
	}
	close(cg);
	b->n = a.query.prog_cnt;
	b->p = calloc(b->n ? b->n : 1, sizeof(*b->p));
	if (!b->p)
		exit(2);
	for (i = 0; i < b->n; i++)
		if (pt_prog_read(ids[i], &b->p[i], why, len))
			return -1;
	return 0;
}

void pt_cgbpf_free(struct pt_cgbpf *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->p[i].insns);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static bool pt_jmp_taken(__u8 op, __u64 x, __u64 y, bool w32)
{
	__s64 sx = w32 ? (__s32)x : (__s64)x, sy = w32 ? (__s32)y : (__s64)y;

	if (w32) {
		x = (__u32)x;
		y = (__u32)y;
	}
	switch (op) {
	case BPF_JEQ:
		return x == y;
	case BPF_JNE:
		return x != y;
	case BPF_JGT:
		return x > y;
	case BPF_JGE:
		return x >= y;
	case BPF_JLT:
		return x < y;
	case BPF_JLE:
		return x <= y;
	case BPF_JSET:
		return x & y;
	case BPF_JSGT:
		return sx > sy;
	case BPF_JSGE:
		return sx >= sy;
	case BPF_JSLT:
		return sx < sy;
	default: /* BPF_JSLE, checked by the caller */
		return sx <= sy;
	}
}

static bool pt_alu(__u8 op, bool w32, __u64 *d, __u64 s)
{
	__u64 v = *d;

	if (w32) {
		v = (__u32)v;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_MOV:
		v = s;
		break;
	case BPF_AND:
		v &= s;
		break;
	case BPF_OR:
		v |= s;
		break;
	case BPF_XOR:
		v ^= s;
		break;
	case BPF_ADD:
		v += s;
		break;
	case BPF_SUB:
		v -= s;
		break;
	case BPF_LSH:
		v <<= s & (w32 ? 31 : 63);
		break;
	case BPF_RSH:
		v >>= s & (w32 ? 31 : 63);
		break;
	default:
		return false;
	}
	*d = w32 ? (__u32)v : v;
	return true;
}

/*
 * Run one program on ctx (struct bpf_cgroup_dev_ctx: access_type, major,
 * minor). 1 allows, 0 denies, -1: an instruction this does not model.
 */
static int pt_prog_run(const struct pt_cgprog *p, const __u32 ctx[3], char *why,
		       size_t len)
{
	__u64 r[MAX_BPF_REG] = { 0 };
	bool isctx[MAX_BPF_REG] = { false };
	size_t pc = 0, steps = 0;

	isctx[BPF_REG_1] = true;
	while (pc < p->n && steps++ < PT_BPF_MAX_STEPS) {
		const struct bpf_insn *in = &p->insns[pc];
		__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		bool x = BPF_SRC(in->code) == BPF_X;
		__u64 s;

		if (in->dst_reg >= MAX_BPF_REG || in->src_reg >= MAX_BPF_REG)
			break;
		if (cls == BPF_LDX) {
			unsigned int sz = BPF_SIZE(in->code) == BPF_W ? 4 :
					  BPF_SIZE(in->code) == BPF_H ? 2 :
					  BPF_SIZE(in->code) == BPF_B ? 1 :
									0;
			__u32 v = 0;

			/* narrow loads as the verifier allows them on ctx */
			if (BPF_MODE(in->code) != BPF_MEM || !sz ||
			    !isctx[in->src_reg] || in->off < 0 ||
			    in->off + sz > 3 * sizeof(__u32) || in->off % sz)
				break;
			memcpy(&v, (const char *)ctx + in->off, sz);
			r[in->dst_reg] = v;
			isctx[in->dst_reg] = false;
		} else if (cls == BPF_ALU || cls == BPF_ALU64) {
			if (x && isctx[in->src_reg]) {
				if (cls != BPF_ALU64 || op != BPF_MOV)
					break;
				isctx[in->dst_reg] = true;
				pc++;
				continue;
			}
			if (isctx[in->dst_reg] && op != BPF_MOV)
				break;
			s = x ? r[in->src_reg] : (__u64)(__s64)in->imm;
			if (!pt_alu(op, cls == BPF_ALU, &r[in->dst_reg], s))
				break;
			isctx[in->dst_reg] = false;
		} else if (cls == BPF_JMP || cls == BPF_JMP32) {
			if (op == BPF_EXIT && cls == BPF_JMP) {
				if (isctx[BPF_REG_0])
					break;
				return r[BPF_REG_0] ? 1 : 0;
			}
			if (op == BPF_JA && cls == BPF_JMP) {
				pc += (size_t)(1 + in->off);
				continue;
			}
			if (op == BPF_CALL || op == BPF_EXIT || op == BPF_JA ||
			    op > BPF_JSLE || isctx[in->dst_reg] ||
			    (x && isctx[in->src_reg]))
				break;
			s = x ? r[in->src_reg] : (__u64)(__s64)in->imm;
			if (pt_jmp_taken(op, r[in->dst_reg], s,
					 cls == BPF_JMP32))
				pc += (size_t)in->off;
		} else {
			break; /* stores, 64-bit immediates (maps), atomics */
		}
		pc++;
	}
	if (pc >= p->n)
		snprintf(why, len, "program id %u: runs off its end", p->id);
	else if (steps > PT_BPF_MAX_STEPS)
		snprintf(why, len, "program id %u: more than %u steps", p->id,
			 PT_BPF_MAX_STEPS);
	else
		snprintf(
			why, len,
			"program id %u: instruction %zu (code 0x%02x) is more than LXC's programs use",
			p->id, pc, p->insns[pc].code);
	return -1;
}

int pt_cgbpf_decide(const struct pt_cgbpf *b, char type, int major, int minor,
		    unsigned int access, const struct pt_cgprog **by, char *why,
		    size_t len)
{
	__u32 ctx[3];
	bool unknown = false;
	size_t i;

	ctx[0] = (access << 16) |
		 (type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR);
	ctx[1] = (__u32)major;
	ctx[2] = (__u32)minor;
	*by = NULL;
	/* The kernel runs every program in effect; any 0 denies. */
	for (i = 0; i < b->n; i++) {
		int v = pt_prog_run(&b->p[i], ctx, why, len);

		if (v == 0) {
			*by = &b->p[i];
			return 0;
		}
		if (v < 0) {
			*by = &b->p[i];
			unknown = true;
		}
	}
	return unknown ? -1 : 1;
}
