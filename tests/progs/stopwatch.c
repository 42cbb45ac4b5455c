// SPDX-License-Identifier: GPL-2.0
/*
 * stopwatch: time a workload several times and print the median, for
 * make bench. The workload is a command, or "faults" (touch and release
 * 64 MiB of anonymous memory: the page allocator paths pagetrail hooks
 * system-wide).
 *
 *   stopwatch RUNS NAME faults
 *   stopwatch RUNS NAME -- COMMAND [ARGS...]
 *
 * Prints "bench name=NAME runs=N median_us=M min_us=A max_us=B
 * samples_us=T1,T2,...": the samples in run order, so that make bench can
 * pool runs of several rounds before taking medians.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define FAULT_BYTES (64UL << 20)

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int faults(void)
{
	char *p = mmap(NULL, FAULT_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < FAULT_BYTES; i += 4096)
		p[i] = 1;
	return munmap(p, FAULT_BYTES);
}

static int command(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long long *t, *sorted, start;
	int runs, i;

	if (argc < 4 || (strcmp(argv[3], "faults") && (strcmp(argv[3], "--") || argc < 5))) {
		fprintf(stderr, "usage: stopwatch RUNS NAME faults | -- COMMAND...\n");
		return 2;
	}
	runs = atoi(argv[1]);
	if (runs < 1)
		return 2;
	t = calloc(runs, sizeof(*t));
	sorted = calloc(runs, sizeof(*sorted));
	if (!t || !sorted)
		return 1;
	for (i = 0; i < runs; i++) {
		start = now_us();
		if (strcmp(argv[3], "faults") ? command(argv + 4) : faults()) {
			printf("bench name=%s error=run-%d-failed\n", argv[2], i);
			return 1;
		}
		t[i] = now_us() - start;
	}
	memcpy(sorted, t, runs * sizeof(*t));
	qsort(sorted, runs, sizeof(*sorted), cmp);
	printf("bench name=%s runs=%d median_us=%lld min_us=%lld max_us=%lld samples_us=", argv[2],
	       runs, sorted[runs / 2], sorted[0], sorted[runs - 1]);
	for (i = 0; i < runs; i++)
		printf("%s%lld", i ? "," : "", t[i]);
	printf("\n");
	return 0;
}
