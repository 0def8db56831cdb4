/*
 * The stale-translation detector, for each TLB shootdown design: reader CPUs
 * cache a range, this CPU unmaps it through the design, poisons the old
 * frames and maps fresh ones; a reader that still reads poison used a
 * translation the shootdown should have removed, counted exactly. The control
 * (tlb_ops_no_remote) must be caught, else the design cases skip. Kernel
 * only; tests/mm/tlb/test_tlb_model.c is the host's counterpart.
 */
/* build: kernel only */
#include "arch/x86_64/cpuinfo.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define STALE_BASE 0x58000000ul
#define STALE_MAX_PAGES (PT_GATHER_PAGES + 1)
#define STALE_OTHERS (MM_ASID_SLOTS + 1)
#define STALE_WAIT_S 120 /* a reader that has not answered a step by then is stuck */

enum stale_step { STEP_TOUCH = 1, STEP_CHECK, STEP_ASIDS, STEP_EXIT };

struct stale_state {
	struct mm *mm;			 /* the address space under test */
	struct mm *other[STALE_OTHERS];	 /* the same range, own frames (lazy, ASID cases) */
	unsigned nothers;
	unsigned nr;			 /* pages in the range this time */
	u32 round;			 /* the range holds stale_value(round, i) */
	bool lazy;			 /* readers switch to other[0] between touch and check */
	u32 step, seq;			 /* the initiator's order; readers answer each seq once */
	u32 acks, nreaders;
	u64 reads, stale, wrong;	 /* check reads; poison seen; neither value seen */
	u32 first_cpu;
	vaddr_t first_va;
};

static struct stale_state ss;
static struct page *stale_old[STALE_MAX_PAGES];

static vaddr_t stale_va(unsigned i)
{
	return STALE_BASE + (vaddr_t)i * PAGE_SIZE;
}

/* What page @i (below 2^16) holds in round @round ("STAL" tag), its poison, and other[k]'s. */
static u64 stale_value(u32 round, unsigned i)
{
	return 0x5354414c00000000ull | (u64)round << 16 | i;
}
BUILD_ASSERT(STALE_MAX_PAGES <= 0x10000);

static u64 stale_poison(u32 round, unsigned i)
{
	return ~stale_value(round, i);
}

static u64 other_value(u32 k, unsigned i)
{
	return 0x4f54484500000000ull | (u64)k << 16 | i;
}

/* ---- readers ---- */

static void stale_note(u64 *counter, vaddr_t va)
{
	if (atomic_fetch_add(counter, 1) == 0 && counter == &ss.stale) {
		ss.first_cpu = this_cpu()->cpu_id;
		ss.first_va = va;
	}
}

/* Poison of some round for page @i: a stale entry kept since then (the control keeps them). */
static bool stale_is_poison(u64 v, unsigned i)
{
	return (v & 0xffffffff0000ffffull) == (stale_poison(0, i) & 0xffffffff0000ffffull);
}

/*
 * The hot pages: the first and the last STALE_HOT of the range. A range
 * larger than the TLB (an emulator's direct-mapped one too) loses the
 * entries of a plain sweep to the sweep itself, so a missing flush would
 * go unseen: the readers touch the hot pages last and check them first,
 * which keeps 2 * STALE_HOT entries cached at any size, any CPU count.
 */
#define STALE_HOT 32

static bool stale_hot(unsigned i)
{
	return i < STALE_HOT || i + STALE_HOT >= ss.nr;
}

/* Page @i's read: @good(@gk, i) is right; see stale_read_all(). */
static void stale_read_one(unsigned i, u64 (*good)(u32, unsigned), u32 gk,
			   u64 (*stale_of)(u32, unsigned), u32 sk)
{
	u64 v = *(volatile u64 *)stale_va(i);
	bool stale;

	if (v == good(gk, i))
		return;
	/* The old content too: an unmapped frame nobody reused yet, read through a stale entry. */
	stale = stale_of &&
		(v == stale_of(sk, i) || stale_is_poison(v, i) || v == stale_value(sk, i));
	stale_note(stale ? &ss.stale : &ss.wrong, stale_va(i));
}

