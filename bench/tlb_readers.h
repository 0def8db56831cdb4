/*
 * Busy readers for the tlb bench (remote=busy), as in Gorman's
 * lru-file-mmap-read: one per remote CPU (smp_run_async(): task context,
 * interrupts on, so it answers shootdown IPIs), reading the part of the
 * mapping that stays mapped, so it never faults, and a private region. They
 * count reads and cycles per window (baseline, timed) the boot CPU opens.
 * Boot CPU only for every call below, interrupts on.
 */
#ifndef BENCH_TLB_READERS_H
#define BENCH_TLB_READERS_H

#include "bench/read_loss.h"
#include "types.h"

struct bench_ctx;
struct mm;

/*
 * The direct-mapped TLB the readers' sets are laid out for: the smallest a
 * TCG vCPU's has. Each reader's private set starts at the entry after the
 * shared set's last (tlb_readers_priv()), so a set of at most this many
 * pages never evicts itself.
 */
#define TLB_READERS_DM_ENTRIES 64

/*
 * Where reader @idx (1..ncpus-1) reads: @nshared pages at @shared, @npriv
 * from tlb_readers_priv() (its private base, coloured).
 */
struct tlb_readers_layout {
	vaddr_t shared;
	unsigned nshared;
	vaddr_t priv_base; /* reader idx's private pages start at priv_base + idx * priv_stride */
	u64 priv_stride;
	unsigned npriv;
	/*
	 * Each shared page's first word holds its own address: a reader counts
	 * every other value it reads there (tlb_readers_wrong()).
	 */
	bool check_shared;
};

/*
 * Starts a reader on c->cpu[1..c->ncpus-1] (which must have the mapping
 * loaded and be idle). Returns 0, or an error with none left running.
 */
int tlb_readers_start(const struct bench_ctx *c, const struct tlb_readers_layout *lay);

/* Stops the readers and waits until each has left. Returns 0 or -ETIMEDOUT. */
int tlb_readers_stop(void);

/* Waits until every reader has seen the current phase (its window is closed). 0 or -ETIMEDOUT. */
int tlb_readers_sync(void);

/*
 * Untimed: a baseline window of about @cycles, counted into the totals
 * when @counted (a timed run, not a warm-up). The calling CPU halts
 * (interrupts on) through it, so the readers' baseline has no spinning
 * initiator beside it: reader 1 times the window on its own TSC, closes it
 * and wakes the caller with a cross-CPU call. Returns 0 or -ETIMEDOUT.
 */
int tlb_readers_baseline(u64 cycles, bool counted);

/*
 * The same halt with no reader, for a case of one CPU (@initiator, the
 * caller): another online CPU, outside the case, times about @cycles on
 * its own TSC and wakes the caller with a cross-CPU call, then goes back
 * to idle. Nothing when no other CPU is online. 0 or an error.
 */
int tlb_readers_lone_baseline(unsigned initiator, u64 cycles);

/* Lone baselines a CPU outside the case closed, waking the caller, since boot. */
u64 tlb_readers_lone_wakes(void);

/* Baseline windows reader 1 has closed (waking the halted caller) since boot. */
u64 tlb_readers_baselines_closed(void);

/* The timed window: opened at the start of the unmaps, closed at their end; no waiting. */
void tlb_readers_timed_begin(bool counted);
void tlb_readers_timed_end(void);

/*
 * Values a reader read in the shared set that were not what
 * check_shared promised, over every reader since tlb_readers_start().
 * tlb_readers_sync() first, for the reads of a window that just closed.
 */
u64 tlb_readers_wrong(void);

/* Counted windows summed over the readers (after tlb_readers_stop(), final). */
void tlb_readers_totals(struct read_window *base, struct read_window *timed);

/* Reader @idx's private pages: its slot, moved up to the entries after the shared set's. */
vaddr_t tlb_readers_priv(const struct tlb_readers_layout *lay, unsigned idx);

/*
 * Maps and populates reader idx's private region of @lay in @mm for every
 * remote of @c (idx 1..ncpus-1), @flags as mm_map_region()'s. 0 or an error.
 */
int tlb_readers_map_private(const struct bench_ctx *c, struct mm *mm,
			    const struct tlb_readers_layout *lay, unsigned flags);

/*
 * A baseline window about as long as the run it is compared with
 * (@last_run_cycles), kept within @min_us..@max_us microseconds.
 */
u64 tlb_readers_window_cycles(u64 last_run_cycles, unsigned min_us, unsigned max_us);

/*
 * The readers' windows of one variant, summed over every counted episode
 * of the case that ran last (a reader's own totals start again at each
 * episode's tlb_readers_start()): what each design's reader figures are
 * made of, with how many episodes and reader windows went in.
 */
#define TLB_READERS_MAX_EPISODES 256 /* per variant and case; later ones are not kept apart */

struct tlb_reader_sums {
	struct read_window base, timed;
	u64 episodes, windows;
	/* Each counted episode's loss (read_loss_pct_milli(), whole windows), in order. */
	s64 loss[TLB_READERS_MAX_EPISODES];
	unsigned nloss;
};

/* A new case: every variant's sums start again. */
void tlb_readers_sums_reset(void);

/*
 * Ends an episode's readers (tlb_readers_stop()) and, when the episode
 * made its one timed run, adds their windows to c->variant's sums.
 * Returns 0, or -ETIMEDOUT when a reader did not stop (nothing added).
 */
int tlb_readers_finish(const struct bench_ctx *c);

/* Variant @v's sums in the case that ran last. */
const struct tlb_reader_sums *tlb_readers_sums(unsigned v);

#endif
