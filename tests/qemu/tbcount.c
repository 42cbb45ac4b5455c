// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for scripts/insnprof: how many times each translated
 * block of guest kernel code ran, and how many instructions it has. Their
 * product, summed per symbol, is where a workload's instructions went,
 * exactly (sampling cannot look inside pagetrail's IRQs-off sections).
 *
 * Written against the plugin API of QEMU 7.2 (Debian 12: API version 1),
 * declared in qemu-plugin-v1.h.
 * Arguments: outfile=PATH (default /tmp/tbcount.txt). Output, at exit: one
 * line per block that ran, "VADDR INSNS COUNT" (hex, decimal, decimal).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin-v1.h"

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* x86-64 kernel space: user code is not what is profiled. */
#define KERNEL_START 0xffff800000000000ULL

struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count; /* added to by the translated code itself */
};

static struct block **blocks;
static size_t nblocks, cap;
static char outfile[4096] = "/tmp/tbcount.txt";

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (vaddr < KERNEL_START)
		return;
	if (nblocks == cap) {
		struct block **grown;

		cap = cap ? 2 * cap : 65536;
		grown = realloc(blocks, cap * sizeof(*blocks));
		if (!grown)
			abort();
		blocks = grown;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->insns = qemu_plugin_tb_n_insns(tb);
	blocks[nblocks++] = b;
	/* A retranslated block gets a record of its own: summed later. */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(outfile, "w");
	size_t i;

	if (!f) {
		perror(outfile);
		return;
	}
	for (i = 0; i < nblocks; i++)
		if (blocks[i]->count)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)blocks[i]->vaddr,
				(unsigned long long)blocks[i]->insns,
				(unsigned long long)blocks[i]->count);
	fclose(f);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc,
		    char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "outfile=", 8)) {
			fprintf(stderr, "tbcount: unknown argument %s\n",
				argv[i]);
			return -1;
		}
		snprintf(outfile, sizeof(outfile), "%s", argv[i] + 8);
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