/*
 * Reads every page of the loaded space once, the hot pages first when
 * @hot_first (a check), else last (a touch). @good(@gk, i) is right; with
 * @stale_of, a read of @stale_of(@sk, i) (or of any poison) is stale;
 * anything else is wrong. @count: a check, counted in ss.reads.
 */
static void stale_read_all(u64 (*good)(u32, unsigned), u32 gk, u64 (*stale_of)(u32, unsigned),
			   u32 sk, bool count)
{
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < ss.nr; i++)
			if (stale_hot(i) == (pass == (count ? 0u : 1u)))
				stale_read_one(i, good, gk, stale_of, sk);
	if (count)
		atomic_fetch_add(&ss.reads, ss.nr);
}

static void stale_reader_step(u32 step)
{
	switch (step) {
	case STEP_TOUCH:
		/* Clean first: what an earlier round left was counted in its check. */
		arch_tlb_flush_all();
		stale_read_all(stale_value, ss.round, NULL, 0, false);
		if (ss.lazy) {
			mm_switch(ss.other[0]);
			stale_read_all(other_value, 0, NULL, 0, false);
		}
		break;
	case STEP_CHECK:
		if (ss.lazy)
			mm_switch(ss.mm);
		stale_read_all(stale_value, ss.round + 1, stale_poison, ss.round, true);
		break;
	case STEP_ASIDS:
		/* Through every other space, each on the ASID some earlier one had. */
		for (unsigned k = 0; k < ss.nothers; k++) {
			mm_switch(ss.other[k]);
			stale_read_all(other_value, k, stale_value, ss.round, true);
		}
		mm_switch(ss.mm);
		break;
	}
}

/* Each reader: load the space, then do each step the initiator orders, once. */
static void stale_reader(void *arg)
{
	u32 seen = 0;

	(void)arg;
	mm_switch(ss.mm);
	for (;;) {
		u32 seq = atomic_load_acquire(&ss.seq);

		if (seq == seen) {
			arch_cpu_relax();
			continue;
		}
		seen = seq;
		if (ss.step == STEP_EXIT)
			break;
		stale_reader_step(ss.step);
		atomic_fetch_add(&ss.acks, 1);
	}
	mm_switch(NULL);
	atomic_fetch_add(&ss.acks, 1);
}

/* ---- the initiator ---- */

/* Orders @step and waits for every reader's answer. Returns 0 or -ETIMEDOUT. */
static int stale_step(u32 step)
{
	u64 deadline = arch_tsc_read() + STALE_WAIT_S * arch_tsc_hz();

	atomic_store_relaxed(&ss.acks, 0);
	ss.step = step;
	atomic_fetch_add(&ss.seq, 1);
	while (atomic_load_acquire(&ss.acks) < ss.nreaders) {
		if (arch_tsc_read() > deadline)
			return -ETIMEDOUT;
		arch_cpu_relax();
	}
	return 0;
}

/* Maps the first ss.nr pages of @mm (already in a region) and writes @fill(@k, i) into each. */
static int stale_fill(struct mm *mm, u64 (*fill)(u32, unsigned), u32 k)
{
	int err = mm_populate(mm, STALE_BASE, (u64)ss.nr * PAGE_SIZE);

	for (unsigned i = 0; i < ss.nr && !err; i++) {
		paddr_t pa;

		err = pt_lookup(mm->root, stale_va(i), &pa, NULL, NULL);
		if (!err)
			*(volatile u64 *)phys_to_virt(pa) = fill(k, i);
	}
	return err;
}

/* A space with the whole range as one region, its first ss.nr pages filled. */
static int stale_mm_new(struct mm **out, u64 (*fill)(u32, unsigned), u32 k)
{
	int err = mm_create(out);

	if (!err)
		err = mm_map_region(*out, STALE_BASE, (u64)STALE_MAX_PAGES * PAGE_SIZE,
				    MM_READ | MM_WRITE);
	return err ? err : stale_fill(*out, fill, k);
}

/*
 * Readers per case, at most: the work of a case (reads, and a page-by-page
 * design's rounds, each waiting on every reader) grows with the readers,
 * so it is kept the same at any CPU count by sampling them: the first,
 * the last and one between of the other CPUs, so both ends of the APIC
 * ID range still take shootdowns.
 */
#define STALE_READERS_MAX 3

