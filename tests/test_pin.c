/*
 * Self-tests of page pinning (mm/pin.c): pins and unpins leave every
 * refcount and pin count as it was, on one CPU and with every CPU pinning
 * overlapping ranges at once; the slow path faults pages in; bad calls are
 * refused; each has_pinned design writes the shared line exactly as often
 * as it promises; device pages take exactly the pagemap lookups and
 * references each pagemap design promises; a large page is pinned on its
 * head. Kernel only (real page tables, several CPUs).
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/devmem.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define PIN_BASE 0x40000000ul
#define PIN_PAGES 64
#define PIN_ROUNDS 200

static const struct pin_policy naive_flag = { &pin_flag_naive, &pin_pagemap_naive };
static const struct pin_policy fixed_flag = { &pin_flag_fixed, &pin_pagemap_cached };

static struct mm *pin_mm;
static struct page *pages[PIN_PAGES];

static int pin_suite_init(struct ktest *t)
{
	(void)t;
	if (mm_create(&pin_mm))
		return -ENOMEM;
	return mm_map_region(pin_mm, PIN_BASE, PIN_PAGES * PT_PAGE_4K, MM_READ | MM_WRITE);
}

static void pin_suite_exit(struct ktest *t)
{
	KEXPECT_EQ(t, mm_destroy(pin_mm), 0);
}

static u64 my_count(enum pcpu_counter c)
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
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE - PT_PAGE_4K, 1, 0, pages, &pin_policy_default),
		   -EFAULT);
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE + 1, 1, 0, pages, &pin_policy_default),
		   -EINVAL);
	/* A region page that is not present, fast path only. */
	KASSERT_EQ(t, mm_unmap_region(pin_mm, PIN_BASE, PT_PAGE_4K), 0);
	KASSERT_EQ(t, mm_map_region(pin_mm, PIN_BASE, PT_PAGE_4K, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, PIN_BASE, 1, PIN_FAST_ONLY, pages, &pin_policy_default),
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

/* naive: one shared-line write per call; fixed: one per mm, ever. */
static void test_pin_flag_writes(struct ktest *t)
{
	struct mm *mm;
	u64 before;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KASSERT_EQ(t, mm_map_region(mm, PIN_BASE, PT_PAGE_4K, MM_READ | MM_WRITE), 0);
	before = my_count(PCPU_PIN_FLAG_WRITES);
	for (int i = 0; i < 10; i++) {
		KEXPECT_EQ(t, pin_pages_fast(mm, PIN_BASE, 1, 0, pages, &naive_flag), 1);
		unpin_pages(pages, 1);
	}
	KEXPECT_EQ(t, my_count(PCPU_PIN_FLAG_WRITES) - before, 10);
	before = my_count(PCPU_PIN_FLAG_WRITES);
	for (int i = 0; i < 10; i++) {
		KEXPECT_EQ(t, pin_pages_fast(mm, PIN_BASE, 1, 0, pages, &fixed_flag), 1);
		unpin_pages(pages, 1);
	}
	KEXPECT_EQ(t, my_count(PCPU_PIN_FLAG_WRITES) - before, 1);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

struct pin_torture {
	u32 failures;
};

/* Every CPU pins and unpins overlapping windows of the same pages. */
static void pin_torture_cpu(void *arg)
{
	struct pin_torture *pt = arg;
	struct page *mine[16];
	unsigned off = this_cpu()->cpu_id % (PIN_PAGES - 16);

	for (int r = 0; r < PIN_ROUNDS; r++) {
		int n = pin_pages_fast(pin_mm, PIN_BASE + (off + r % 8) * PT_PAGE_4K, 16, 0, mine,
				       &pin_policy_default);

		if (n != 16 || unpin_pages(mine, 16))
			atomic_fetch_add(&pt->failures, 1);
	}
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
	KASSERT_EQ(t, smp_call_others(pin_torture_cpu, &pt, false), 0);
	pin_torture_cpu(&pt);
	KASSERT_EQ(t, smp_call_wait(), 0);
	KEXPECT_EQ(t, pt.failures, 0);
	for (int i = 0; i < PIN_PAGES; i++) {
		KEXPECT_EQ(t, page_ref_count(pages[i]), refs[i]);
		KEXPECT_EQ(t, page_pin_count(pages[i]), 0);
	}
}

/* Device pages: naive walks the tree per page, cached once per pagemap range. */
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
	lk = my_count(PCPU_PAGEMAP_LOOKUPS);
	refs = my_count(PCPU_PAGEMAP_REFS);
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, base, npages, 0, pages, &naive_flag), npages);
	KEXPECT_EQ(t, my_count(PCPU_PAGEMAP_LOOKUPS) - lk, npages);
	KEXPECT_EQ(t, my_count(PCPU_PAGEMAP_REFS) - refs, npages);
	unpin_pages(pages, npages);
	lk = my_count(PCPU_PAGEMAP_LOOKUPS);
	refs = my_count(PCPU_PAGEMAP_REFS);
	KEXPECT_EQ(t, pin_pages_fast(pin_mm, base, npages, 0, pages, &fixed_flag), npages);
	KEXPECT_EQ(t, my_count(PCPU_PAGEMAP_LOOKUPS) - lk, 2);
	KEXPECT_EQ(t, my_count(PCPU_PAGEMAP_REFS) - refs, 2);
	unpin_pages(pages, npages);
	KEXPECT_EQ(t, dm.pgmap[0].ref, 0);
	KEXPECT_EQ(t, dm.pgmap[1].ref, 0);
	KEXPECT_EQ(t, mm_unmap_region(pin_mm, base, npages * PT_PAGE_4K), 0);
	KEXPECT_EQ(t, devmem_destroy(&dm), 0);
}

/* A 2 MiB mapping: one call pins all its pages on the block's head. */
static void test_pin_large_page_head(struct ktest *t)
{
	struct mm *mm;
	struct page *block = page_alloc(9, PMM_ZERO);
	static struct page *big[512];
	vaddr_t base = 0x80000000ul;

	KASSERT(t, block != NULL);
	KASSERT_EQ(t, mm_create(&mm), 0);
	KASSERT_EQ(t, pt_map(mm->root, base, page_to_phys(block), PT_PAGE_2M,
			     PROT_READ | PROT_WRITE | PROT_USER, PT_PAGE_2M), 0);
	KEXPECT_EQ(t, pin_pages_fast(mm, base, 512, PIN_FAST_ONLY, big, &pin_policy_default), 512);
	KEXPECT_EQ(t, page_pin_count(block), 512);
	KEXPECT(t, big[511] == block + 511);
	KEXPECT_EQ(t, unpin_pages(big, 512), 0);
	KEXPECT_EQ(t, page_pin_count(block), 0);
	KEXPECT_EQ(t, page_ref_count(block), 1);
	{
		struct pt_gather g;

		pt_gather_init(&g, NULL, NULL);
		KEXPECT_EQ(t, pt_unmap(mm->root, base, PT_PAGE_2M, &g), 0);
		pt_gather_finish(&g);
	}
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, page_free(block, 9), 0);
}

static const struct ktest_case pin_cases[] = {
	KTEST_CASE(test_pin_slow_path_and_counts),
	KTEST_CASE(test_pin_bad_calls),
	KTEST_CASE(test_pin_overflow_refused),
	KTEST_CASE(test_pin_flag_writes),
	KTEST_CASE(test_pin_concurrent_counts_restored),
	KTEST_CASE(test_pin_device_lookups),
	KTEST_CASE(test_pin_large_page_head),
};
KTEST_SUITE_EXT(pin, pin_cases, pin_suite_init, pin_suite_exit, NULL);
