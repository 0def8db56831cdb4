/*
 * faultlock: anonymous write faults per second on K threads, one per CPU,
 * each writing fault_pages pages of its own region once (mmlab's demand-zero
 * case). The threads share one mm, so every fault takes its mmap_lock read
 * side (Linux 6.1 has no per-VMA locks): the shape of mmlab's "naive" design.
 * A run's time is the slowest thread's, from a common barrier; mapping and
 * unmapping are outside it.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

struct fl_thread {
	pthread_t thread;
	int cpu;
	char *region;
	pthread_barrier_t *start;
	uint64_t cycles;
};

static void *fl_thread_main(void *arg)
{
	struct fl_thread *t = arg;
	uint64_t t0;

	peer_pin_cpu(t->cpu);
	pthread_barrier_wait(t->start);
	t0 = peer_rdtsc();
	for (long i = 0; i < peer_opts.fault_pages; i++)
		t->region[i * PEER_PAGE] = (char)(i | 1);
	t->cycles = peer_rdtsc() - t0;
	return NULL;
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* One run on cpus threads: faults per second, and faults counted per page written. */
static int fl_run(int cpus, double *rate, double *faults)
{
	struct fl_thread t[PEER_MAX_LIST];
	pthread_barrier_t start;
	size_t len = peer_opts.fault_pages * PEER_PAGE;
	uint64_t slowest = 0;
	long f0;
	int rc = 0;

	for (int i = 0; i < cpus; i++) {
		t[i] = (struct fl_thread){ .cpu = i, .start = &start };
		t[i].region = peer_map_4k(len);
		if (t[i].region == MAP_FAILED)
			return -ENOMEM;
	}
	pthread_barrier_init(&start, NULL, cpus);
	f0 = minor_faults();
	for (int i = 1; i < cpus; i++)
		pthread_create(&t[i].thread, NULL, fl_thread_main, &t[i]);
	fl_thread_main(&t[0]);
	for (int i = 1; i < cpus; i++)
		pthread_join(t[i].thread, NULL);
	*faults = (double)(minor_faults() - f0) / (cpus * peer_opts.fault_pages);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < cpus; i++) {
		for (long p = 0; p < peer_opts.fault_pages; p++)
			rc |= t[i].region[p * PEER_PAGE] != (char)(p | 1);
		slowest = t[i].cycles > slowest ? t[i].cycles : slowest;
		munmap(t[i].region, len);
	}
	*rate = cpus * peer_opts.fault_pages * peer_opts.tsc_hz / (double)slowest;
	return rc ? -EIO : 0;
}

static void fl_case(int cpus)
{
	static struct peer_series s;
	struct peer_case c = { .bench = "faultlock",
			       .metric = "faults_per_sec",
			       .unit = "faults/s",
			       .better = "higher",
			       .cpus = cpus,
			       .ops_per_run = cpus * peer_opts.fault_pages };
	double rate = 0, faults = 0;
	int rc = 0;

	snprintf(c.params, sizeof(c.params),
		 "\"fault\":\"demand-zero\",\"pages\":%ld,\"region\":\"private\"",
		 peer_opts.fault_pages);
	snprintf(c.label, sizeof(c.label), "fault=demand-zero pages=%ld region=private",
		 peer_opts.fault_pages);
	peer_series_init(&s, "naive");
	s.counter_names[0] = "faults_per_op";
	s.ncounters = 1;
	printf("# bench faultlock cpus=%d %s: %d timed runs, each after %d warm-up\n", cpus,
	       c.label, peer_opts.iters, peer_opts.warmup);
	for (int r = 0; r < peer_opts.iters && !rc; r++) {
		for (int w = 0; w <= peer_opts.warmup && !rc; w++)
			rc = fl_run(cpus, &rate, &faults);
		if (!rc)
			peer_series_add(&s, rate, r, &faults);
	}
	if (rc)
		peer_fail(&c, "naive", "%s",
			  rc == -EIO ? "a written page lost its value"
				     : "mmap failed: out of memory");
	else
		peer_emit(&c, &s);
}

/* faultlock at every CPU count of cpus=. */
int peer_faultlock(void)
{
	int before = peer_failed;

	for (int i = 0; i < peer_opts.ncpus_list; i++)
		fl_case(peer_opts.cpus[i]);
	return peer_failed == before ? 0 : -1;
}