static unsigned stale_others; /* other online CPUs, the sample's population */

/* Whether the @k-th of @n other CPUs is one of the sampled readers. */
static bool stale_reader_sampled(unsigned k, unsigned n)
{
	if (n <= STALE_READERS_MAX)
		return true;
	for (unsigned j = 0; j < STALE_READERS_MAX; j++)
		if (k == j * (n - 1) / (STALE_READERS_MAX - 1))
			return true;
	return false;
}

/* Hands the reader loop to the sampled other CPUs; a CPU still busy is retried. */
static int stale_readers_start(void)
{
	u64 deadline = arch_tsc_read() + STALE_WAIT_S * arch_tsc_hz();
	unsigned cpu, k = 0;

	stale_others = ncpus_online - 1;
	for_each_cpu(cpu, &cpu_online_mask) {
		int err;

		if (cpu == this_cpu()->cpu_id || !stale_reader_sampled(k++, stale_others))
			continue;
		while ((err = smp_run_async(cpu, stale_reader, NULL)) == -EBUSY &&
		       arch_tsc_read() < deadline)
			arch_cpu_relax();
		if (err)
			return err;
		ss.nreaders++;
	}
	return 0;
}

/* Fresh state for @nr pages (and @nothers other spaces), the readers started. */
static int stale_setup(unsigned nr, unsigned nothers, bool lazy)
{
	int err;

	ss = (struct stale_state){ .nr = nr, .nothers = nothers, .lazy = lazy };
	err = stale_mm_new(&ss.mm, stale_value, 0);
	for (unsigned k = 0; k < nothers && !err; k++)
		err = stale_mm_new(&ss.other[k], other_value, k);
	if (err)
		return err;
	mm_switch(ss.mm); /* the initiator too: its own flush is part of each design */
	return stale_readers_start();
}

static void stale_teardown(struct ktest *t)
{
	if (ss.nreaders)
		KEXPECT_EQ(t, stale_step(STEP_EXIT), 0);
	mm_switch(NULL);
	if (ss.mm)
		KEXPECT_EQ(t, mm_destroy(ss.mm), 0);
	for (unsigned k = 0; k < ss.nothers; k++) {
		if (ss.other[k])
			KEXPECT_EQ(t, mm_destroy(ss.other[k]), 0);
	}
}

/*
 * One round: readers cache the range; it is unmapped through @ops; the old
 * frames get poison and the range fresh frames; readers read it again.
 */
static int stale_round(const struct tlb_ops *ops)
{
	int err = stale_step(STEP_TOUCH);
	unsigned held = 0;

	for (; held < ss.nr && !err; held++) {
		paddr_t pa;

		err = pt_lookup(ss.mm->root, stale_va(held), &pa, NULL, NULL);
		if (err)
			break;
		stale_old[held] = phys_to_page(pa);
		page_ref_inc(stale_old[held]);
	}
	if (!err)
		err = tlb_unmap_pages(ss.mm, STALE_BASE, ss.nr, ops);
	/* A lazy design's frames and range are reused only once every CPU drained. */
	if (!err)
		err = tlb_settle(ops, ss.mm);
	for (unsigned i = 0; i < held; i++)
		*(volatile u64 *)page_address(stale_old[i]) = stale_poison(ss.round, i);
	if (!err)
		err = stale_fill(ss.mm, stale_value, ss.round + 1);
	if (!err)
		err = stale_step(STEP_CHECK);
	for (unsigned i = 0; i < held; i++) {
		if (page_ref_dec_and_test(stale_old[i]))
			page_free(stale_old[i], 0);
	}
	ss.round++;
	return err;
}

/*
 * Frames the reuse round takes from the allocator after an unmap: enough
 * that the unmapped frames, on the per-CPU lists or the buddy lists, come
 * back among them.
 */
#define STALE_REUSE_ALLOCS (2 * STALE_MAX_PAGES + 64)
static struct page *stale_allocs[STALE_REUSE_ALLOCS];
static u64 stale_reused; /* unmapped frames the allocator handed out again, in all rounds */

/* Index of @p among the ss.nr frames just unmapped, or -1. */
static int stale_old_index(const struct page *p)
{
	for (unsigned i = 0; i < ss.nr; i++)
		if (stale_old[i] == p)
			return (int)i;
	return -1;
}

