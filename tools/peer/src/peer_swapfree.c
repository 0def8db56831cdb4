/*
 * swapfree: munmap bandwidth of swapped-out anonymous memory on zram. K
 * processes, one per CPU, each in its own mm, map their share of
 * swapfree_mb, fill it, swap it out (MADV_PAGEOUT, checked with mincore()),
 * then unmap it together (timed; the slowest counts). Linux 6.1 frees each
 * 4 KiB slot on its own (free_swap_and_cache per PTE): mmlab's "naive"
 * design with folio_pages=1.
 */
#define _GNU_SOURCE
#include "peer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SF_SLOT_CACHE_KB (2 * 64 * 4) /* per CPU: see the comment above */

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

struct sf_report {
	uint64_t cycles;
	long resident; /* pages mincore() found resident after MADV_PAGEOUT */
	long swap_kb;  /* the mm's swap entries (VmSwap) before the unmap */
	int err;       /* errno of a failed mmap or madvise */
};

/* A child's life: prepare, say ready, wait for go, unmap (timed), report. */
static void sf_child(int cpu, size_t len, int up, int down)
{
	struct sf_report rep = { 0 };
	char go, *p;
	uint64_t t0;

	peer_pin_cpu(cpu);
	p = peer_map_4k(len);
	if (p == MAP_FAILED)
		rep.err = errno;
	if (!rep.err) {
		memset(p, 0x11, len);
		if (madvise(p, len, MADV_PAGEOUT))
			rep.err = errno;
		rep.resident = peer_resident_pages(p, len);
		rep.swap_kb = peer_proc_kb("/proc/self/status", "VmSwap");
	}
	if (write(up, &rep, sizeof(rep)) != sizeof(rep) || read(down, &go, 1) != 1)
		_exit(1);
	t0 = peer_rdtsc();
	if (!rep.err)
		munmap(p, len);
	rep.cycles = peer_rdtsc() - t0;
	_exit(write(up, &rep, sizeof(rep)) == sizeof(rep) ? 0 : 1);
}

/* Reads every child's first report; the error text of the first bad one, or NULL. */
static const char *sf_ready(int cpus, int *up, struct sf_report *rep, size_t len)
{
	static char why[128];

	for (int i = 0; i < cpus; i++) {
		if (read(up[i], &rep[i], sizeof(rep[i])) != sizeof(rep[i]))
			return "a child process died before it was ready";
		if (rep[i].err) {
			snprintf(why, sizeof(why), "mmap or MADV_PAGEOUT failed: %s",
				 strerror(rep[i].err));
			return why;
		}
		if (rep[i].resident) {
			snprintf(why, sizeof(why), "%ld pages still resident after MADV_PAGEOUT",
				 rep[i].resident);
			return why;
		}
		if (rep[i].swap_kb != (long)(len / 1024)) {
			snprintf(why, sizeof(why), "VmSwap %ld kB after MADV_PAGEOUT of %zu kB",
				 rep[i].swap_kb, len / 1024);
			return why;
		}
	}
	return NULL;
}

/* One run on cpus processes: bytes per ms, or why it failed. */
static const char *sf_run(int cpus, double *bytes_per_ms)
{
	size_t len = (size_t)peer_opts.swapfree_mb * 1024 * 1024 / cpus / PEER_PAGE * PEER_PAGE;
	int up[PEER_MAX_LIST], down[2], fds[2];
	struct sf_report rep[PEER_MAX_LIST];
	const char *why;
	uint64_t slowest = 0;

	if (pipe(down))
		return "pipe failed";
	for (int i = 0; i < cpus; i++) {
		if (pipe(fds))
			return "pipe failed";
		if (fork() == 0)
			sf_child(i, len, fds[1], down[0]);
		close(fds[1]);
		up[i] = fds[0];
	}
	why = sf_ready(cpus, up, rep, len);
	for (int i = 0; i < cpus; i++)
		if (write(down[1], "g", 1) != 1)
			why = "cannot release the children";
	for (int i = 0; i < cpus; i++) {
		if (read(up[i], &rep[i], sizeof(rep[i])) != sizeof(rep[i]) && !why)
			why = "a child process died while unmapping";
		slowest = rep[i].cycles > slowest ? rep[i].cycles : slowest;
		close(up[i]);
	}
	close(down[0]);
	close(down[1]);
	while (wait(NULL) > 0)
		;
	*bytes_per_ms = slowest ? len * cpus * peer_opts.tsc_hz / 1000.0 / slowest : 0;
	return why;
}

/*
 * An episode: warm-up runs and a timed one, then the swap device must be as
 * before, but for Linux's per-CPU swap slot caches (mm/swap_slots.c): up to
 * SWAP_SLOTS_CACHE_SIZE slots allocated ahead and as many freed but not yet
 * returned, per CPU, which SwapFree counts as used either way (a run may
 * return what an earlier one left in a cache).
 */
static const char *sf_episode(int cpus, double *v)
{
	static char why[128];
	long free0 = peer_meminfo_kb("SwapFree"), free1;
	const char *err = NULL;

	for (int w = 0; w <= peer_opts.warmup && !err; w++)
		err = sf_run(cpus, v);
	free1 = peer_meminfo_kb("SwapFree");
	if (!err && labs(free1 - free0) > SF_SLOT_CACHE_KB * peer_opts.ncpus) {
		snprintf(why, sizeof(why),
			 "swap free %ld kB after the unmaps, %ld kB before "
			 "(the slot caches hold at most %d kB)",
			 free1, free0, SF_SLOT_CACHE_KB * peer_opts.ncpus);
		err = why;
	}
	return err;
}

static void sf_case(int cpus)
{
	static struct peer_series s;
	char extra[96];
	struct peer_case c = { .bench = "swapfree",
			       .metric = "bytes_per_ms",
			       .unit = "bytes/ms",
			       .better = "higher",
			       .cpus = cpus,
			       .extra = extra,
			       .ops_per_run = peer_opts.swapfree_mb * 1024 * 1024 };
	const char *why = NULL;
	double v = 0;

	snprintf(c.params, sizeof(c.params), "\"folio_pages\":1");
	snprintf(c.label, sizeof(c.label), "folio_pages=1");
	snprintf(extra, sizeof(extra), ",\"mb\":%ld,\"folio_kb\":4,\"swap_device\":\"zram\"",
		 peer_opts.swapfree_mb);
	peer_series_init(&s, "naive");
	printf("# bench swapfree cpus=%d folio_pages=1: %ld MiB swapped out to zram, then unmapped;"
	       " %d timed runs, each after %d warm-up\n",
	       cpus, peer_opts.swapfree_mb, peer_opts.iters, peer_opts.warmup);
	for (int r = 0; r < peer_opts.iters && !why; r++) {
		why = sf_episode(cpus, &v);
		if (!why)
			peer_series_add(&s, v, r, NULL);
	}
	if (why)
		peer_fail(&c, "naive", "%s", why);
	else
		peer_emit(&c, &s);
}

/* swapfree at every CPU count of cpus=, or a skip when there is no swap. */
int peer_swapfree(void)
{
	int before = peer_failed;

	if (peer_meminfo_kb("SwapTotal") <= 0) {
		peer_skip("swapfree", "no swap device (the zram module did not load?)");
		return 0;
	}
	for (int i = 0; i < peer_opts.ncpus_list; i++)
		sf_case(peer_opts.cpus[i]);
	return peer_failed == before ? 0 : -1;
}
