// SPDX-License-Identifier: GPL-2.0
/*
 * cuinit: drive nvsim the way CUDA context initialisation drives the NVIDIA
 * driver (field report R1): generations of allocations, each mapped through
 * its own fd and mapping context, touched, unmapped and freed, so the pool
 * hands chunks from one generation to the next. Options set up each fault
 * scenario. Prints one key=value line per action and a closing summary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>
#include "nvsim_uapi.h"

#define PAGE 4096UL

/*
 * One CUDA-init generation: R1 saw 1516 chunk registrations for each big
 * allocation, 14214 vm_insert_page calls and 27 mmaps per run. Three of
 * these give exactly that: 27 mmaps of 4738 pages each generation.
 */
static const struct gen_alloc {
	const char *name;
	unsigned int pages, order, flags;
} gen_allocs[] = {
	{ "big0", 1516, 0, NVSIM_ALLOC_ZEROED },
	{ "big1", 1516, 0, NVSIM_ALLOC_ZEROED },
	{ "huge", 512, 9, NVSIM_ALLOC_ZEROED },		/* one 2 MiB chunk */
	{ "mid", 512, 4, NVSIM_ALLOC_ZEROED },
	{ "s1", 256, 4, NVSIM_ALLOC_ZEROED },
	{ "s2", 256, 0, NVSIM_ALLOC_ZEROED },
	{ "s3", 128, 0, NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_CONTIG },	/* order 7: no pool */
	{ "s4", 32, 0, 0 },				/* not zeroed: pool declined */
	{ "s5", 10, 0, NVSIM_ALLOC_ZEROED },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GEN_ALLOCS ARRAY_SIZE(gen_allocs)

static struct {
	unsigned long allocs, alloc_failed, mmaps, mmap_failed, inserts_ok, nonzero, frees;
	unsigned long mmap_idx;
} tot;

static uint64_t rng;
static int ctl = -1;
static int touch = 1;
static const char *dev_path = NVSIM_CTL_PATH;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void die(const char *what)
{
	printf("error what=\"%s\" errno=%d (%s)\n", what, errno, strerror(errno));
	exit(2);
}

/* Make the node from /proc/devices, as nvidia-modprobe does for nvidia-uvm. */
static void nvsim_mknod(void)
{
	FILE *f = fopen("/proc/devices", "r");
	char line[128], name[64], tmp[256];
	int major = -1, m;
	struct stat st;

	if (!f)
		die("open /proc/devices");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %63s", &m, name) == 2 && !strcmp(name, NVSIM_CTL_NAME))
			major = m;
	fclose(f);
	if (major < 0) {
		errno = ENODEV;
		die(NVSIM_CTL_NAME " not in /proc/devices (nvsim not loaded?)");
	}
	if (stat(dev_path, &st) == 0 && S_ISCHR(st.st_mode) &&
	    major(st.st_rdev) == (unsigned int)major)
		return;
	/*
	 * Several first runs may get here at once (one per CPU): each makes
	 * its own node and renames it into place, which is atomic, so none
	 * fails on another's half-done unlink and mknod.
	 */
	snprintf(tmp, sizeof(tmp), "%s.%d", dev_path, (int)getpid());
	unlink(tmp);
	if (mknod(tmp, S_IFCHR | 0666, makedev(major, 0)))
		die("mknod");
	if (rename(tmp, dev_path))
		die("rename");
	printf("mknod path=%s major=%d minor=0\n", dev_path, major);
}

static int open_ctl(void)
{
	int fd = open(dev_path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open ctl");
	return fd;
}

struct alloc {
	const char *name;
	unsigned int handle, pages, flags;
	int gen;
	void *map;
	unsigned long map_pages;
	long mmap_idx;
};

static int do_alloc(struct alloc *a, int gen, const char *name, unsigned int pages,
		    unsigned int order, unsigned int flags)
{
	struct nvsim_alloc_req req = { .num_pages = pages, .order = order, .flags = flags };
	int rc = ioctl(ctl, NVSIM_IOC_ALLOC, &req);

	memset(a, 0, sizeof(*a));
	a->name = name;
	a->gen = gen;
	a->pages = pages;
	a->flags = flags;
	a->mmap_idx = -1;
	tot.allocs++;
	if (rc) {
		tot.alloc_failed++;
		printf("alloc gen=%d name=%s pages=%u order=%u flags=0x%x rc=-1 errno=%d",
		       gen, name, pages, order, flags, errno);
		printf(" status=0x%x\n", req.status);
		return -1;
	}
	a->handle = req.handle;
	printf("alloc gen=%d name=%s handle=%u pages=%u order=%u flags=0x%x chunks=%u",
	       gen, name, req.handle, pages, req.order_out, flags, req.chunks);
	printf(" pool_chunks=%u pooled=%u first_pfn=0x%llx rc=0\n", req.pool_chunks, req.pooled,
	       (unsigned long long)req.first_pfn);
	return 0;
}

/* A new fd, a mapping context on it, mmap, close the fd: the VMA keeps it. */
static int do_mmap(struct alloc *a, const char *tag)
{
	struct nvsim_map_req req = { .handle = a->handle, .page_index = 0, .pages = a->pages };
	int fd = open_ctl();
	void *p;
	int err = 0;

	if (ioctl(fd, NVSIM_IOC_MAP_CONTEXT, &req))
		die("map context");
	a->mmap_idx = tot.mmap_idx++;
	tot.mmaps++;
	p = mmap(NULL, a->pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		tot.mmap_failed++;
		p = NULL;
	} else {
		tot.inserts_ok += a->pages;
	}
	close(fd);
	a->map = p;
	a->map_pages = a->pages;
	printf("mmap idx=%ld gen=%d name=%s handle=%u pages=%u%s rc=%d errno=%d\n", a->mmap_idx,
	       a->gen, a->name, a->handle, a->pages, tag, p ? 0 : -1, err);
	return p ? 0 : -1;
}

/* Zeroed memory must read zero (the pool scrubbed it); then dirty it. */
static void do_touch(struct alloc *a)
{
	unsigned long i, w, nonzero = 0;

	if (!a->map || !touch)
		return;
	for (i = 0; i < a->map_pages; i++) {
		uint64_t *pg = (uint64_t *)((char *)a->map + i * PAGE);

		if (a->flags & NVSIM_ALLOC_ZEROED) {
			for (w = 0; w < PAGE / 8; w++) {
				if (pg[w]) {
					nonzero++;
					break;
				}
			}
		}
		pg[0] = next_rand() | 1;
		pg[(i * 7 + 1) % (PAGE / 8)] = next_rand() | 1;
	}
	tot.nonzero += nonzero;
	printf("touch gen=%d name=%s pages=%lu nonzero_pages=%lu\n", a->gen, a->name, a->map_pages,
	       nonzero);
}

static void do_munmap(struct alloc *a)
{
	if (!a->map)
		return;
	if (munmap(a->map, a->map_pages * PAGE))
		die("munmap");
	printf("munmap idx=%ld name=%s\n", a->mmap_idx, a->name);
	a->map = NULL;
}

static void do_free(struct alloc *a, int before_munmap)
{
	struct nvsim_free_req req = { .handle = a->handle };

	if (!a->handle)
		return;
	if (ioctl(ctl, NVSIM_IOC_FREE, &req))
		die("free");
	tot.frees++;
	printf("free gen=%d name=%s handle=%u before_munmap=%d\n", a->gen, a->name, a->handle,
	       before_munmap);
	a->handle = 0;
}

static void drain(void)
{
	if (ioctl(ctl, NVSIM_IOC_DRAIN))
		die("drain");
	printf("drain\n");
}

static int pfn_of(unsigned int handle, unsigned int page, uint64_t *pfn, int *ref)
{
	struct nvsim_pfn_req req = { .handle = handle, .page_index = page };

	if (ioctl(ctl, NVSIM_IOC_PFN, &req))
		return -1;
	*pfn = req.pfn;
	*ref = req.refcount;
	return 0;
}

/* Which live allocation, and which page of it, holds pfn now? */
static void find_owner(struct alloc *as, int n, uint64_t want)
{
	int i, ref;
	unsigned int p;
	uint64_t pfn;

	for (i = 0; i < n; i++) {
		for (p = 0; as[i].handle && p < as[i].pages; p++) {
			if (pfn_of(as[i].handle, p, &pfn, &ref) || pfn != want)
				continue;
			printf("owner pfn=0x%llx name=%s handle=%u page=%u refcount=%d\n",
			       (unsigned long long)want, as[i].name, as[i].handle, p, ref);
			return;
		}
	}
	printf("owner pfn=0x%llx name=none\n", (unsigned long long)want);
}

static void selfcheck(const char *when)
{
	struct nvsim_selfcheck sc;
	unsigned int i;

	if (ioctl(ctl, NVSIM_IOC_SELFCHECK, &sc))
		die("selfcheck");
	printf("selfcheck when=%s errors=%u pools_bad=%u accounting_bad=%u double_owned=%u",
	       when, sc.errors, sc.pools_bad, sc.accounting_bad, sc.double_owned);
	for (i = 0; i < sc.double_owned && i < NVSIM_SELFCHECK_MAX_DOUBLE; i++)
		printf(" double_pfn=0x%llx", (unsigned long long)sc.double_pfn[i]);
	printf("\n");
}

/*
 * One generation: allocate all, map each through a new fd, touch, then
 * tear down. The seed decides the free order and which allocations RM
 * frees while still mapped (the VMA's close then frees them, deferred).
 */
static void generation(int gen, struct alloc *as, int keep)
{
	unsigned int i, order[GEN_ALLOCS];
	int late[GEN_ALLOCS];

	for (i = 0; i < GEN_ALLOCS; i++)
		do_alloc(&as[i], gen, gen_allocs[i].name, gen_allocs[i].pages,
			 gen_allocs[i].order, gen_allocs[i].flags);
	for (i = 0; i < GEN_ALLOCS; i++)
		if (as[i].handle)
			do_mmap(&as[i], "");
	for (i = 0; i < GEN_ALLOCS; i++)
		do_touch(&as[i]);
	if (keep)
		return;

	for (i = 0; i < GEN_ALLOCS; i++) {
		order[i] = i;
		late[i] = (next_rand() % 3) == 0;
	}
	for (i = GEN_ALLOCS - 1; i > 0; i--) {
		unsigned int j = next_rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < GEN_ALLOCS; i++) {
		struct alloc *a = &as[order[i]];

		if (late[order[i]] && a->map) {
			do_free(a, 1);
			do_munmap(a);
		} else {
			do_munmap(a);
			do_free(a, 0);
		}
	}
}

static void teardown(struct alloc *as, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		do_munmap(&as[i]);
		do_free(&as[i], 0);
	}
}

/*
 * Z2: map through a context whose allocation RM already freed. nozero and
 * reused: the pool declines the pages, they go straight back to the buddy
 * (reused: then the first one to someone else, NVSIM_IOC_REUSE); reclaim:
 * pooled, then freed by the shrinker; pooled: still in the pool.
 */
static void scenario_stale(const char *how)
{
	int zeroed = !strcmp(how, "reclaim") || !strcmp(how, "pooled");
	struct alloc s;
	struct nvsim_map_req req;
	struct nvsim_free_req fr;
	uint64_t pfn = 0;
	int fd, ref = 0, err = 0;
	void *p;

	drain();
	if (do_alloc(&s, 0, "stale", 32, 0, zeroed ? NVSIM_ALLOC_ZEROED : 0))
		return;
	pfn_of(s.handle, 0, &pfn, &ref);
	fd = open_ctl();
	req = (struct nvsim_map_req){ .handle = s.handle, .page_index = 0, .pages = s.pages };
	if (ioctl(fd, NVSIM_IOC_MAP_CONTEXT, &req))
		die("map context");
	fr = (struct nvsim_free_req){ .handle = s.handle };
	if (ioctl(ctl, NVSIM_IOC_FREE, &fr))
		die("free");
	printf("free gen=0 name=stale handle=%u before_mmap=1 first_pfn=0x%llx\n", s.handle,
	       (unsigned long long)pfn);
	s.handle = 0;
	if (zeroed)
		drain();
	if (!strcmp(how, "reused")) {
		struct nvsim_reuse_req rr = { .pfn = pfn };
		int rc = ioctl(ctl, NVSIM_IOC_REUSE, &rr);

		printf("reused pfn=0x%llx by=nvsim rc=%d tries=%u refcount=%d\n",
		       (unsigned long long)pfn, rc ? -errno : 0, rr.tries, rr.refcount);
	}
	if (!strcmp(how, "reclaim")) {
		int dc = open("/proc/sys/vm/drop_caches", O_WRONLY);

		if (dc < 0 || write(dc, "2", 1) != 1)
			die("drop_caches");
		close(dc);
		printf("drop_caches value=2\n");
	}

	s.mmap_idx = tot.mmap_idx++;
	tot.mmaps++;
	p = mmap(NULL, s.pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		tot.mmap_failed++;
	}
	printf("mmap idx=%ld gen=0 name=stale pages=%u stale=1 how=%s rc=%d errno=%d\n",
	       s.mmap_idx, s.pages, how, p == MAP_FAILED ? -1 : 0, err);
	/* Never touched: if it mapped, the pages belong to someone else. */
	if (p != MAP_FAILED) {
		tot.inserts_ok += s.pages;
		munmap(p, s.pages * PAGE);
	}
	close(fd);
}

/* Z1: a contiguous allocation; with fault_noncomp its tails have refcount 0. */
static void scenario_noncomp(void)
{
	struct alloc c;

	if (do_alloc(&c, 0, "contig", 16, 0, NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_CONTIG))
		return;
	do_mmap(&c, " contig=1");
	do_touch(&c);
	do_munmap(&c);
	do_free(&c, 0);
}

/* Z8: a foreign thread drops a reference on a pooled page; reuse it. */
static void scenario_foreign(struct alloc *as, int seed_gens)
{
	struct nvsim_foreign_req req = { .node = 0, .order = 0, .cpu = -1 };
	int gen;

	for (gen = 0; gen < seed_gens; gen++)
		generation(gen, as, 0);
	drain();
	if (ioctl(ctl, NVSIM_IOC_FOREIGN_PUT, &req))
		die("foreign put");
	printf("foreign pfn=0x%llx pid=%d cpu=%d comm=%s refcount=%d node=%d order=%u\n",
	       (unsigned long long)req.pfn, req.pid, req.cpu, req.comm, req.refcount, req.node,
	       req.order);

	/* The next generation takes the clean list head: the freed page. */
	touch = 0;
	generation(seed_gens, as, 1);
	find_owner(as, GEN_ALLOCS, req.pfn);
	teardown(as, GEN_ALLOCS);
}

/* GUP-pin aliasing: a pinned page goes through the pool to a new owner. */
static void scenario_pin(void)
{
	struct nvsim_pin_req pin = { .page_index = 7 };
	struct nvsim_unpin_req unpin;
	struct alloc p, q;

	drain();
	if (do_alloc(&p, 0, "pinned", 64, 0, NVSIM_ALLOC_ZEROED))
		return;
	pin.handle = p.handle;
	if (ioctl(ctl, NVSIM_IOC_PIN, &pin))
		die("pin");
	printf("pin id=%u handle=%u page=%u pfn=0x%llx\n", pin.pin_id, p.handle, pin.page_index,
	       (unsigned long long)pin.pfn);
	do_free(&p, 0);
	drain();

	if (do_alloc(&q, 1, "reuse", 64, 0, NVSIM_ALLOC_ZEROED))
		return;
	do_mmap(&q, "");
	do_touch(&q);
	find_owner(&q, 1, pin.pfn);
	selfcheck("aliased");
	do_munmap(&q);
	do_free(&q, 0);

	unpin.pin_id = pin.pin_id;
	if (ioctl(ctl, NVSIM_IOC_UNPIN, &unpin))
		die("unpin");
	printf("unpin id=%u\n", pin.pin_id);
	selfcheck("unpinned");
}

/* An 8 MiB contiguous request (order > NV_MAX_PAGE_ORDER: the buddy
 * allocator fails it, nv_free_system_pages runs on the failure path), then a
 * 4 MiB one that succeeds, mapped, touched and freed. */
static void scenario_big_contig(void)
{
	struct alloc c;

	do_alloc(&c, 0, "contig8m", 2048, 0, NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_CONTIG);
	if (c.handle)
		do_free(&c, 0);
	if (do_alloc(&c, 0, "contig4m", 1024, 0, NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_CONTIG))
		return;
	do_mmap(&c, " contig=1");
	do_touch(&c);
	do_munmap(&c);
	do_free(&c, 0);
}

static void get_stats(struct nvsim_stats *st)
{
	if (ioctl(ctl, NVSIM_IOC_STATS, st))
		die("stats");
}

static volatile sig_atomic_t released;

static void on_term(int sig)
{
	(void)sig;
	released = 1;
}

/* Wait for SIGTERM with everything still allocated: the test looks now. */
static void hold(void)
{
	signal(SIGTERM, on_term);
	printf("hold pid=%d\n", getpid());
	fflush(stdout);
	while (!released)
		pause();
	printf("released\n");
}

/*
 * Release race: with fault_release_race=N set, freeing "racefree" (16
 * order-4 chunks on node 0, the pool empty before) lets the nvsim_racer
 * thread take N of its chunks into its own allocation before
 * nv_mem_pool_free_pages returns. Prints both sides' chunk pfns.
 */
static void scenario_race(int do_hold)
{
	struct nvsim_stats st;
	struct alloc a;
	unsigned int c;
	uint64_t pfn;
	int ref;

	if (do_alloc(&a, 0, "racefree", 256, 4, NVSIM_ALLOC_ZEROED | NVSIM_ALLOC_NODE))
		return;
	do_mmap(&a, "");
	do_touch(&a);
	do_munmap(&a);
	for (c = 0; c < a.pages / 16; c++)
		if (!pfn_of(a.handle, c * 16, &pfn, &ref))
			printf("chunk name=racefree idx=%u pfn=0x%llx\n", c, (unsigned long long)pfn);
	do_free(&a, 0);
	get_stats(&st);
	printf("race runs=%llu handle=%llu pool_chunks=%llu pid=%llu first_pfn=0x%llx\n",
	       (unsigned long long)st.race_runs, (unsigned long long)st.race_handle,
	       (unsigned long long)st.race_pool_chunks, (unsigned long long)st.race_pid,
	       (unsigned long long)st.race_first_pfn);
	for (c = 0; st.race_handle && !pfn_of(st.race_handle, c * 16, &pfn, &ref); c++)
		printf("chunk name=racer idx=%u pfn=0x%llx refcount=%d\n", c,
		       (unsigned long long)pfn, ref);
	if (do_hold)
		hold();
}

/* pfn of a mapped user address, from /proc/self/pagemap (root sees pfns). */
static uint64_t user_pfn(const void *p)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), ((uintptr_t)p / PAGE) * sizeof(e)) != sizeof(e))
		e = 0;
	close(fd);
	return (e >> 63) ? (e & ((1ULL << 55) - 1)) : 0;
}