/*
 * Takes frames from the allocator; each unmapped one handed out gets its
 * poison (a new owner's data). Stops once every unmapped frame came back,
 * and leaves the allocator what mapping the range again needs (its pages
 * and tables, twice over): a small boot (64 MiB) has fewer free frames
 * than STALE_REUSE_ALLOCS.
 */
static unsigned stale_reuse_frames(void)
{
	struct pmm_stats st;
	unsigned n = 0, found = 0, most = STALE_REUSE_ALLOCS;
	u64 keep = 2 * (u64)ss.nr + 256;

	pmm_stats_get(&st);
	if (st.free < keep + most)
		most = st.free > keep ? (unsigned)(st.free - keep) : 0;

	for (; n < most && found < ss.nr; n++) {
		int i;

		stale_allocs[n] = page_alloc(0, 0);
		if (!stale_allocs[n])
			break;
		i = stale_old_index(stale_allocs[n]);
		if (i < 0)
			continue;
		*(volatile u64 *)page_address(stale_allocs[n]) =
			stale_poison(ss.round, (unsigned)i);
		stale_reused++;
		found++;
	}
	return n;
}

/*
 * The allocator's round: as stale_round(), but no reference keeps the old
 * frames: the design releases them when it may, and the frames are then
 * reused for real, taken from the allocator and written by their new
 * owner, before settling (a design must not have released a frame some
 * CPU can still reach) and before the range is mapped again (after it).
 * A stale entry that survived a frame's reuse reads the new owner's poison.
 */
static int stale_round_reuse(const struct tlb_ops *ops)
{
	int err = stale_step(STEP_TOUCH);
	unsigned n = 0;

	for (unsigned i = 0; i < ss.nr && !err; i++) {
		paddr_t pa;

		err = pt_lookup(ss.mm->root, stale_va(i), &pa, NULL, NULL);
		stale_old[i] = err ? NULL : phys_to_page(pa);
	}
	if (!err)
		err = tlb_unmap_pages(ss.mm, STALE_BASE, ss.nr, ops);
	if (!err)
		n = stale_reuse_frames();
	if (!err)
		err = tlb_settle(ops, ss.mm);
	if (!err)
		err = stale_fill(ss.mm, stale_value, ss.round + 1);
	if (!err)
		err = stale_step(STEP_CHECK);
	for (unsigned i = 0; i < n; i++)
		page_free(stale_allocs[i], 0);
	ss.round++;
	return err;
}

/* Which round stale_run() runs: the held frames' (stale_round()) or the allocator's. */
static bool stale_by_allocator;

/* Sum of counter @c over the reader CPUs. */
static u64 stale_reader_count(const struct pcpu_counter *c)
{
	unsigned self = this_cpu()->cpu_id, cpu;
	u64 n = 0;

	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu != self)
			n += percpu_counter_read(cpu, c);
	}
	return n;
}

struct stale_size {
	unsigned nr, rounds;
};

/* Both sides of the ceiling (33), the gather's array (64) and its bound; a whole table. */
static const struct stale_size stale_sizes[] = {
	{ 1, 32 }, { 33, 8 }, { 34, 8 }, { PT_GATHER_LOCAL, 4 }, { PT_GATHER_LOCAL + 1, 4 },
	{ 512, 2 }, { PT_GATHER_PAGES + 1, 1 },
};
static const struct stale_size stale_lazy_sizes[] = { { 1, 16 }, { 34, 4 }, { 65, 2 } };

/* A design that queues invalidations (lazy) promises entries, not rounds. */
static const struct design_promise *stale_queued(const struct tlb_ops *ops)
{
	return design_promise(&ops->d, PCPU_TLB_LAZY_QUEUED);
}

/*
 * What the readers' flush counters must show for @ops on @nr pages (lazy
 * readers: none at all). A queuing design's readers flush at their drains,
 * counted in the drain counters, one per entry as a round would.
 */
