/*
 * tlb: P touched anonymous 4 KiB pages dropped with MADV_DONTNEED, one
 * call per page ("naive": a flush per call) or one call for all P
 * ("batched": Linux's mmu_gather flushes once per call), while a reader
 * thread on each other CPU of the case keeps the mm live there, reading
 * the 32 pages that follow the P (never dropped, so it never faults), as
 * mmlab's remote=busy readers do. The shootdown IPIs are the
 * /proc/interrupts "TLB" row, summed over CPUs, around each timed call.
 * The variants alternate run by run; the main thread runs on CPU 0.
 * Each reader is created with its CPU already its affinity and says, with
 * sched_getcpu(), that it runs there before any run is timed; a run whose
 * TLB interrupts miss a reader (peer_check.c) is rejected, counted in the
 * line's rejected_runs, and run again.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define TLB_READ_PAGES 32 /* mmlab's reader working set in the mapping */
#define TLB_RETRIES 5	  /* rejected runs of one episode before the variant fails */
#define TLB_READY_SPINS 2000000000L /* sched_yield()s to wait for the readers' handshake */

struct tlb_reader {
	pthread_t thread;
	int cpu;
	volatile char *base;
	volatile int *stop;
	volatile int running_on; /* sched_getcpu() once started; -1 before */
	unsigned long sink;
};

static void *tlb_reader_main(void *arg)
{
	struct tlb_reader *r = arg;
	unsigned long sink = 0;

	__atomic_store_n(&r->running_on, sched_getcpu(), __ATOMIC_RELEASE);
	while (!*r->stop)
		for (int i = 0; i < TLB_READ_PAGES; i++)
			sink += r->base[i * PEER_PAGE];
	r->sink = sink;
	return NULL;
}

/*
 * One timed drop of pages pages; cycles per page and shootdown IRQs per
 * page, and the process's transparent huge pages once they are touched.
 */
static int tlb_run(char *base, long pages, int batched, double *out, long *irqs, long *huge)
{
	long before, after;
	uint64_t t0, t1;
	int rc = 0;

	for (long i = 0; i < pages; i++)
		base[i * PEER_PAGE] = 1;
	*huge = peer_proc_kb("/proc/self/smaps_rollup", "AnonHugePages");
	before = peer_proc_interrupts("TLB");
	t0 = peer_rdtsc();
	if (batched)
		rc = madvise(base, pages * PEER_PAGE, MADV_DONTNEED);
	for (long i = 0; !batched && i < pages && !rc; i++)
		rc = madvise(base + i * PEER_PAGE, PEER_PAGE, MADV_DONTNEED);
	t1 = peer_rdtsc();
	after = peer_proc_interrupts("TLB");
	if (rc)
		return -errno;
	*out = (double)(t1 - t0) / pages;
	*irqs = before < 0 || after < 0 ? -1 : after - before;
	return 0;
}

/* One episode: warm-up runs, then the timed one. 0, or why it failed. */
static const char *tlb_episode(char *base, long pages, int batched, double *v, long *irqs)
{
	static char why[96];
	long left, huge = 0;
	int rc = 0;

	for (int w = 0; w <= peer_opts.warmup && !rc && huge <= 0; w++)
		rc = tlb_run(base, pages, batched, v, irqs, &huge);
	if (rc) {
		snprintf(why, sizeof(why), "madvise(MADV_DONTNEED) failed: %s", strerror(-rc));
		return why;
	}
	if (huge > 0) {
		snprintf(why, sizeof(why), "%ld kB of transparent huge pages: not 4 KiB pages",
			 huge);
		return why;
	}
	left = peer_resident_pages(base, pages * PEER_PAGE);
	if (left != 0) {
		snprintf(why, sizeof(why), "%ld of %ld pages still resident after MADV_DONTNEED",
			 left, pages);
		return why;
	}
	return NULL;
}

/*
 * One episode that counts: run again while the TLB interrupts miss a
 * reader, each such run rejected and counted in s->rejected. 0, or why not.
 */
static const char *tlb_checked_episode(const struct peer_case *c, char *base, long pages,
				       int batched, struct peer_series *s, double *v, double *per)
{
	static char why[128];
	long irqs = 0;

	for (int t = 0; t < TLB_RETRIES; t++) {
		const char *fail = tlb_episode(base, pages, batched, v, &irqs);

		if (fail)
			return fail;
		*per = irqs < 0 ? 0 : (double)irqs / pages;
		if (irqs < 0 || peer_tlb_irqs_ok(irqs, c->cpus, pages, batched))
			return NULL;
		s->rejected++;
		printf("# bench tlb %s cpus=%d %s: run rejected: %ld TLB interrupts, want at "
		       "least %ld\n", s->variant, c->cpus, c->label, irqs,
		       peer_tlb_irqs_expected(c->cpus, pages, batched));
	}
	snprintf(why, sizeof(why), "%d runs in a row missed a reader's TLB interrupt",
		 TLB_RETRIES);
	return why;
}