/*
 * A coherent-NUMA GPU's mmap (nvidia_mmap_numa): n device pages inserted
 * with vm_private_data NULL, next to an ordinary sysmem allocation.
 */
static void scenario_numa(unsigned int n)
{
	struct nvsim_map_req req = { .flags = NVSIM_MAP_NUMA, .pages = n };
	struct alloc s;
	unsigned int i;
	char *p;
	int fd;

	if (do_alloc(&s, 0, "sysmem", 32, 0, NVSIM_ALLOC_ZEROED))
		return;
	do_mmap(&s, "");
	do_touch(&s);

	fd = open_ctl();
	if (ioctl(fd, NVSIM_IOC_MAP_CONTEXT, &req))
		die("numa map context");
	tot.mmaps++;
	p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		tot.mmap_failed++;
		printf("mmap name=numa pages=%u numa=1 rc=-1 errno=%d\n", n, errno);
	} else {
		tot.inserts_ok += n;
		printf("mmap name=numa pages=%u numa=1 rc=0 errno=0\n", n);
		for (i = 0; i < n; i++) {
			p[i * PAGE] = 1;
			printf("numa page=%u pfn=0x%llx\n", i,
			       (unsigned long long)user_pfn(p + i * PAGE));
		}
		munmap(p, n * PAGE);
	}
	close(fd);
	do_munmap(&s);
	do_free(&s, 0);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: cuinit [--seed N] [--gens N] [--cpu N] [--dev PATH] [--drain] [--no-touch]\n"
		"              [--stale=nozero|reused|reclaim|pooled | --noncomp | --foreign | --pin]\n"
		"              [--big-contig | --race [--hold] | --numa N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "gens", required_argument, NULL, 'g' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "dev", required_argument, NULL, 'd' },
		{ "drain", no_argument, NULL, 'D' },
		{ "no-touch", no_argument, NULL, 'T' },
		{ "stale", required_argument, NULL, 'S' },
		{ "noncomp", no_argument, NULL, 'N' },
		{ "foreign", no_argument, NULL, 'F' },
		{ "pin", no_argument, NULL, 'P' },
		{ "big-contig", no_argument, NULL, 'B' },
		{ "race", no_argument, NULL, 'R' },
		{ "hold", no_argument, NULL, 'H' },
		{ "numa", required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	const char *stale = NULL;
	int gens = 3, cpu = 0, do_drain = 0, noncomp = 0, foreign = 0, pin = 0, gens_set = 0;
	int big_contig = 0, race = 0, do_hold = 0, numa = 0;
	unsigned long long seed = 1;
	struct alloc as[GEN_ALLOCS];
	cpu_set_t set;
	int o, gen;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			gens = atoi(optarg);
			gens_set = 1;
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'd':
			dev_path = optarg;
			break;
		case 'D':
			do_drain = 1;
			break;
		case 'T':
			touch = 0;
			break;
		case 'S':
			stale = optarg;
			break;
		case 'N':
			noncomp = 1;
			break;
		case 'F':
			foreign = 1;
			break;
		case 'P':
			pin = 1;
			break;
		case 'B':
			big_contig = 1;
			break;
		case 'R':
			race = 1;
			break;
		case 'H':
			do_hold = 1;
			break;
		case 'U':
			numa = atoi(optarg);
			if (numa <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (stale && strcmp(stale, "nozero") && strcmp(stale, "reused") &&
	    strcmp(stale, "reclaim") && strcmp(stale, "pooled"))
		usage();
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;

	/* One CPU: its per-CPU free lists are the ones the driver reuses. */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");

	nvsim_mknod();
	ctl = open_ctl();
	printf("cuinit seed=%llu gens=%d cpu=%d pid=%d\n", seed, gens, cpu, getpid());

	if (stale) {
		scenario_stale(stale);
	} else if (noncomp) {
		scenario_noncomp();
	} else if (foreign) {
		scenario_foreign(as, gens_set ? gens : 1);
	} else if (pin) {
		scenario_pin();
	} else if (big_contig) {
		scenario_big_contig();
	} else if (race) {
		scenario_race(do_hold);
	} else if (numa) {
		scenario_numa(numa);
	} else {
		for (gen = 0; gen < gens; gen++) {
			generation(gen, as, 0);
			if (do_drain)
				drain();
		}
	}

	printf("summary allocs=%lu alloc_failed=%lu mmaps=%lu mmap_failed=%lu", tot.allocs,
	       tot.alloc_failed, tot.mmaps, tot.mmap_failed);
	printf(" inserts_expected=%lu nonzero_pages=%lu frees=%lu\n", tot.inserts_ok, tot.nonzero,
	       tot.frees);
	close(ctl);
	return 0;
}
