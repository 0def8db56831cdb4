/*
 * Self-tests of page pinning (mm/pin/pin.c): pins and unpins leave every
 * refcount and pin count as it was, on one CPU and on all at once; the slow
 * path faults pages in; bad calls are refused; each has_pinned and pagemap
 * design writes and looks up exactly as often as it promises (large folios:
 * test_pin_folio.c). Kernel only (real page tables, several CPUs).
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "mm/devmem.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pin/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/ktest_smp.h"
#include <arch/arch.h>

#define PIN_BASE 0x40000000ul
#define PIN_PAGES 64
#define PIN_ROUNDS 200


static struct mm *pin_mm;
static struct page *pages[PIN_PAGES];

/* The boot CPU pins as a task of pin_mm would: with pin_mm loaded. */
static int pin_suite_init(struct ktest *t)
{
	(void)t;
	if (mm_create(&pin_mm))
		return -ENOMEM;
	mm_switch(pin_mm);
	return mm_map_region(pin_mm, PIN_BASE, PIN_PAGES * PT_PAGE_4K, MM_READ | MM_WRITE);
}

static void pin_suite_exit(struct ktest *t)
{
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(pin_mm), 0);
}

static u64 my_count(const struct pcpu_counter *c)
{
	return percpu_counter_read(arch_cpu_id(), c);
}

/* Pins fault the missing pages in; unpinning restores every count. */
static void test_pin_slow_path_and_counts(struct ktest *t)
{
	int n;

	KASSERT_EQ(t, mm_populate(pin_mm, PIN_BASE, PIN_PAGES / 2 * PT_PAGE_4K), 0);
	n = pin_pages_fast(pin_mm, PIN_BASE, PIN_PAGES, PIN_WRITE, pages, &pin_policy_default);
	KASSERT_EQ(t, n, PIN_PAGES);
	for (int i = 0; i < PIN_PAGES; i++) {
		KEXPECT_EQ(t, page_ref_count(pages[i]), 1 + PIN_BIAS);
		KEXPECT_EQ(t, page_pin_count(pages[i]), 1);
		KEXPECT(t, page_maybe_pinned(pages[i]));
	}
	KEXPECT_EQ(t, unpin_pages(pages, PIN_PAGES), 0);
	for (int i = 0; i < PIN_PAGES; i++) {
		KEXPECT_EQ(t, page_ref_count(pages[i]), 1);
		KEXPECT(t, !page_maybe_pinned(pages[i]));
	}
	KEXPECT(t, mm_has_pinned(pin_mm));
}

static void test_pin_bad_calls(struct ktest *t)
{
	struct page *p;

	/* Outside every region: nothing to fault in. */
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE - PT_PAGE_4K, 1, 0, pages,
				     &pin_policy_default),
		   -EFAULT);
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE + 1, 1, 0, pages, &pin_policy_default),
		   -EINVAL);
	/* A region page that is not present, fast path only. */
	KASSERT_EQ(t, mm_unmap_region(pin_mm, PIN_BASE, PT_PAGE_4K), 0);
	KASSERT_EQ(t, mm_map_region(pin_mm, PIN_BASE, PT_PAGE_4K, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE, 1, PIN_FAST_ONLY, pages,
				     &pin_policy_default),
		   -EFAULT);
	/* Unpinning a page that is not pinned is caught and changes nothing. */
	KASSERT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE, 1, 0, pages, &pin_policy_default), 1);
	p = pages[0];
	KEXPECT_EQ(t, unpin_pages(&p, 1), 0);
	KEXPECT_EQ(t, unpin_pages(&p, 1), -EINVAL);
	KEXPECT_EQ(t, page_ref_count(p), 1);
}

static void test_pin_overflow_refused(struct ktest *t)
{
	struct page *p = page_alloc(0, 0);
	u32 most = PAGE_REF_MAX / PIN_BIAS; /* the most pins one frame can hold */

	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, page_pin_nr(p, most), 0);
	KEXPECT_EQ(t, page_pin(p), -EOVERFLOW);
	KEXPECT_EQ(t, page_pin_count(p), most);
	KEXPECT_EQ(t, page_unpin_nr(p, most), 0);
	KEXPECT_EQ(t, page_free(p, 0), 0);
}