static void stale_expect_flushes(struct ktest *t, const struct tlb_ops *ops, unsigned nr,
				 unsigned rounds, u64 one, u64 all)
{
	const struct design_promise *p = stale_queued(ops);

	if (!p)
		p = design_promise(&ops->d, PCPU_TLB_SHOOTDOWNS);

	if (ss.lazy || !p) { /* the control promises no round */
		KEXPECT_EQ(t, one + all, 0); /* no shootdown reached a reader */
		return;
	}
	if ((nr < p->per ? nr : p->per) > tlb_ceiling()) { /* a round of more than the ceiling */
		/* the full flush above the ceiling */
		KEXPECT_GE(t, all, (u64)rounds * ss.nreaders);
		return;
	}
	KEXPECT_EQ(t, all, 0);
	KEXPECT_GE(t, one, (u64)nr * rounds * ss.nreaders);
}

/*
 * Whether this boot has the frames a size needs: its pages, the old
 * frames held back meanwhile and their tables, twice over. A small boot
 * (64 MiB) cannot hold a gather's bound of them twice: that size is left
 * out and logged, the others still run.
 */
static bool stale_fits(struct ktest *t, const struct tlb_ops *ops, const struct stale_size *sz)
{
	struct pmm_stats st;

	pmm_stats_get(&st);
	if (st.free >= 4 * (u64)sz->nr)
		return true;
	ktest_log(t, "%s, %u pages: left out, %lu frames free of the %lu it needs", ops->d.name,
		  sz->nr, (unsigned long)st.free, (unsigned long)(4 * (u64)sz->nr));
	return false;
}

/* Runs @ops on one size; returns its stale reads (*@ok false if anything else went wrong). */
static u64 stale_run(struct ktest *t, const struct tlb_ops *ops, const struct stale_size *sz,
		     bool lazy, bool *ok)
{
	bool queued = stale_queued(ops);
	const struct pcpu_counter *c_one = queued ? PCPU_TLB_LAZY_DRAIN_ONE : PCPU_TLB_FLUSH_ONE;
	const struct pcpu_counter *c_all = queued ? PCPU_TLB_LAZY_DRAIN_ALL : PCPU_TLB_FLUSH_ALL;
	u64 one = stale_reader_count(c_one);
	u64 all = stale_reader_count(c_all);
	int err;

	if (!stale_fits(t, ops, sz))
		return 0;
	err = tlb_design_enable(ops, true);
	if (!err)
		err = stale_setup(sz->nr, lazy ? 1 : 0, lazy);
	for (unsigned r = 0; r < sz->rounds && !err; r++)
		err = stale_by_allocator ? stale_round_reuse(ops) : stale_round(ops);
	one = stale_reader_count(c_one) - one;
	all = stale_reader_count(c_all) - all;
	ktest_log(t, "%s%s, %u pages x %u rounds, %u readers of %u other CPUs: stale reads: "
		  "%lu of %lu; reader flushes: %lu one, %lu all", ops->d.name,
		  lazy ? " (lazy readers)" : "", sz->nr, sz->rounds, ss.nreaders, stale_others,
		  (unsigned long)ss.stale, (unsigned long)ss.reads,
		  (unsigned long)one, (unsigned long)all);
	*ok &= KEXPECT_EQ(t, err, 0); /* set-up, shootdown or reader failure: never "stale" */
	*ok &= KEXPECT_EQ(t, ss.reads, (u64)sz->nr * sz->rounds * ss.nreaders);
	*ok &= KEXPECT_EQ(t, ss.wrong, 0);
	if (!err)
		stale_expect_flushes(t, ops, sz->nr, sz->rounds, one, all);
	stale_teardown(t);
	*ok &= KEXPECT_EQ(t, tlb_design_enable(ops, false), 0);
	return ss.stale;
}

/* ---- the cases ---- */

/* 0: not run yet; 1: it saw stale reads; -1: it saw none on a machine that may hide them. */
static int stale_control_result;
/*
 * Per size of stale_sizes[]: the control's stale reads there (and its
 * reads). A size where it saw none cannot fail a design: the designs are
 * not judged there, and the log says so. On a machine that keeps entries
 * the control itself fails then (the hot pages should have kept some).
 */
static u64 stale_control_stale[ARRAY_SIZE(stale_sizes)];
static u64 stale_control_reads[ARRAY_SIZE(stale_sizes)];

