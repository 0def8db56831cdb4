/*
 * tlb: P touched anonymous 4 KiB pages dropped with MADV_DONTNEED, one
 * call per page ("naive": a flush per call) or one call for all P
 * ("batched": Linux's mmu_gather flushes once per call), while a reader
 * thread on each other CPU of the case keeps the mm live there, reading
 * the 32 pages that follow the P (never dropped, so it never faults), as
 * mmlab's remote=busy readers do. The shootdown IPIs are the
 * /proc/interrupts "TLB" row, summed over CPUs, around each timed call.
 * The variants alternate run by run; the main thread runs on CPU 0.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define TLB_READ_PAGES 32 /* mmlab's reader working set in the mapping */

struct tlb_reader {
	pthread_t thread;
	int cpu;
	volatile char *base;
	volatile int *stop;
	unsigned long sink;
};

static void *tlb_reader_main(void *arg)
{
	struct tlb_reader *r = arg;
	unsigned long sink = 0;

	peer_pin_cpu(r->cpu);
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
static int tlb_run(char *base, long pages, int batched, double *out, double *irqs, long *huge)
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
	*irqs = before < 0 || after < 0 ? 0 : (double)(after - before) / pages;
	return 0;
}

/* One episode: warm-up runs, then the timed one. 0, or why it failed. */
static const char *tlb_episode(char *base, long pages, int batched, double *v, double *irqs)
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
			why = tlb_episode(base, pages, batched, &v, &irqs);
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
	int before = peer_failed;

	snprintf(c.params, sizeof(c.params), "\"pages\":%ld,\"remote\":\"busy\"", pages);
	snprintf(c.label, sizeof(c.label), "pages=%ld remote=busy", pages);
	if (pages == 1)
		c.control_why = "pages=1: both variants make one call";
	if (base == MAP_FAILED) {
		peer_fail(&c, "naive", "mmap of %zu bytes failed: %s", len, strerror(errno));
		return -1;
	}
	memset(base + pages * PEER_PAGE, 1, TLB_READ_PAGES * PEER_PAGE);
	for (int i = 0; i < cpus - 1; i++) {
		readers[i] = (struct tlb_reader){ .cpu = i + 1,
						  .stop = &stop,
						  .base = base + pages * PEER_PAGE };
		pthread_create(&readers[i].thread, NULL, tlb_reader_main, &readers[i]);
	}
	peer_series_init(&s[0], "naive");
	peer_series_init(&s[1], "batched");
	for (int b = 0; b < 2; b++) {
		s[b].counter_names[0] = "tlb_shootdown_irqs_per_op";
		s[b].ncounters = 1;
	}
	printf("# bench tlb cpus=%d pages=%ld remote=busy: naive (one madvise per page) and "
	       "batched (one for all) alternate run by run, %d timed runs each\n",
	       cpus, pages, peer_opts.iters);
	tlb_rounds(&c, base, pages, s);
	stop = 1;
	for (int i = 0; i < cpus - 1; i++)
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
