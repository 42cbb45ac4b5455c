// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder's merge (module/ring.c itself) with threads as CPUs:
 * writers take numbers from one atomic and publish their records a little
 * later (a spin inside the section widens the window), one reader merges.
 * Prints one line of counts (streamed: read while the writers ran; max_gap:
 * the longest wait for a record then); ring_model.sh holds the checks.
 *
 *   ring_model overwrite|stop CPUS WRITERS SLOTS MILLISECONDS SPIN
 */
#ifndef RING_C
#define RING_C "../../module/ring.c"
#endif
#include RING_C
#include "../../module/ring_account.c"
#include <stdio.h>
#include <time.h>

#ifdef PT_RING_OLD_API /* the ring before its read limit: no sections */
void pt_ring_enter(u64 floor)
{
	(void)floor;
}
void pt_ring_leave(void)
{
}
#define pt_ring_init(bytes, overwrite, issued) pt_ring_init(bytes, overwrite)
#endif

int pt_shim_nr_cpus;
__thread int pt_shim_cpu;
pthread_mutex_t pt_shim_irq[NR_CPUS];

static u64 model_seq;
static int model_stop;
static unsigned int model_spin;

static u64 model_issued(void)
{
	return __atomic_load_n(&model_seq, __ATOMIC_SEQ_CST);
}

struct model_writer {
	pthread_t thread;
	int cpu;
	u64 written;
};

/* One CPU: each record a section with "IRQs off", as the recorder does. */
static void *model_write(void *arg)
{
	struct model_writer *w = arg;
	unsigned int i;

	pt_shim_cpu = w->cpu;
	while (!__atomic_load_n(&model_stop, __ATOMIC_RELAXED)) {
		struct pagetrail_record rec;

		memset(&rec, 0, sizeof(rec));
		pthread_mutex_lock(&pt_shim_irq[w->cpu]);
		/* The recorder's floor: the last number handed out, plus one. */
		pt_ring_enter(model_issued() + 1);
		rec.seq = __atomic_add_fetch(&model_seq, 1, __ATOMIC_SEQ_CST);
		rec.pfn = rec.seq * 3;
		for (i = 0; i < model_spin; i++)
			__asm__ volatile("" ::: "memory");
		pt_ring_write(&rec);
		pt_ring_leave();
		pthread_mutex_unlock(&pt_shim_irq[w->cpu]);
		w->written++;
	}
	return NULL;
}

static u64 now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000 + (u64)ts.tv_nsec / 1000;
}

struct model_reader {
	u64 read, last, backwards, torn;
};

static bool model_read_one(struct model_reader *r)
{
	struct pagetrail_record rec;

	if (!pt_ring_read(&rec))
		return false;
	r->backwards += rec.seq <= r->last;
	r->torn += rec.pfn != rec.seq * 3;
	r->last = rec.seq;
	r->read++;
	return true;
}

int main(int argc, char **argv)
{
	static struct model_writer w[NR_CPUS];
	struct model_reader r = { 0 };
	struct pt_ring_stats st;
	u64 end, t, last_got, max_gap = 0, written = 0, streamed;
	int i, nw;

	if (argc != 7) {
		fprintf(stderr,
			"usage: ring_model overwrite|stop CPUS WRITERS SLOTS MILLISECONDS SPIN\n");
		return 2;
	}
	pt_shim_nr_cpus = atoi(argv[2]);
	nw = atoi(argv[3]);
	model_spin = (unsigned int)atoi(argv[6]);
	if (pt_shim_nr_cpus < 1 || pt_shim_nr_cpus > NR_CPUS || nw < 1 ||
	    nw > pt_shim_nr_cpus)
		return 2;
	for (i = 0; i < NR_CPUS; i++)
		pthread_mutex_init(&pt_shim_irq[i], NULL);
	if (pt_ring_init((unsigned long)atoi(argv[4]) *
				 sizeof(struct pagetrail_record),
			 !strcmp(argv[1], "overwrite"), model_issued))
		return 2;
	/* Writers spread over the CPUs, so the reader scans idle ones between. */
	for (i = 0; i < nw; i++) {
		w[i].cpu = i * (pt_shim_nr_cpus / nw);
		pthread_create(&w[i].thread, NULL, model_write, &w[i]);
	}
	last_got = now_us();
	end = last_got + (u64)atoi(argv[5]) * 1000;
	while ((t = now_us()) < end) {
		if (model_read_one(&r)) {
			t = now_us();
			if (t - last_got > max_gap)
				max_gap = t - last_got;
			last_got = t;
		}
	}
	streamed = r.read;
	__atomic_store_n(&model_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nw; i++) {
		pthread_join(w[i].thread, NULL);
		written += w[i].written;
	}
	while (model_read_one(&r))
		;
	pt_ring_get_stats(&st);
	printf("written=%llu produced=%llu read=%llu streamed=%llu lost=%llu unaccounted=%lld backwards=%llu torn=%llu max_gap_us=%llu\n",
	       (unsigned long long)written, (unsigned long long)st.produced,
	       (unsigned long long)r.read, (unsigned long long)streamed,
	       (unsigned long long)pt_ring_lost(&st),
	       (long long)pt_ring_unaccounted(&st),
	       (unsigned long long)r.backwards, (unsigned long long)r.torn,
	       (unsigned long long)max_gap);
	return 0;
}