static bool stale_has_readers(struct ktest *t)
{
	if (ncpus_online >= 2)
		return true;
	ktest_skip(t, "needs a reader CPU");
	return false;
}

/*
 * The control, first: no remote flush, so the readers must read poison.
 * Emulators (TCG) and real CPUs keep TLB entries until flushed: there no
 * stale read means the detector is broken. A hypervisor's shadow paging
 * can drop them when the guest rewrites a PTE: there it is a skip.
 */
static void test_tlb_stale_control(struct ktest *t)
{
	bool ok = true;
	u64 stale = 0;

	stale_control_result = -1;
	if (!stale_has_readers(t))
		return;
	for (unsigned s = 0; s < ARRAY_SIZE(stale_sizes); s++) {
		bool fits = stale_fits(t, &tlb_ops_no_remote, &stale_sizes[s]);

		stale_control_stale[s] = fits ? stale_run(t, &tlb_ops_no_remote, &stale_sizes[s],
							  false, &ok) : 0;
		stale_control_reads[s] = fits ? ss.reads : 0;
		stale += stale_control_stale[s];
	}
	if (!ok)
		return;
	if (stale) {
		stale_control_result = 1;
		/*
		 * Where entries are kept, every size that ran is judged: the
		 * control sees each. A size this boot has no frames for ran
		 * no read (stale_fits() logged it).
		 */
		for (unsigned s = 0; s < ARRAY_SIZE(stale_sizes); s++)
			if (stale_control_reads[s] && (cpuinfo.tcg || !cpuinfo.hypervisor_bit))
				KEXPECT_GT(t, stale_control_stale[s], 0);
		return;
	}
	ktest_log(t, "the control saw no stale read (hypervisor \"%s\")", cpuinfo.hypervisor);
	if (cpuinfo.tcg || !cpuinfo.hypervisor_bit)
		KEXPECT_GT(t, stale, 0); /* this machine keeps entries: the detector is blind */
	else
		ktest_skip(t, "this hypervisor hides missing flushes (shadow paging)");
}

/* A design case only means something where the control could see staleness. */
static bool stale_can_fail(struct ktest *t)
{
	if (!stale_has_readers(t))
		return false;
	if (stale_control_result == 1)
		return true;
	ktest_skip(t, stale_control_result ? "the control saw no stale read here: a pass would mean nothing"
					   : "the control case did not run first");
	return false;
}

/*
 * Shootdown rounds one design may take at one size, at most: each waits on
 * every reader's vCPU, which a loaded host deschedules, so naive's one
 * round per page at 8193 pages could outlast the deadlines. Such a size is
 * left out for that design alone, and the log says so.
 */
#define STALE_ROUNDS_MAX 1024

static bool stale_rounds_fit(struct ktest *t, const struct tlb_ops *ops,
			     const struct stale_size *sz)
{
	const struct design_promise *p = design_promise(&ops->d, PCPU_TLB_SHOOTDOWNS);
	u64 rounds = p ? design_expect(p, sz->nr, 1) * sz->rounds : 0;

	if (rounds <= STALE_ROUNDS_MAX)
		return true;
	ktest_log(t, "%s, %u pages: left out, %lu shootdown rounds (at most %u per size)",
		  ops->d.name, sz->nr, (unsigned long)rounds, STALE_ROUNDS_MAX);
	return false;
}

static void stale_check_design(struct ktest *t, const struct tlb_ops *ops,
			       const struct stale_size *sizes, unsigned nsizes, bool lazy)
{
	bool ok = true;

	if (!stale_can_fail(t))
		return;
	for (unsigned s = 0; s < nsizes; s++) {
		if (sizes == stale_sizes && !stale_control_stale[s]) {
			ktest_log(t, "%s, %u pages: SKIP, not judged: the control read 0 stale of "
				  "%lu there, so no design could fail at this size", ops->d.name,
				  sizes[s].nr, (unsigned long)stale_control_reads[s]);
			continue;
		}
		if (!stale_rounds_fit(t, ops, &sizes[s]))
			continue;
		if (KEXPECT_EQ(t, stale_run(t, ops, &sizes[s], lazy, &ok), 0))
			continue;
		ktest_log(t, "STALE: design %s, CPU %u read poison at 0x%lx after the shootdown returned",
			  ops->d.name, ss.first_cpu, (unsigned long)ss.first_va);
	}
}