/* Flag writes of @calls calls through flag design @d on a fresh mm, on this CPU alone. */
static u64 flag_writes(struct ktest *t, const struct design *d, unsigned calls)
{
	const struct pin_policy pol = { pin_flag_ops_of(d), pin_policy_default.pagemap };
	struct mm *mm;
	u64 before;

	if (!KEXPECT_EQ(t, mm_create(&mm), 0))
		return 0;
	KEXPECT_EQ(t, mm_map_region(mm, PIN_BASE, PT_PAGE_4K, MM_READ | MM_WRITE), 0);
	mm_switch(mm);
	before = my_count(PCPU_PIN_FLAG_WRITES);
	for (unsigned i = 0; i < calls; i++) {
		KEXPECT_EQ(t, pin_pages_fast(mm, PIN_BASE, 1, 0, pages, &pol), 1);
		unpin_pages(pages, 1);
	}
	before = my_count(PCPU_PIN_FLAG_WRITES) - before;
	mm_switch(pin_mm);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	return before;
}

/*
 * Each flag design keeps its promise: naive one shared-line write per
 * call; fixed at most one per CPU per mm, ever (here one CPU: exactly one).
 */
static void test_pin_flag_writes(struct ktest *t)
{
	for (const struct design *const *d = pin_flag_designs; *d; d++) {
		const struct design_promise *p = design_promise(*d, PCPU_PIN_FLAG_WRITES);
		u64 got = flag_writes(t, *d, 10);

		KASSERT(t, p != NULL);
		if (!KEXPECT(t, design_kept(p, got, p->at_most ? 1 : 10, 1, 1)))
			ktest_log(t, "%s: %lu flag writes in 10 calls", (*d)->name,
				  (unsigned long)got);
	}
}

struct pin_torture {
	u32 failures, started, done;
};

/* Every CPU pins and unpins overlapping windows of the same pages, with pin_mm loaded. */
static void pin_torture_cpu(void *arg)
{
	struct pin_torture *pt = arg;
	struct page *mine[16];
	unsigned off = this_cpu()->cpu_id % (PIN_PAGES - 16);
	struct mm *was = mm_current();

	mm_switch(pin_mm);
	for (int r = 0; r < PIN_ROUNDS; r++) {
		int n = pin_pages_fast(pin_mm, PIN_BASE + (off + r % 8) * PT_PAGE_4K, 16, 0, mine,
				       &pin_policy_default);

		if (n != 16 || unpin_pages(mine, 16))
			atomic_fetch_add(&pt->failures, 1);
	}
	mm_switch(was);
	atomic_fetch_add(&pt->done, 1);
}

static void test_pin_concurrent_counts_restored(struct ktest *t)
{
	struct pin_torture pt = { 0 };
	s32 refs[PIN_PAGES];
	int n;

	KASSERT_EQ(t, mm_populate(pin_mm, PIN_BASE, PIN_PAGES * PT_PAGE_4K), 0);
	n = pin_pages_fast(pin_mm, PIN_BASE, PIN_PAGES, PIN_FAST_ONLY, pages, &pin_policy_default);
	KASSERT_EQ(t, n, PIN_PAGES);
	unpin_pages(pages, PIN_PAGES);
	for (int i = 0; i < PIN_PAGES; i++)
		refs[i] = page_ref_count(pages[i]);
	n = (int)ktest_run_on_others(pin_torture_cpu, &pt);
	pin_torture_cpu(&pt);
	KASSERT(t, ktest_wait_count(&pt.done, (u32)n + 1, 120000));
	KEXPECT_EQ(t, pt.failures, 0);
	for (int i = 0; i < PIN_PAGES; i++) {
		KEXPECT_EQ(t, page_ref_count(pages[i]), refs[i]);
		KEXPECT_EQ(t, page_pin_count(pages[i]), 0);
	}
}

