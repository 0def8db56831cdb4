/*
 * Device pagemaps (mm/pin/pagemap.c): registration, lookups over range edges,
 * overlap refusal, the cached get's promise (no walk and no new reference
 * while pfns stay inside the cached pagemap), reference accounting, and the
 * tree giving every node back. Host and kernel: the pfns are synthetic (the
 * tree never touches the frames it indexes).
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "mm/devmem.h"
#include "mm/page.h"
#include "mm/pin/pagemap.h"
#include "mm/pmm.h"
#include "tests/ktest.h"
#include <arch/arch.h>
#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

/* Far above any RAM the tests run with, and straddling a leaf node (512 pfns). */
#define PGM_BASE 0x7ffff00ull
#define PGM_PAGES 384

static struct dev_pagemap pgm[3];

static int pagemap_suite_init(struct ktest *t)
{
	(void)t;
#ifdef HOST_BUILD
	fake_arch_set_cpu(0);
	if (fake_pmm_init(0))
		return -ENOMEM;
#endif
	for (unsigned i = 0; i < ARRAY_SIZE(pgm); i++) {
		pgm[i] = (struct dev_pagemap){ .start_pfn = PGM_BASE + i * PGM_PAGES,
					       .end_pfn = PGM_BASE + (i + 1) * PGM_PAGES,
					       .id = i };
		if (pagemap_register(&pgm[i]))
			return -ENOMEM;
	}
	return 0;
}

static void pagemap_suite_exit(struct ktest *t)
{
	for (unsigned i = 0; i < ARRAY_SIZE(pgm); i++)
		KEXPECT_EQ(t, pagemap_unregister(&pgm[i]), 0);
	KEXPECT_EQ(t, pagemap_tree_destroy(), 0);
	KEXPECT_EQ(t, pagemap_tree_nodes(), 0);
}

static u64 lookups(void)
{
	return percpu_counter_read(arch_cpu_id(), PCPU_PAGEMAP_LOOKUPS);
}

static void test_pagemap_lookup_edges(struct ktest *t)
{
	for (unsigned i = 0; i < ARRAY_SIZE(pgm); i++) {
		KEXPECT(t, pagemap_lookup(pgm[i].start_pfn) == &pgm[i]);
		KEXPECT(t, pagemap_lookup(pgm[i].end_pfn - 1) == &pgm[i]);
	}
	KEXPECT(t, pagemap_lookup(PGM_BASE - 1) == NULL);
	KEXPECT(t, pagemap_lookup(PGM_BASE + 3 * PGM_PAGES) == NULL);
	KEXPECT(t, pagemap_lookup(0) == NULL);
	KEXPECT(t, pagemap_lookup(~0ull) == NULL);
}

static void test_pagemap_overlap_refused(struct ktest *t)
{
	struct dev_pagemap bad = { .start_pfn = PGM_BASE + PGM_PAGES - 1,
				   .end_pfn = PGM_BASE + PGM_PAGES + 5 };
	struct dev_pagemap empty = { .start_pfn = 10, .end_pfn = 10 };

	KEXPECT_EQ(t, pagemap_register(&bad), -EINVAL);
	KEXPECT_EQ(t, pagemap_register(&empty), -EINVAL);
	KEXPECT(t, pagemap_lookup(PGM_BASE + PGM_PAGES - 1) == &pgm[0]);
}

/* The naive pattern: a walk and a reference per page, dropped at once. */
static void test_pagemap_get_per_page(struct ktest *t)
{
	u64 before = lookups();

	for (u64 pfn = pgm[0].start_pfn; pfn < pgm[0].end_pfn; pfn++) {
		struct dev_pagemap *p = pagemap_get(pfn, NULL);

		KASSERT(t, p == &pgm[0]);
		KEXPECT_EQ(t, p->ref, 1);
		pagemap_put(p);
	}
	KEXPECT_EQ(t, lookups() - before, PGM_PAGES);
	KEXPECT_EQ(t, pgm[0].ref, 0);
}

/* The cached pattern over all three ranges: one walk and one reference per range. */
static void test_pagemap_get_cached(struct ktest *t)
{
	struct dev_pagemap *p = NULL;
	u64 before = lookups();

	for (u64 pfn = PGM_BASE; pfn < PGM_BASE + 3 * PGM_PAGES; pfn++) {
		p = pagemap_get(pfn, p);
		KASSERT(t, p != NULL);
		KEXPECT_EQ(t, p->ref, 1);
	}
	pagemap_put(p);
	KEXPECT_EQ(t, lookups() - before, 3);
	for (unsigned i = 0; i < ARRAY_SIZE(pgm); i++)
		KEXPECT_EQ(t, pgm[i].ref, 0);
}

