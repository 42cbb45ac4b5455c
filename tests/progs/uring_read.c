// SPDX-License-Identifier: GPL-2.0
/*
 * uring_read: read a file through io_uring with N reads in flight at once
 * (file position, offset -1), until every read of a round returns 0. A
 * file without FMODE_NOWAIT is read on parallel io-wq workers: this is how
 * pagetrail's `events` meets concurrent readers of one open file.
 * Prints "reads= bytes= lines= bad=": bad counts bytes that are neither
 * printable ASCII nor a newline. Exit 0, 1 on bad bytes or a runaway
 * read, 77 when io_uring is unavailable.
 *
 *   uring_read FILE [INFLIGHT [SIZE]]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_INFLIGHT 64
#define RUNAWAY (256u << 20) /* more than any ring holds as text */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r, unsigned int entries)
{
	struct io_uring_params p;
	void *sq, *cq;
	size_t sq_len, cq_len;

	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -1;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	return 0;
}

static void queue_read(struct ring *r, int fd, char *buf, unsigned int len,
		       unsigned long long tag)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = (unsigned long long)-1; /* the file position */
	sqe->user_data = tag;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 2 ? (unsigned int)atoi(argv[2]) : 8;
	unsigned int size = argc > 3 ? (unsigned int)atoi(argv[3]) : 100;
	unsigned long long reads = 0, bytes = 0, lines = 0, bad = 0;
	static char bufs[MAX_INFLIGHT][4096];
	struct ring r;
	unsigned int i, got;
	int fd, eof = 0;

	if (argc < 2 || !n || n > MAX_INFLIGHT || !size || size > 4096) {
		fprintf(stderr, "usage: uring_read FILE [INFLIGHT<=64 [SIZE<=4096]]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	if (ring_init(&r, MAX_INFLIGHT)) {
		printf("io_uring unavailable: %s\n", strerror(errno));
		return 77;
	}
	while (!eof && bytes < RUNAWAY) {
		for (i = 0; i < n; i++)
			queue_read(&r, fd, bufs[i], size, i);
		if (syscall(__NR_io_uring_enter, r.fd, n, n,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
			perror("io_uring_enter");
			return 2;
		}
		eof = 1;
		for (got = 0; got < n;) {
			unsigned int head = *r.cq_head;
			struct io_uring_cqe *cqe;

			if (head == __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE)) {
				syscall(__NR_io_uring_enter, r.fd, 0, 1,
					IORING_ENTER_GETEVENTS, NULL, 0);
				continue;
			}
			cqe = &r.cqes[head & *r.cq_mask];
			if (cqe->res < 0) {
				fprintf(stderr, "read: %s\n", strerror(-cqe->res));
				return 2;
			}
			reads++;
			bytes += (unsigned int)cqe->res;
			eof &= cqe->res == 0;
			for (i = 0; i < (unsigned int)cqe->res; i++) {
				char c = bufs[cqe->user_data][i];

				lines += c == '\n';
				bad += c != '\n' && (c < ' ' || c > '~');
			}
			__atomic_store_n(r.cq_head, head + 1, __ATOMIC_RELEASE);
			got++;
		}
	}
	printf("reads=%llu bytes=%llu lines=%llu bad=%llu\n", reads, bytes, lines,
	       bad);
	return bad || bytes >= RUNAWAY;
}
