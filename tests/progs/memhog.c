// SPDX-License-Identifier: GPL-2.0
/*
 * memhog: put the guest under memory pressure until nvsim's shrinker has
 * freed pool chunks (chunks_reclaimed grows in nvsim's debugfs stats), or
 * a limit is reached. Allocates and touches anonymous memory step by step
 * on one CPU, so the pressure lands on that CPU's node first, and stops
 * before MemFree gets low enough to wake the OOM killer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "nvsim_uapi.h"

static long read_key(const char *path, const char *key, int colon)
{
	char line[256];
	size_t klen = strlen(key);
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != (colon ? ':' : '='))
			continue;
		val = strtol(line + klen + 1, NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

static long reclaimed(const char *stats)
{
	return read_key(stats, "chunks_reclaimed", 0);
}

static long memfree_kb(void)
{
	return read_key("/proc/meminfo", "MemFree", 1);
}

/*
 * kswapd wakes at a node's low watermark, by default a few MiB above min:
 * on a small guest (a KASAN one especially) memory runs out before reclaim
 * gets to the slab shrinkers. A larger watermark_scale_factor (units of
 * 0.01% of memory) makes kswapd start early and keep going; restored at exit.
 */
static long set_wsf(long value)
{
	const char *path = "/proc/sys/vm/watermark_scale_factor";
	long old = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%ld", &old) != 1)
			old = -1;
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f || fprintf(f, "%ld\n", value) < 0)
		perror(path);
	if (f)
		fclose(f);
	return old;
}

/*
 * Below 8x the floor, give kswapd time before the next step: under
 * emulation it runs rarely, and a hog that outpaces it gets OOM-killed
 * before reclaim ever reaches the slab shrinkers.
 */
static long wait_reclaim(const char *stats, long start, long floor_mb)
{
	long now = reclaimed(stats);
	int i;

	for (i = 0; i < 20 && now <= start && memfree_kb() < 8 * floor_mb * 1024; i++) {
		usleep(50 * 1000);
		now = reclaimed(stats);
	}
	return now;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "limit-mb", required_argument, NULL, 'l' },
		{ "step-mb", required_argument, NULL, 's' },
		{ "floor-mb", required_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "stats", required_argument, NULL, 'S' },
		{ "wsf", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	long limit_mb = 2048, step_mb = 4, floor_mb = 24, cpu = 0, wsf = 1000, old_wsf = -1;
	const char *stats = NVSIM_DEBUGFS_STATS;
	long start, now, touched_mb = 0;
	const char *result = "limit";
	cpu_set_t set;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'l':
			limit_mb = atol(optarg);
			break;
		case 's':
			step_mb = atol(optarg);
			break;
		case 'f':
			floor_mb = atol(optarg);
			break;
		case 'c':
			cpu = atol(optarg);
			break;
		case 'S':
			stats = optarg;
			break;
		case 'w':
			wsf = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: memhog [--limit-mb N] [--step-mb N] [--floor-mb N]"
				" [--cpu N] [--stats PATH] [--wsf N (0: leave it)]\n");
			return 2;
		}
	}

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");

	start = reclaimed(stats);
	if (start < 0) {
		printf("memhog error=\"no chunks_reclaimed in %s\"\n", stats);
		return 2;
	}
	if (wsf > 0)
		old_wsf = set_wsf(wsf);
	printf("memhog start_reclaimed=%ld memfree_kb=%ld limit_mb=%ld step_mb=%ld floor_mb=%ld wsf=%ld\n",
	       start, memfree_kb(), limit_mb, step_mb, floor_mb, wsf);

	now = start;
	while (touched_mb < limit_mb) {
		size_t len = (size_t)step_mb << 20, i;
		char *p;

		if (memfree_kb() < floor_mb * 1024) {
			result = "floor";
			break;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			result = "enomem";
			break;
		}
		/* Kept mapped until exit: the pressure must build up. */
		for (i = 0; i < len; i += 4096)
			p[i] = (char)(i >> 12) | 1;
		touched_mb += step_mb;
		now = wait_reclaim(stats, start, floor_mb);
		if (now > start) {
			result = "reclaimed";
			break;
		}
	}
	printf("memhog end_reclaimed=%ld reclaimed_delta=%ld touched_mb=%ld", now, now - start,
	       touched_mb);
	printf(" memfree_kb=%ld result=%s\n", memfree_kb(), result);
	if (old_wsf > 0)
		set_wsf(old_wsf);
	return 0;
}
