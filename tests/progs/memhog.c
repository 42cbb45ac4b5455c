// SPDX-License-Identifier: GPL-2.0
/*
 * memhog: put the guest under memory pressure until nvsim's shrinker has
 * freed pool chunks (chunks_reclaimed grows in nvsim's debugfs stats), or
 * a limit is reached. Allocates and touches anonymous memory step by step
 * on one CPU, so the pressure lands on that CPU's node first.
 *
 * It must never wake the OOM killer: a killed hog proves nothing and
 * leaves the tunables below changed for the rest of the boot. So it paces
 * itself on the zones' own watermarks (/proc/zoneinfo), not on MemFree:
 * it stops while the zones' free pages above their min watermarks still
 * leave --floor-mb, so no allocation ever needs direct reclaim, and after
 * each step it waits until kswapd has finished its pass (every kswapd
 * thread asleep) instead of a fixed time, which a loaded host shortens.
 *
 * memhog --revive[=MB] does no pressure: it wakes kswapd's interest in
 * nodes an earlier hog made it give up on (see revive()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "nvsim_uapi.h"

#define MAX_KSWAPD 64

struct zones {
	long headroom_kb; /* free above min, summed over usable zones */
	long pcp_kb; /* free pages parked on per-CPU lists */
	int below_low; /* usable zones under their low watermark */
	int usable;
	/*
	 * Usable zones of nodes whose kswapd gave up (16 passes without
	 * progress; a pool shrinker's frees, the driver's as nvsim's, are not
	 * counted as progress). kswapd is not woken there again until some
	 * reclaim on the node makes progress (6.1, 6.12) or a zone is back
	 * above its high watermark (7.x): a later hog in the same boot then
	 * has only the other nodes' kswapd, and may end at the floor.
	 */
	int unreclaimable;
};

static volatile sig_atomic_t stop_signal;
static pid_t kswapd[MAX_KSWAPD];
static int nr_kswapd;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static long read_key(const char *path, const char *key, int colon)
{
	char line[256];
	size_t klen = strlen(key);
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) ||
		    line[klen] != (colon ? ':' : '='))
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

static void add_zone(struct zones *z, const char *name, long managed, long free,
		     long min, long low, long hopeless)
{
	long kb = sysconf(_SC_PAGESIZE) / 1024;

	/*
	 * ZONE_DMA is kept for DMA allocations by lowmem_reserve: the hog's
	 * movable pages never come from it.
	 */
	if (managed <= 0 || !strcmp(name, "DMA"))
		return;
	z->usable++;
	if (free > min)
		z->headroom_kb += (free - min) * kb;
	if (free < low)
		z->below_low++;
	if (hopeless)
		z->unreclaimable++;
}

/* Sum the usable zones of /proc/zoneinfo; 0, or -1 when it cannot be read. */
static int read_zones(struct zones *z)
{
	long managed = 0, free = 0, min = 0, low = 0, hopeless = 0, v;
	long kb = sysconf(_SC_PAGESIZE) / 1024;
	char line[256], name[32] = "", word[32];
	int node, in_zone = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	memset(z, 0, sizeof(*z));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &node, word) == 2) {
			if (in_zone)
				add_zone(z, name, managed, free, min, low,
					 hopeless);
			snprintf(name, sizeof(name), "%s", word);
			managed = free = min = low = hopeless = 0;
			in_zone = 1;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			free = v;
		} else if (sscanf(line, " %31s %ld", word, &v) == 2) {
			if (!strcmp(word, "min"))
				min = v;
			else if (!strcmp(word, "low"))
				low = v;
			else if (!strcmp(word, "managed"))
				managed = v;
			else if (!strcmp(word, "count:"))
				z->pcp_kb += v * kb;
			else if (!strcmp(word, "node_unreclaimable:"))
				hopeless = v;
		}
	}
	if (in_zone)
		add_zone(z, name, managed, free, min, low, hopeless);
	fclose(f);
	return z->usable ? 0 : -1;
}

/* Write a vm sysctl, returning its old value (-1 if it could not be read). */
static long set_vm(const char *name, long value)
{
	char path[128];
	long old = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/vm/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &old) != 1)
			old = -1;
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f || fprintf(f, "%ld\n", value) < 0)
		perror(path);
	if (f && fclose(f))
		perror(path);
	return old;
}