/* Device pages: each pagemap design's lookups and references (naive per page, cached per range). */
static void test_pin_device_lookups(struct ktest *t)
{
	static struct devmem dm;
	const u64 npages = 2 * 16;
	vaddr_t base = PIN_BASE + 0x100000;
	u64 lk, refs;

	KASSERT_EQ(t, devmem_create(&dm, 2, 4), 0);
	KASSERT_EQ(t, mm_map_region(pin_mm, base, npages * PT_PAGE_4K, MM_READ | MM_WRITE), 0);
	for (u64 i = 0; i < npages; i++)
		KASSERT_EQ(t, mm_map_page(pin_mm, base + i * PT_PAGE_4K, devmem_page(&dm, i)), 0);
	for (const struct design *const *d = pin_pagemap_designs; *d; d++) {
		const struct pin_policy pol = { pin_policy_default.flag, pin_pagemap_ops_of(*d) };
		/* The promises count per page, or per pagemap range crossed (2 here). */
		u64 units = strcmp((*d)->unit, "range") == 0 ? 2 : npages;

		lk = my_count(PCPU_PAGEMAP_LOOKUPS);
		refs = my_count(PCPU_PAGEMAP_REFS);
		KEXPECT_EQ(t, pin_pages_fast(pin_mm, base, npages, 0, pages, &pol), npages);
		KEXPECT_EQ(t, my_count(PCPU_PAGEMAP_LOOKUPS) - lk,
			   design_expect(design_promise(*d, PCPU_PAGEMAP_LOOKUPS), units, 0));
		KEXPECT_EQ(t, my_count(PCPU_PAGEMAP_REFS) - refs,
			   design_expect(design_promise(*d, PCPU_PAGEMAP_REFS), units, 0));
		unpin_pages(pages, npages);
	}
	KEXPECT_EQ(t, dm.pgmap[0].ref, 0);
	KEXPECT_EQ(t, dm.pgmap[1].ref, 0);
	KEXPECT_EQ(t, mm_unmap_region(pin_mm, base, npages * PT_PAGE_4K), 0);
	KEXPECT_EQ(t, devmem_destroy(&dm), 0);
}

/* the fast path's rule: lockless only with the mm loaded */

struct pin_remote {
	bool load;	/* switch to pin_mm first */
	int n;		/* what pin_pages_fast() returned */
	u32 done;
	u64 unloaded;	/* PCPU_PIN_UNLOADED counted by the call */
	struct page *got[8];
};

static void pin_remote_cpu(void *arg)
{
	struct pin_remote *pr = arg;
	u64 before = my_count(PCPU_PIN_UNLOADED);

	if (pr->load)
		mm_switch(pin_mm);
	pr->n = pin_pages_fast(pin_mm, PIN_BASE, 8, PIN_FAST_ONLY, pr->got, &pin_policy_default);
	pr->unloaded = my_count(PCPU_PIN_UNLOADED) - before;
	if (pr->load)
		mm_switch(NULL);
	atomic_store_release(&pr->done, 1);
}

/*
 * While this CPU holds pin_mm's write side (as an unmapper would, about to
 * free tables), a CPU without pin_mm loaded must not walk its tables: its
 * pin waits for the lock. A CPU with pin_mm loaded walks locklessly.
 */
static void test_pin_walk_needs_loaded_mm(struct ktest *t)
{
	unsigned cpu;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != arch_cpu_id())
			break;
	KASSERT_EQ(t, mm_populate(pin_mm, PIN_BASE, 8 * PT_PAGE_4K), 0);
	for (int load = 0; load < 2; load++) {
		static struct pin_remote pr;

		pr = (struct pin_remote){ .load = load };
		write_lock(&pin_mm->lock);
		KASSERT_EQ(t, smp_run_async(cpu, pin_remote_cpu, &pr), 0);
		/* Unloaded: still waiting after 100 ms. Loaded: done without the lock. */
		KEXPECT_EQ(t, ktest_wait_count(&pr.done, 1, load ? 60000 : 100), load);
		write_unlock(&pin_mm->lock);
		KASSERT(t, ktest_wait_count(&pr.done, 1, 60000));
		KEXPECT_EQ(t, pr.n, 8);
		KEXPECT_EQ(t, pr.unloaded, load ? 0 : 1);
		if (pr.n > 0)
			KEXPECT_EQ(t, unpin_pages(pr.got, (unsigned)pr.n), 0);
	}
}

/* the recheck and fork's sequence count, driven from inside the walk */

static struct pin_race {
	struct devmem dm;
	vaddr_t va;
	unsigned calls;	     /* pagemap gets seen */
	bool swap_entry;     /* first get: remap va from device page 0 to page 1 */
	bool fork_meanwhile; /* first get: a whole fork's write-protect runs */
} race;

