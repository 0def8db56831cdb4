/*
 * Readers of a file-like mapping for the reclaim bench, as in Mel Gorman's
 * lru-file-mmap-read: one per remote CPU (smp_run_async(), task context,
 * interrupts on). Each pass, every reader reads every page of the range,
 * faulting back in what reclaim swapped out, checks each page's tag and times
 * its work on its own TSC. Boot CPU only for every call below.
 */
#ifndef BENCH_FILE_READERS_H
#define BENCH_FILE_READERS_H

#include "types.h"

struct bench_ctx;

/* The tag page @i of a file-like range holds in its first word: a reader counts any other value. */
static inline u64 file_page_tag(unsigned i)
{
	return 0x66696c6500000000ull | i; /* "file" and the page's index */
}

/*
 * Starts a reader on c->cpu[1..c->ncpus-1] (the mapping at @base loaded,
 * idle CPUs), each to read @pages pages @passes times per pass opened.
 * Every few reads a reader asks @throttled() (any CPU, lock-free) and
 * waits while it says so, as a task in direct reclaim would: how much
 * stays resident is then the reclaimer's bound, not the host scheduler's.
 * Returns 0, or an error with none left running.
 */
int file_readers_start(const struct bench_ctx *c, vaddr_t base, unsigned pages, unsigned passes,
		       bool (*throttled)(void));

/* Stops the readers (after any pass under way) and waits until each has left. 0 or -ETIMEDOUT. */
int file_readers_stop(void);

/* Opens a pass: every reader starts its fixed work. No waiting. */
void file_readers_go(void);

/* Whether every reader finished the pass opened last. */
bool file_readers_done(void);

/* Waits (pausing) until file_readers_done(). 0 or -ETIMEDOUT. */
int file_readers_wait(void);

/* The readers' own cycles for the last pass, summed over the readers (after the wait). */
u64 file_readers_cycles(void);

/* Reads whose word was not the page's tag, every reader since file_readers_start(). */
u64 file_readers_wrong(void);

/*
 * The reuse probe, which watches from the targets' side whether a frame
 * can be handed on while a target's TLB still reaches it. arm: every
 * reader turns its interrupts off (so a shootdown IPI waits), reads the
 * first word of the @pages pages at @base (caching their translations)
 * and waits, until released or until @window_cycles passed (then it takes
 * the pending IPIs: a design that waits for them goes on).
 * Returns once every reader has read them once: 0 or -ETIMEDOUT.
 * release: the caller has swapped the pages out and written a new owner's
 * word into the frames it got back from the allocator; a reader still in
 * its window reads them once more. wait: until every reader is done;
 * *@wrong: reads that found anything but the pages' tags. 0 or -ETIMEDOUT.
 */
int file_readers_probe_arm(vaddr_t base, unsigned pages, u64 window_cycles);
void file_readers_probe_release(void);
int file_readers_probe_wait(u64 *wrong);

#endif