static void find_kswapd(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char path[288], comm[32];

	while (d && (e = readdir(d)) && nr_kswapd < MAX_KSWAPD) {
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kswapd", 6))
			kswapd[nr_kswapd++] = atoi(e->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
}

/* Is any kswapd thread runnable (R) or in uninterruptible sleep (D)? */
static int kswapd_busy(void)
{
	char path[64], buf[256], *p;
	int i, busy = 0;

	for (i = 0; i < nr_kswapd && !busy; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/stat", kswapd[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		if (p && (p[2] == 'R' || p[2] == 'D'))
			busy = 1;
		fclose(f);
	}
	return busy;
}

/*
 * --revive: give kswapd back the nodes an earlier hog made it give up on.
 * kswapd is woken on such a node again only after some reclaim there made
 * progress, and in a guest without swap or a disk nothing is reclaimable
 * but the pools, whose frees kswapd does not count. So: on every CPU (one
 * per node here), ballast of lazily freed anonymous pages (MADV_FREE:
 * clean, discarded without swap), then proactive reclaim of the root
 * cgroup (memory.reclaim), which discards it node by node; that progress
 * clears the node's give-up count. It also runs every shrinker, so the
 * pools are emptied: revive before filling them, not after.
 */
static int revive(long ballast_mb)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, before, total = 0;
	size_t len = (size_t)ballast_mb << 20, i;
	char *ballast[MAX_KSWAPD] = { NULL };
	const char *result = "ok";
	struct zones z;
	cpu_set_t set;
	FILE *f;

	if (read_zones(&z)) {
		printf("memhog revive error=\"no usable zone in /proc/zoneinfo\"\n");
		return 2;
	}
	before = z.unreclaimable;
	for (cpu = 0; cpu < ncpu && cpu < MAX_KSWAPD; cpu++) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;
		ballast[cpu] = mmap(NULL, len, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ballast[cpu] == MAP_FAILED) {
			ballast[cpu] = NULL;
			continue;
		}
		madvise(ballast[cpu], len, MADV_NOHUGEPAGE);
		for (i = 0; i < len; i += 4096)
			ballast[cpu][i] = 1;
		if (madvise(ballast[cpu], len, MADV_FREE))
			result = "no_madv_free";
		total += ballast_mb;
	}
	errno = 0;
	f = fopen("/sys/fs/cgroup/memory.reclaim", "w");
	if (!f) {
		result = "no_memory.reclaim";
	} else {
		int bad = fprintf(f, "%ldM\n", total) < 0;

		bad |= fclose(f) != 0;
		/* EAGAIN: it reclaimed less; what counts is any progress. */
		if (bad)
			result = errno == EAGAIN ? "reclaimed_less" :
						   "reclaim_failed";
	}
	for (cpu = 0; cpu < MAX_KSWAPD; cpu++)
		if (ballast[cpu])
			munmap(ballast[cpu], len);
	read_zones(&z);
	printf("memhog revive unreclaimable=%ld->%d/%d ballast_mb=%ld result=%s\n",
	       before, z.unreclaimable, z.usable, total, result);
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * After a step, let reclaim finish its pass before the next one: wait
 * until every kswapd is seen asleep at two polls in a row, until chunks
 * are reclaimed, or for at most max_ms.
 */
static long wait_kswapd(const char *stats, long start, long max_ms,
			long *waited_ms)
{
	long t0 = now_ms(), now = reclaimed(stats);
	int idle = 0;

	while (now <= start && idle < 2 && !stop_signal &&
	       now_ms() - t0 < max_ms) {
		usleep(20 * 1000);
		idle = kswapd_busy() ? 0 : idle + 1;
		now = reclaimed(stats);
	}
	*waited_ms += now_ms() - t0;
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
		{ "pcp-fraction", required_argument, NULL, 'p' },
		{ "wait-ms", required_argument, NULL, 'W' },
		{ "allow-empty", no_argument, NULL, 'e' },
		{ "revive", optional_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	long limit_mb = 2048, step_mb = 4, floor_mb = 24, cpu = 0, wsf = 1000,
	     pcp_fraction = 100;
	long max_wait_ms = 30000, old_wsf = -1, old_pcp = -1, waited_ms = 0;
	const char *stats = NVSIM_DEBUGFS_STATS;
	long start, now, touched_mb = 0;
	const char *result = "limit";
	struct sigaction sa = { .sa_handler = on_signal };
	struct zones z;
	cpu_set_t set;
	int o, allow_empty = 0, start_unreclaimable;
	long revive_mb = 0;

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
		case 'p':
			pcp_fraction = atol(optarg);
			break;
		case 'W':
			max_wait_ms = atol(optarg);
			break;
		case 'e':
			allow_empty = 1;
			break;
		case 'r':
			revive_mb = optarg ? atol(optarg) : 16;
			break;
		default:
			fprintf(stderr,
				"usage: memhog [--limit-mb N] [--step-mb N] [--floor-mb N]"
				" [--cpu N] [--stats PATH] [--wsf N] [--pcp-fraction N]"
				" [--wait-ms N] [--allow-empty] [--revive[=MB]] (wsf, pcp-fraction 0: leave it)\n");
			return 2;
		}
	}
	if (step_mb <= 0 || limit_mb <= 0 || floor_mb < 0) {
		fprintf(stderr,
			"memhog: --step-mb and --limit-mb must be > 0, --floor-mb >= 0\n");
		return 2;
	}

	if (revive_mb > 0)
		return revive(revive_mb);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
	/* A test that stops the hog (pt_stress) must not leave the tunables. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	start = reclaimed(stats);
	if (start < 0) {
		printf("memhog error=\"no chunks_reclaimed in %s\"\n", stats);
		return 2;
	}
	/*
	 * With nothing pooled there is nothing to reclaim and the hog would
	 * only push every node into kswapd's give-up state; --allow-empty is
	 * for pressure as background load, while the pools fill.
	 */
	if (!allow_empty && read_key(stats, "pool_pages_owned", 0) <= 0) {
		printf("memhog error=\"nothing pooled (pool_pages_owned in %s)\" result=empty\n",
		       stats);
		return 2;
	}
	if (read_zones(&z)) {
		printf("memhog error=\"no usable zone in /proc/zoneinfo\"\n");
		return 2;
	}
	find_kswapd();
	/*
	 * kswapd wakes at the low watermark, by default a few MiB above min:
	 * a hog outpaces it under emulation. A larger watermark_scale_factor
	 * (units of 0.01% of memory) opens the gap between low and min.
	 * But a CPU's free-page list may hold up to the low watermark (1 CPU
	 * per node here), where neither the watermarks nor the hog can use
	 * it: percpu_pagelist_high_fraction caps it at 1/N of the zone.
	 */
	if (wsf > 0)
		old_wsf = set_vm("watermark_scale_factor", wsf);
	if (pcp_fraction > 0)
		old_pcp = set_vm("percpu_pagelist_high_fraction", pcp_fraction);
	read_zones(&z);
	start_unreclaimable = z.unreclaimable;
	printf("memhog start_reclaimed=%ld memfree_kb=%ld headroom_kb=%ld pcp_kb=%ld kswapd=%d"
	       " unreclaimable=%d/%d limit_mb=%ld step_mb=%ld floor_mb=%ld wsf=%ld pcp_fraction=%ld\n",
	       start, memfree_kb(), z.headroom_kb, z.pcp_kb, nr_kswapd,
	       z.unreclaimable, z.usable, limit_mb, step_mb, floor_mb, wsf,
	       pcp_fraction);

	now = start;
	while (!stop_signal) {
		size_t len = (size_t)step_mb << 20, i;
		char *p;

		if (touched_mb >= limit_mb)
			break;
		if (read_zones(&z) == 0 &&
		    z.headroom_kb < (step_mb + floor_mb) * 1024) {
			result = "floor";
			break;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			result = "enomem";
			break;
		}
		/* Base pages: a huge page fault may fall back, or compact. */
		madvise(p, len, MADV_NOHUGEPAGE);
		/* Kept mapped until exit: the pressure must build up. */
		for (i = 0; i < len; i += 4096)
			p[i] = (char)(i >> 12) | 1;
		touched_mb += step_mb;
		now = wait_kswapd(stats, start, max_wait_ms, &waited_ms);
		if (now > start) {
			result = "reclaimed";
			break;
		}
	}
	if (stop_signal)
		result = "signal";
	read_zones(&z);
	printf("memhog end_reclaimed=%ld reclaimed_delta=%ld touched_mb=%ld",
	       now, now - start, touched_mb);
	printf(" memfree_kb=%ld headroom_kb=%ld pcp_kb=%ld below_low=%d/%d",
	       memfree_kb(), z.headroom_kb, z.pcp_kb, z.below_low, z.usable);
	printf(" unreclaimable=%d->%d/%d", start_unreclaimable, z.unreclaimable,
	       z.usable);
	printf(" waited_ms=%ld result=%s\n", waited_ms, result);
	fflush(stdout);
	if (old_pcp >= 0)
		set_vm("percpu_pagelist_high_fraction", old_pcp);
	if (old_wsf > 0)
		set_vm("watermark_scale_factor", old_wsf);
	return 0;
}