/* Runs between the walk's read of the entry and the pin: what another CPU could do there. */
static struct dev_pagemap *race_get(u64 pfn, struct dev_pagemap *last)
{
	struct page *a = devmem_page(&race.dm, 0), *b = devmem_page(&race.dm, 1);

	if (race.calls++ == 0 && race.swap_entry &&
	    !pt_leaf_replace(pin_mm->root, race.va, page_to_phys(a), page_to_phys(b),
			     PROT_READ | PROT_WRITE | PROT_USER)) {
		/* The mapping's reference and map count move from a to b. */
		page_ref_inc(b);
		page_map_inc(b);
		page_map_dec(a);
		page_ref_dec_and_test(a);
	}
	if (race.calls == 1 && race.fork_meanwhile) {
		mm_wp_seq_write_begin(pin_mm);
		mm_wp_seq_write_end(pin_mm);
	}
	return pagemap_get(pfn, last);
}

static struct dev_pagemap *race_after(struct dev_pagemap *pgmap)
{
	return pgmap;
}

static void race_done(struct dev_pagemap *pgmap)
{
	if (pgmap)
		pagemap_put(pgmap);
}

static const struct pin_pagemap_ops race_pagemap = {
	.d = { .name = "race", .unit = "page" },
	.get = race_get,
	.after_page = race_after,
	.done = race_done,
};
static const struct pin_policy race_policy = { &pin_flag_ops_fixed, &race_pagemap };

/* Device pages 0 and 2 mapped at race.va and the page after it. Returns 0 or -1 (failed). */
static int race_setup(struct ktest *t)
{
	race = (struct pin_race){ .va = PIN_BASE + 0x200000 };
	if (!KEXPECT_EQ(t, devmem_create(&race.dm, 1, 2), 0))
		return -1;
	if (!KEXPECT_EQ(t, mm_map_region(pin_mm, race.va, 2 * PT_PAGE_4K, MM_READ | MM_WRITE), 0) ||
	    !KEXPECT_EQ(t, mm_map_page(pin_mm, race.va, devmem_page(&race.dm, 0)), 0) ||
	    !KEXPECT_EQ(t, mm_map_page(pin_mm, race.va + PT_PAGE_4K, devmem_page(&race.dm, 2)), 0))
		return -1;
	return 0;
}

static void race_teardown(struct ktest *t)
{
	KEXPECT_EQ(t, race.dm.pgmap[0].ref, 0);
	KEXPECT_EQ(t, mm_unmap_region(pin_mm, race.va, 2 * PT_PAGE_4K), 0);
	KEXPECT_EQ(t, devmem_destroy(&race.dm), 0);
}

/* The entry changes between its read and the pin: the pin is dropped and the new page pinned. */
static void test_pin_rechecks_entry(struct ktest *t)
{
	u64 retries = my_count(PCPU_PIN_RETRIES);
	struct page *got[1];

	if (race_setup(t))
		return;
	race.swap_entry = true;
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, race.va, 1, 0, got, &race_policy), 1);
	KEXPECT(t, got[0] == devmem_page(&race.dm, 1));
	KEXPECT_EQ(t, page_pin_count(devmem_page(&race.dm, 0)), 0);
	KEXPECT_EQ(t, page_pin_count(devmem_page(&race.dm, 1)), 1);
	KEXPECT_EQ(t, my_count(PCPU_PIN_RETRIES) - retries, 1);
	KEXPECT_EQ(t, unpin_pages(got, 1), 0);
	race_teardown(t);
}

/* A fork's write-protect overlaps the lockless walk: it is undone and redone under the lock. */
static void test_pin_undone_by_fork(struct ktest *t)
{
	u64 retries = my_count(PCPU_PIN_RETRIES);
	struct page *got[2];

	if (race_setup(t))
		return;
	race.fork_meanwhile = true;
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, race.va, 2, 0, got, &race_policy), 2);
	KEXPECT(t, got[0] == devmem_page(&race.dm, 0));
	KEXPECT(t, got[1] == devmem_page(&race.dm, 2));
	/* Pinned once each: the walk's pins were dropped before the locked walk's. */
	KEXPECT_EQ(t, page_pin_count(got[0]), 1);
	KEXPECT_EQ(t, page_pin_count(got[1]), 1);
	KEXPECT_EQ(t, my_count(PCPU_PIN_RETRIES) - retries, 1);
	KEXPECT_EQ(t, unpin_pages(got, 2), 0);
	race_teardown(t);
}