static void tlb_rounds(struct peer_case *c, char *base, long pages, struct peer_series *s)
{
	int failed[2] = { 0, 0 }, seq = 0;

	for (int r = 0; r < peer_opts.iters; r++) {
		for (int k = 0; k < 2; k++) {
			int batched = (r + k) % 2; /* who goes first alternates */
			double v = 0, irqs = 0;
			const char *why;

			if (failed[batched])
				continue;
			why = tlb_checked_episode(c, base, pages, batched, &s[batched], &v, &irqs);
			if (why) {
				peer_fail(c, s[batched].variant, "%s (timed run %d)", why, r + 1);
				failed[batched] = 1;
				continue;
			}
			peer_series_add(&s[batched], v, seq++, &irqs);
		}
	}
	for (int b = 0; b < 2; b++)
		if (!failed[b])
			peer_emit(c, &s[b]);
}

/* Start a reader per other CPU, each created on its CPU; how many started. */
static int tlb_start_readers(struct tlb_reader *readers, int n, char *base,
			     volatile int *stop)
{
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		cpu_set_t set;
		int rc;

		readers[i] = (struct tlb_reader){ .cpu = i + 1, .stop = stop, .base = base,
						  .running_on = -1 };
		CPU_ZERO(&set);
		CPU_SET(i + 1, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		rc = pthread_create(&readers[i].thread, &attr, tlb_reader_main, &readers[i]);
		pthread_attr_destroy(&attr);
		if (rc)
			return i;
	}
	return n;
}

/*
 * The handshake before timing: every reader says it runs on its own CPU.
 * NULL, or why not (the caller fails the case).
 */
static const char *tlb_readers_ready(struct tlb_reader *readers, int n)
{
	static char why[96];

	for (int i = 0; i < n; i++) {
		int on = -1;

		for (long spin = 0; on < 0 && spin < TLB_READY_SPINS; spin++) {
			on = __atomic_load_n(&readers[i].running_on, __ATOMIC_ACQUIRE);
			if (on < 0)
				sched_yield();
		}
		if (on != readers[i].cpu) {
			snprintf(why, sizeof(why), "the reader for CPU %d runs on CPU %d",
				 readers[i].cpu, on);
			return why;
		}
		printf("# bench tlb: reader %d running on CPU %d\n", i + 1, on);
	}
	return NULL;
}

static int tlb_case(int cpus, long pages)
{
	static struct peer_series s[2];
	struct tlb_reader readers[PEER_MAX_LIST];
	volatile int stop = 0;
	struct peer_case c = { .bench = "tlb",
			       .metric = "cycles_per_page",
			       .unit = "cycles",
			       .better = "lower",
			       .cpus = cpus,
			       .ops_per_run = pages,
			       .cycles = 1 };
	size_t len = (pages + TLB_READ_PAGES) * PEER_PAGE;
	char *base = peer_map_4k(len);
	int before = peer_failed, started;
	const char *why;

	snprintf(c.params, sizeof(c.params), "\"pages\":%ld,\"remote\":\"busy\"", pages);
	snprintf(c.label, sizeof(c.label), "pages=%ld remote=busy", pages);
	if (pages == 1)
		c.control_why = "pages=1: both variants make one call";
	if (base == MAP_FAILED) {
		peer_fail(&c, "naive", "mmap of %zu bytes failed: %s", len, strerror(errno));
		return -1;
	}
	memset(base + pages * PEER_PAGE, 1, TLB_READ_PAGES * PEER_PAGE);
	started = tlb_start_readers(readers, cpus - 1, base + pages * PEER_PAGE, &stop);
	peer_series_init(&s[0], "naive");
	peer_series_init(&s[1], "batched");
	for (int b = 0; b < 2; b++) {
		s[b].counter_names[0] = "tlb_shootdown_irqs_per_op";
		s[b].ncounters = 1;
		s[b].count_rejects = 1;
	}
	printf("# bench tlb cpus=%d pages=%ld remote=busy: naive (one madvise per page) and "
	       "batched (one for all) alternate run by run, %d timed runs each\n",
	       cpus, pages, peer_opts.iters);
	why = started < cpus - 1 ? "a reader thread could not be created"
				 : tlb_readers_ready(readers, cpus - 1);
	if (why)
		peer_fail(&c, "naive", "%s", why);
	else
		tlb_rounds(&c, base, pages, s);
	stop = 1;
	for (int i = 0; i < started; i++)
		pthread_join(readers[i].thread, NULL);
	munmap(base, len);
	return peer_failed == before ? 0 : -1;
}

/* Every (cpus, pages) case of the tlb workload. */
int peer_tlb(void)
{
	int rc = 0;

	for (int i = 0; i < peer_opts.ncpus_list; i++)
		for (int j = 0; j < peer_opts.npages; j++)
			rc |= tlb_case(peer_opts.cpus[i], peer_opts.pages[j]);
	return rc;
}
