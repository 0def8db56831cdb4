/*
 * The fixture the swap tests share (tests/mm/swap/test_swap_fixture.c): devices
 * made for one case and torn down after it, page patterns with checksums,
 * per-CPU counter deltas, and running a function on several CPUs (idle CPUs
 * in the kernel, threads acting as fake CPUs on the host). Suites run on one
 * CPU; only swapt_run_cpus() uses others.
 */
#ifndef TESTS_TEST_SWAP_H
#define TESTS_TEST_SWAP_H

#include "kernel/percpu.h"
#include "mm/swap/swap.h"
#include "tests/ktest.h"

/* Most CPUs (host threads) swapt_run_cpus() uses. */
#define SWAPT_MAX_CPUS 8
/* How long swapt_run_cpus() lets jobs run before it stops them. */
#define SWAPT_WAIT_MS 120000

/* Suite init/exit: host gets a fresh frame allocator on fake CPU 0; exit tears down devices. */
int swapt_init(struct ktest *t);
void swapt_exit(struct ktest *t);

/* swap_on_ram(@nslots) for this case (swapt_exit drains and removes it). False on failure. */
bool swapt_dev_new(struct ktest *t, u64 nslots, unsigned *type);

/* Drops every reference and cache flag left on @type, then returns swap_off(@type). */
int swapt_dev_drain(unsigned type);

/* KEXPECTs that @type passes swap_check_consistency(), logging the fault. */
bool swapt_expect_consistent(struct ktest *t, unsigned type);

/* This CPU's counter @c (deltas around an operation give its exact lock round trips). */
u64 swapt_counter(const struct pcpu_counter *c);

/* Fills a 4 KiB page with a pattern derived from @seed (never one repeated word). */
void swapt_fill(void *page, u64 seed);

/* A checksum of a 4 KiB page (FNV-1a over its words). */
u64 swapt_checksum(const void *page);

/* A 4 KiB buffer from the frame allocator (NULL if none), and its release. */
void *swapt_page_alloc(void);
void swapt_page_free(void *page);

/* Free frames now (mm/pmm.h), to show that a device gave back all it took. */
u64 swapt_pmm_free(void);

/*
 * Runs @fn(@arg, idx) for idx 0..@n-1 on @n different CPUs at once and
 * returns when all are done: in the kernel idx 0 is this CPU and the rest
 * are idle online CPUs in task context; on the host each idx is a thread
 * with fake CPU id idx. Returns @n, or 0 if that many CPUs are not there
 * or the jobs had to be stopped (see swapt_stopping()).
 */
unsigned swapt_run_cpus(unsigned n, void (*fn)(void *arg, unsigned idx), void *arg);

/*
 * True once swapt_run_cpus() has waited too long (SWAPT_WAIT_MS, a slow
 * emulator): long jobs check it and return early; the run then counts as
 * failed.
 */
bool swapt_stopping(void);

/* CPUs swapt_run_cpus() can use: online CPUs in the kernel, SWAPT_MAX_CPUS on the host. */
unsigned swapt_cpus_available(void);

#endif