static void test_pagemap_busy_while_referenced(struct ktest *t)
{
	struct dev_pagemap *p = pagemap_get(pgm[1].start_pfn, NULL);

	KASSERT(t, p == &pgm[1]);
	KEXPECT_EQ(t, pagemap_unregister(&pgm[1]), -EBUSY);
	KEXPECT_EQ(t, pagemap_tree_destroy(), -EBUSY);
	pagemap_put(p);
	KEXPECT(t, pagemap_get(PGM_BASE - 1, NULL) == NULL);
}

/*
 * A getter that looked the pagemap up just before it was unregistered
 * must not get a reference on it afterwards: pagemap_get()'s two steps,
 * with pagemap_unregister() in between.
 */
static void test_pagemap_no_ref_after_unregister(struct ktest *t)
{
	struct dev_pagemap *p = pagemap_lookup(pgm[2].start_pfn);

	KASSERT(t, p == &pgm[2]);
	KASSERT_EQ(t, pagemap_unregister(&pgm[2]), 0);
	KEXPECT(t, !pagemap_tryget(p));
	KEXPECT(t, pagemap_lookup(pgm[2].start_pfn) == NULL);
	KEXPECT(t, pagemap_get(pgm[2].start_pfn, NULL) == NULL);
	/* Registered again, it takes references as before. */
	KASSERT_EQ(t, pagemap_register(&pgm[2]), 0);
	p = pagemap_get(pgm[2].start_pfn, NULL);
	KEXPECT(t, p == &pgm[2]);
	KEXPECT_EQ(t, pgm[2].ref, 1);
	if (p)
		pagemap_put(p);
	KEXPECT_EQ(t, pgm[2].ref, 0);
}

/* Device memory in use (a pagemap reference, a pin) is not given back, and stays registered. */
static void test_pagemap_devmem_destroy_busy(struct ktest *t)
{
	static struct devmem dm;
	struct pmm_stats s0, s1;
	u64 nodes0 = pagemap_tree_nodes();
	struct dev_pagemap *p;

	pmm_stats_get(&s0);
	KASSERT_EQ(t, devmem_create(&dm, 2, 2), 0);
	p = pagemap_get(page_to_pfn(devmem_page(&dm, 4)), NULL);
	KASSERT(t, p == &dm.pgmap[1]);
	KEXPECT_EQ(t, devmem_destroy(&dm), -EBUSY);
	KEXPECT(t, pagemap_lookup(page_to_pfn(devmem_page(&dm, 0))) == &dm.pgmap[0]);
	KEXPECT(t, page_test_flags(devmem_page(&dm, 0), PG_DEVICE));
	pagemap_put(p);
	/* A pin taken through a pagemap reference that is gone again. */
	KEXPECT_EQ(t, page_pin(devmem_page(&dm, 7)), 0);
	KEXPECT_EQ(t, devmem_destroy(&dm), -EBUSY);
	KEXPECT(t, pagemap_lookup(page_to_pfn(devmem_page(&dm, 0))) == &dm.pgmap[0]);
	KEXPECT(t, pagemap_lookup(page_to_pfn(devmem_page(&dm, 7))) == &dm.pgmap[1]);
	KEXPECT_EQ(t, dm.nranges, 2);
	KEXPECT_EQ(t, page_unpin(devmem_page(&dm, 7)), 0);
	KEXPECT_EQ(t, devmem_destroy(&dm), 0);
	KEXPECT(t, pagemap_lookup(page_to_pfn(devmem_page(&dm, 0))) == NULL);
	pmm_drain_all();
	pmm_stats_get(&s1);
	/* Every frame back but the tree nodes the new pfns needed (freed with the tree). */
	KEXPECT_EQ(t, s1.allocated - (pagemap_tree_nodes() - nodes0), s0.allocated);
}

static const struct ktest_case pagemap_cases[] = {
	KTEST_CASE(test_pagemap_lookup_edges),
	KTEST_CASE(test_pagemap_overlap_refused),
	KTEST_CASE(test_pagemap_get_per_page),
	KTEST_CASE(test_pagemap_get_cached),
	KTEST_CASE(test_pagemap_busy_while_referenced),
	KTEST_CASE(test_pagemap_no_ref_after_unregister),
	KTEST_CASE(test_pagemap_devmem_destroy_busy),
};
KTEST_SUITE_EXT(pagemap, pagemap_cases, pagemap_suite_init, pagemap_suite_exit, NULL);