/* Every design of the table but the control must leave no stale read. */
static void test_tlb_stale_designs(struct ktest *t)
{
	for (const struct design *const *d = tlb_designs; *d; d++)
		if (!(*d)->control)
			stale_check_design(t, tlb_ops_of(*d), stale_sizes, ARRAY_SIZE(stale_sizes),
					   false);
}

/* Readers away (in another space that maps the same range) while the range goes: lazy. */
static void test_tlb_stale_lazy(struct ktest *t)
{
	for (const struct design *const *d = tlb_designs; *d; d++) {
		if ((*d)->control)
			continue;
		stale_check_design(t, tlb_ops_of(*d), stale_lazy_sizes,
				   ARRAY_SIZE(stale_lazy_sizes), true);
		if (stale_control_result != 1)
			break; /* skipped once: the rest would only skip again */
	}
}

/*
 * Frames reused through the allocator (stale_round_reuse()): the control
 * frees them under the readers' stale entries and must be caught; every
 * design, lazy included (it frees only once all CPUs drained), must not.
 * The allocator must have handed some unmapped frame out again, or the
 * case proves nothing.
 */
static void test_tlb_stale_frame_reuse(struct ktest *t)
{
	bool ok = true;
	u64 stale;

	if (!stale_can_fail(t))
		return;
	stale_by_allocator = true;
	stale_reused = 0;
	stale = stale_run(t, &tlb_ops_no_remote, &stale_lazy_sizes[1], false, &ok);
	ktest_log(t, "control: %lu unmapped frames reused, %lu stale reads",
		  (unsigned long)stale_reused, (unsigned long)stale);
	if (KEXPECT_GT(t, stale_reused, 0) && KEXPECT_GT(t, stale, 0) && ok) {
		for (const struct design *const *d = tlb_designs; *d; d++)
			if (!(*d)->control)
				stale_check_design(t, tlb_ops_of(*d), stale_lazy_sizes,
						   ARRAY_SIZE(stale_lazy_sizes), false);
		ktest_log(t, "%lu unmapped frames reused in all", (unsigned long)stale_reused);
	}
	stale_by_allocator = false;
}

/*
 * ASID reuse: each reader caches the range in the space under test, then
 * loads STALE_OTHERS other spaces mapping it to their own frames, more
 * than it has ASID slots, so some take an ASID an earlier one had. Each
 * must read its own values; the first space's are stale.
 */
static void test_tlb_stale_asid_reuse(struct ktest *t)
{
	const unsigned nr = 16, rounds = 4;
	int err;

	if (!stale_can_fail(t))
		return;
	if (!cpuinfo.pcid) {
		ktest_skip(t, "no PCID on this CPU (QEMU 7.2's TCG has none): every CR3 load flushes");
		return;
	}
	err = stale_setup(nr, STALE_OTHERS, false);
	for (unsigned r = 0; r < rounds && !err; r++) {
		err = stale_step(STEP_TOUCH);
		if (!err)
			err = stale_step(STEP_ASIDS);
	}
	ktest_log(t, "%u spaces through %u ASID slots, %u readers: stale reads: %lu of %lu",
		  STALE_OTHERS + 1, MM_ASID_SLOTS, ss.nreaders, (unsigned long)ss.stale,
		  (unsigned long)ss.reads);
	KEXPECT_EQ(t, err, 0);
	KEXPECT_EQ(t, ss.reads, (u64)nr * rounds * STALE_OTHERS * ss.nreaders);
	KEXPECT_EQ(t, ss.stale, 0);
	KEXPECT_EQ(t, ss.wrong, 0);
	stale_teardown(t);
}

/* The control first: the others skip unless it saw stale reads. */
static const struct ktest_case tlb_stale_cases[] = {
	KTEST_CASE(test_tlb_stale_control),
	KTEST_CASE(test_tlb_stale_designs),
	KTEST_CASE(test_tlb_stale_lazy),
	KTEST_CASE(test_tlb_stale_frame_reuse),
	KTEST_CASE(test_tlb_stale_asid_reuse),
};
KTEST_SUITE(tlb_stale, tlb_stale_cases);
