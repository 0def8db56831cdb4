/*
 * Self-tests of pinning large folios (mm/pin/pin.c, pin_flag_designs[]): two
 * order-9 blocks mapped by 2 MiB leaves, pinned by every pin design with
 * the refcount atomics it promises (per page, or per folio run), from one
 * CPU and from every CPU at once, and left with the same final refcounts
 * and pin counts. Kernel only (real page tables, several CPUs).
 */
/* build: kernel only */
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pin/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/ktest_smp.h"
#include <arch/arch.h>

#define FOLIO_ROUNDS 200

static u64 my_count(const struct pcpu_counter *c)
{
	return percpu_counter_read(arch_cpu_id(), c);
}

#define FOLIO_BASE 0x80000000ul
#define FOLIO_ORDER 9
#define FOLIO_PAGES (1u << FOLIO_ORDER)

static struct folio_env {
	struct mm *mm;
	struct page *block[2];
	const struct pin_policy *pol; /* what the torture CPUs pin with */
	u32 failures, done;
} fe;

/* Two zeroed order-9 blocks mapped by 2 MiB leaves at FOLIO_BASE in a fresh mm, loaded here. */
static int folio_env_setup(struct ktest *t)
{
	fe = (struct folio_env){ 0 };
	if (!KEXPECT_EQ(t, mm_create(&fe.mm), 0))
		return -1;
	for (unsigned f = 0; f < 2; f++) {
		fe.block[f] = page_alloc(FOLIO_ORDER, PMM_ZERO);
		if (!KEXPECT(t, fe.block[f] != NULL) ||
		    !KEXPECT_EQ(t, pt_map(fe.mm->root, FOLIO_BASE + f * PT_PAGE_2M,
					  page_to_phys(fe.block[f]), PT_PAGE_2M,
					  PROT_READ | PROT_WRITE | PROT_USER, PT_PAGE_2M), 0))
			return -1;
	}
	mm_switch(fe.mm);
	return 0;
}

static void folio_env_teardown(struct ktest *t)
{
	struct pt_gather g;

	mm_switch(NULL); /* the unmap below flushes this CPU only: leave fe.mm first */
	for (unsigned f = 0; f < 2; f++) {
		if (!fe.block[f])
			continue;
		pt_gather_init(&g, NULL, NULL);
		KEXPECT_EQ(t, pt_unmap(fe.mm->root, FOLIO_BASE + f * PT_PAGE_2M, PT_PAGE_2M, &g),
			   0);
		pt_gather_finish(&g);
		KEXPECT_EQ(t, page_free(fe.block[f], FOLIO_ORDER), 0);
	}
	if (fe.mm)
		KEXPECT_EQ(t, mm_destroy(fe.mm), 0);
}

/* Both folios back to their first state: one reference (the allocation), no pin. */
static void folio_expect_unpinned(struct ktest *t, const char *name)
{
	for (unsigned f = 0; f < 2; f++)
		if (!KEXPECT_EQ(t, page_pin_count(fe.block[f]), 0) ||
		    !KEXPECT_EQ(t, page_ref_count(fe.block[f]), 1))
			ktest_log(t, "%s: folio %u left with %d references", name, f,
				  page_ref_count(fe.block[f]));
}

/*
 * One call of 512 pages from the middle of the first folio into the
 * second: every pin design pins 256 pages on each head, with exactly the
 * refcount atomics it promises (512 per page, 2 per folio run), and
 * unpinning restores both folios.
 */
static void test_pin_large_folio_designs(struct ktest *t)
{
	static struct page *big[FOLIO_PAGES];
	vaddr_t va = FOLIO_BASE + FOLIO_PAGES / 2 * PT_PAGE_4K;

	if (folio_env_setup(t))
		goto out;
	for (const struct design *const *d = pin_flag_designs; *d; d++) {
		const struct pin_policy pol = { pin_flag_ops_of(*d), pin_policy_default.pagemap };
		const struct design_promise *p = design_promise(*d, PCPU_PIN_REF_ATOMICS);
		u64 units = strcmp((*d)->unit, "folio") == 0 ? 2 : FOLIO_PAGES;
		u64 before = my_count(PCPU_PIN_REF_ATOMICS);

		KASSERT(t, p != NULL);
		KEXPECT_EQ(t, pin_pages_fast(fe.mm, va, FOLIO_PAGES, PIN_FAST_ONLY, big, &pol),
			   FOLIO_PAGES);
		if (!KEXPECT_EQ(t, my_count(PCPU_PIN_REF_ATOMICS) - before,
				design_expect(p, units, 0)))
			ktest_log(t, "%s: %lu refcount atomics", (*d)->name,
				  (unsigned long)(my_count(PCPU_PIN_REF_ATOMICS) - before));
		KEXPECT_EQ(t, page_pin_count(fe.block[0]), FOLIO_PAGES / 2);
		KEXPECT_EQ(t, page_pin_count(fe.block[1]), FOLIO_PAGES / 2);
		KEXPECT(t, big[0] == fe.block[0] + FOLIO_PAGES / 2);
		KEXPECT(t, big[FOLIO_PAGES - 1] == fe.block[1] + FOLIO_PAGES / 2 - 1);
		KEXPECT_EQ(t, unpin_pages(big, FOLIO_PAGES), 0);
		folio_expect_unpinned(t, (*d)->name);
	}
out:
	folio_env_teardown(t);
}

/* Every CPU pins and unpins windows of 16 pages that cross between the two folios. */
static void folio_torture_cpu(void *arg)
{
	struct page *mine[16];
	unsigned off = FOLIO_PAGES - 8 - this_cpu()->cpu_id % 8;
	struct mm *was = mm_current();

	(void)arg;
	mm_switch(fe.mm);
	for (int r = 0; r < FOLIO_ROUNDS; r++) {
		int n = pin_pages_fast(fe.mm, FOLIO_BASE + (off + r % 8) * PT_PAGE_4K, 16,
				       PIN_FAST_ONLY, mine, fe.pol);

		if (n != 16 || unpin_pages(mine, 16))
			atomic_fetch_add(&fe.failures, 1);
	}
	mm_switch(was);
	atomic_fetch_add(&fe.done, 1);
}

/* Pins from every CPU at once on the same two heads: the same final state for every design. */
static void test_pin_large_folio_concurrent(struct ktest *t)
{
	if (folio_env_setup(t))
		goto out;
	for (const struct design *const *d = pin_flag_designs; *d; d++) {
		const struct pin_policy pol = { pin_flag_ops_of(*d), pin_policy_default.pagemap };
		unsigned n;

		fe.pol = &pol;
		fe.failures = fe.done = 0;
		n = ktest_run_on_others(folio_torture_cpu, NULL);
		folio_torture_cpu(NULL);
		KASSERT(t, ktest_wait_count(&fe.done, n + 1, 120000));
		KEXPECT_EQ(t, fe.failures, 0);
		folio_expect_unpinned(t, (*d)->name);
	}
out:
	folio_env_teardown(t);
}

static const struct ktest_case pin_folio_cases[] = {
	KTEST_CASE(test_pin_large_folio_designs),
	KTEST_CASE(test_pin_large_folio_concurrent),
};
KTEST_SUITE(pin_folio, pin_folio_cases);
