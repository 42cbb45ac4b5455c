// SPDX-License-Identifier: GPL-2.0
/*
 * ptbadin: feed pagetrail's debugfs files generated bad input (issue 12,
 * item 4) and check each answer. control gets N writes from a seeded
 * generator: garbage, near-miss commands, binary, NUL, oversized and
 * partial buffers; a write must succeed exactly when its bytes are a valid
 * command (the grammar below mirrors the documented one) and fail with
 * EINVAL otherwise. Every read-only file must refuse every write. Two
 * processes do it at once. Prints one summary line:
 *   badin cases=N accepted=A refused=R wrong=W readonly_refused=K
 * and exits 1 when any answer was wrong.
 *
 *   ptbadin DEBUGFS_DIR N SEED
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33) % n;
}

static const char *const words[] = { "attach", "detach", "freeze", "thaw", "reset",
				     "overwrite", "freeze_on_anomaly", "devcg",
				     "devcg_major" };
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* The documented grammar: one command, surrounding whitespace allowed. */
static int valid(const char *buf, size_t len)
{
	char line[80], *w, *v, *end;
	size_t i, n;
	long m;

	if (len == 0 || len > 64 || memchr(buf, '\0', len))
		return 0;
	memcpy(line, buf, len);
	line[len] = '\0';
	w = line;
	while (isspace((unsigned char)*w))
		w++;
	n = strlen(w);
	while (n && isspace((unsigned char)w[n - 1]))
		w[--n] = '\0';
	if (strpbrk(w, " \t\n\v\f\r"))
		return 0;
	v = strchr(w, '=');
	if (v)
		*v++ = '\0';
	for (i = 0; i < NWORDS; i++) {
		if (strcmp(w, words[i]))
			continue;
		if (i <= 4)
			return !v;
		if (i == 8) {
			if (!v)
				return 0;
			if (!strcmp(v, "all"))
				return 1;
			if (*v == '+')
				v++;
			if (!isdigit((unsigned char)*v))
				return 0;
			errno = 0;
			m = strtol(v, &end, 10);
			return !*end && !errno && m >= 0 && m <= 4095;
		}
		return v && (!strcmp(v, "0") || !strcmp(v, "1"));
	}
	return 0;
}

/* One input: a near-miss of a command, or noise, of 0..200 bytes. */
static size_t generate(char *buf, size_t cap)
{
	static const char noise[] = " \t\n=01234567x_-+all\xff\x01";
	static const char *const vals[] = { "0", "1", "2", "all", "195", "4095",
					    "4096", "-1", "", "01", "1x", "99999999999" };
	const char *w, *v;
	size_t len = 0, n, i;

	switch (rnd(6)) {
	case 0: /* pure noise, binary included */
		n = rnd(cap);
		for (i = 0; i < n; i++)
			buf[i] = (char)rnd(256);
		return n;
	case 1: /* oversized */
		n = 65 + rnd(cap - 65);
		memset(buf, 'a', n);
		return n;
	}
	/* A word, maybe mangled, maybe with a value, maybe padded. */
	if (rnd(3) == 0)
		buf[len++] = noise[rnd(sizeof(noise) - 1)];
	w = words[rnd(NWORDS)];
	memcpy(buf + len, w, strlen(w));
	len += strlen(w);
	if (rnd(4) == 0)
		buf[rnd(len)] = noise[rnd(sizeof(noise) - 1)];
	if (rnd(2)) {
		v = vals[rnd(sizeof(vals) / sizeof(vals[0]))];
		buf[len++] = '=';
		memcpy(buf + len, v, strlen(v));
		len += strlen(v);
	}
	while (rnd(3) == 0 && len < cap)
		buf[len++] = noise[rnd(sizeof(noise) - 1)];
	return len;
}

/*
 * attach, detach and devcg plant or remove probes (a grace period each):
 * a few are exercised, the rest of those near misses are made invalid by
 * one byte, so 10,000 cases take seconds, not an hour under emulation.
 */
static int heavy(const char *buf, size_t len)
{
	static const char *const slow[] = { "attach", "detach", "devcg=" };
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (memmem(buf, len, slow[i], strlen(slow[i])))
			return 1;
	return 0;
}

static int run(const char *dir, unsigned int cases, uint64_t seed, const char *tag)
{
	unsigned int heavy_left = 10;
	static const char *const readonly[] = { "stats", "coverage", "events", "events.bin",
						"pages", "anomalies" };
	unsigned long accepted = 0, refused = 0, wrong = 0, ro_refused = 0;
	char path[256], buf[256];
	unsigned int i;
	size_t len;
	ssize_t w;
	int fd, bad, err;

	rng = seed;
	snprintf(path, sizeof(path), "%s/control", dir);
	for (i = 0; i < cases; i++) {
		len = generate(buf, 200);
		if (valid(buf, len) && heavy(buf, len) && !heavy_left--) {
			heavy_left = 0;
			buf[len++] = '!'; /* no longer one command */
		}
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return perror("open control"), 2;
		w = write(fd, buf, len);
		err = errno; /* valid() below uses strtol, which sets errno */
		close(fd);
		if (w == (ssize_t)len && len > 0) {
			accepted++;
			bad = !valid(buf, len);
		} else {
			refused++;
			/* An empty write may return 0 or EINVAL; anything else is EINVAL. */
			bad = valid(buf, len) || (w < 0 && err != EINVAL && len > 0);
		}
		if (bad && wrong++ < 8)
			fprintf(stderr, "ptbadin: %s case %u: %zd (%s) for %zu bytes '%.*s'\n",
				tag, i, w, w < 0 ? strerror(err) : "ok", len, (int)len, buf);
	}
	for (i = 0; i < sizeof(readonly) / sizeof(readonly[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, readonly[i]);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			ro_refused++;
			continue;
		}
		len = generate(buf, 200);
		w = write(fd, buf, len ? len : 1);
		close(fd);
		if (w < 0)
			ro_refused++;
		else
			fprintf(stderr, "ptbadin: %s accepted a write of %zd bytes\n", readonly[i], w);
	}
	printf("badin %s cases=%u accepted=%lu refused=%lu wrong=%lu readonly_refused=%lu\n", tag,
	       cases, accepted, refused, wrong, ro_refused);
	return wrong || ro_refused != sizeof(readonly) / sizeof(readonly[0]);
}

int main(int argc, char **argv)
{
	unsigned int cases;
	uint64_t seed;
	pid_t pid;
	int st, rc;

	if (argc != 4) {
		fprintf(stderr, "usage: ptbadin DEBUGFS_DIR N SEED\n");
		return 2;
	}
	cases = strtoul(argv[2], NULL, 0);
	seed = strtoull(argv[3], NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Two writers at once: the parser and the actions must not care. */
	pid = fork();
	if (pid == 0)
		_exit(run(argv[1], cases / 2, seed + 1, "child"));
	rc = run(argv[1], cases - cases / 2, seed, "parent");
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = 1;
	return rc;
}