/* devmem_destroy() against pagemap lookups on every other CPU */

#define DEVRACE_RANGES 2
#define DEVRACE_CONTENDED 2000 /* destroy attempts against the getters */
#define DEVRACE_TRIES 1000000

static struct devrace {
	struct devmem dm;
	u64 pfn[DEVRACE_RANGES];
	u32 started, done, stop;
	u32 quiet; /* getters stop taking references: destroy can finish */
} devrace;

/* What a pinner does first: look the pagemap up, take a reference, drop it. */
static void devrace_getter(void *arg)
{
	(void)arg;
	atomic_fetch_add(&devrace.started, 1);
	while (!atomic_load_acquire(&devrace.stop)) {
		for (unsigned r = 0; r < DEVRACE_RANGES; r++) {
			struct dev_pagemap *p = atomic_load_acquire(&devrace.quiet) ?
							NULL :
							pagemap_get(devrace.pfn[r], NULL);

			for (int k = 0; k < 50; k++) /* held a while, as across a pin */
				arch_cpu_relax();
			if (p)
				pagemap_put(p);
		}
	}
	atomic_fetch_add(&devrace.done, 1);
}

/*
 * Destroying device memory while other CPUs look its pagemaps up: it is
 * refused while a reference is held, and once it succeeds no pagemap is
 * left registered (nor can one be referenced again). After
 * DEVRACE_CONTENDED refusals the getters stop taking references, so the
 * destroy can finish.
 */
static void test_pin_devmem_destroy_races_get(struct ktest *t)
{
	unsigned n, tries = 0;
	int err;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a second CPU");
		return;
	}
	memset(&devrace, 0, sizeof(devrace));
	KASSERT_EQ(t, devmem_create(&devrace.dm, DEVRACE_RANGES, 4), 0);
	for (unsigned r = 0; r < DEVRACE_RANGES; r++)
		devrace.pfn[r] = devrace.dm.pgmap[r].start_pfn;
	n = ktest_run_on_others(devrace_getter, NULL);
	KASSERT(t, n > 0 && ktest_wait_count(&devrace.started, n, 60000));
	do {
		if (tries == DEVRACE_CONTENDED)
			atomic_store_release(&devrace.quiet, 1);
		err = devmem_destroy(&devrace.dm);
	} while (err == -EBUSY && ++tries < DEVRACE_TRIES);
	atomic_store_release(&devrace.stop, 1);
	KASSERT(t, ktest_wait_count(&devrace.done, n, 60000));
	ktest_log(t, "%u getters, destroy refused %u times (%s)", n, tries,
		  tries < DEVRACE_CONTENDED ? "done under contention" : "done once they stopped");
	KEXPECT_EQ(t, err, 0);
	for (unsigned r = 0; r < DEVRACE_RANGES; r++) {
		struct dev_pagemap *left = pagemap_lookup(devrace.pfn[r]);

		KEXPECT(t, left == NULL);
		KEXPECT_EQ(t, devrace.dm.pgmap[r].ref, PAGEMAP_REF_DEAD);
		if (left) /* what the old code left behind: take it out of the tree */
			pagemap_unregister(left);
	}
}

static const struct ktest_case pin_cases[] = {
	KTEST_CASE(test_pin_slow_path_and_counts),
	KTEST_CASE(test_pin_bad_calls),
	KTEST_CASE(test_pin_overflow_refused),
	KTEST_CASE(test_pin_flag_writes),
	KTEST_CASE(test_pin_concurrent_counts_restored),
	KTEST_CASE(test_pin_device_lookups),
	KTEST_CASE(test_pin_walk_needs_loaded_mm),
	KTEST_CASE(test_pin_rechecks_entry),
	KTEST_CASE(test_pin_undone_by_fork),
	KTEST_CASE(test_pin_devmem_destroy_races_get),
};
KTEST_SUITE_EXT(pin, pin_cases, pin_suite_init, pin_suite_exit, NULL);
