/*
 * Tests for page migration (mm/migrate.c) through every TLB design: each
 * page ends on a frame of the destination node with its content, the leaf
 * points at it, the old frame is freed once the design settled, and naive
 * and batched flush exactly once per page and once per batch. The host
 * lays the fake memory out as two nodes; the kernel uses its own nodes
 * (the last one with room, or the source node itself on one node).
 */
#include "mm/migrate.h"
#include "errno.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

#define MIG_VA 0x40000000ul
#define MIG_PAGES (2 * MIGRATE_BATCH + 5) /* two full batches and a short one */

static paddr_t mig_old[MIG_PAGES];

/* The destination: the highest node with room for the pages, else @src. */
static unsigned mig_dst_node(unsigned src)
{
	for (unsigned n = pmm_node_count(); n-- > 0;) {
		struct pmm_node_stats ns;

		if (n != src && !pmm_node_stats_get(n, &ns) && ns.free >= 4 * MIG_PAGES)
			return n;
	}
	return src;
}

static paddr_t mig_pa(struct mm *mm, unsigned i)
{
	paddr_t pa = 0;

	if (pt_lookup(mm->root, MIG_VA + (vaddr_t)i * PAGE_SIZE, &pa, NULL, NULL))
		return 0;
	return pa;
}

/* Populated, a pattern in every page, the old frames recorded. */
static int mig_fill(struct mm *mm)
{
	int err = mm_map_region(mm, MIG_VA, MIG_PAGES * PAGE_SIZE, MM_READ | MM_WRITE);

	if (!err)
		err = mm_populate(mm, MIG_VA, MIG_PAGES * PAGE_SIZE);
	for (unsigned i = 0; i < MIG_PAGES && !err; i++) {
		u64 *w = phys_to_virt(mig_old[i] = mig_pa(mm, i));

		for (unsigned k = 0; k < PAGE_SIZE / 8; k++)
			w[k] = (u64)i << 32 | k;
	}
	return err;
}

/* Pages not on @dst, not moved, or with a wrong word. */
static unsigned mig_bad_pages(struct mm *mm, unsigned dst, bool moved)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < MIG_PAGES; i++) {
		paddr_t pa = mig_pa(mm, i);
		const u64 *w = phys_to_virt(pa);
		bool ok = pa && page_node(phys_to_page(pa)) == dst && (pa != mig_old[i]) == moved;

		for (unsigned k = 0; ok && k < PAGE_SIZE / 8; k++)
			ok = w[k] == ((u64)i << 32 | k);
		bad += !ok;
	}
	return bad;
}

/*
 * Old frame @pa went back to the allocator: unreferenced, or (migrating
 * within one node) handed out again as a later batch's new frame.
 */
static bool mig_old_freed(struct mm *mm, paddr_t pa)
{
	const struct page *p = phys_to_page(pa);

	for (unsigned j = 0; j < MIG_PAGES; j++)
		if (mig_pa(mm, j) == pa)
			return page_ref_count(p) == 1 && page_mapcount(p) == 1;
	return page_ref_count(p) == 0 && page_mapcount(p) == 0;
}

/* The flush rounds @ops promises for MIG_PAGES pages; 0: no exact count (deferring designs). */
static u64 mig_expected_flushes(const struct tlb_ops *ops)
{
	if (ops->add == tlb_add_flush_first)
		return MIG_PAGES;
	if (!ops->add && !ops->gather_flush)
		return (MIG_PAGES + MIGRATE_BATCH - 1) / MIGRATE_BATCH;
	return 0;
}

static void mig_design_check(struct ktest *t, const struct tlb_ops *ops, unsigned src)
{
	unsigned dst = mig_dst_node(src), freed = 0;
	struct migrate_counts c = { 0 };
	u64 want = mig_expected_flushes(ops);
	struct mm *mm;

	KASSERT_EQ(t, mm_create_node(&mm, src, 0), 0);
	KASSERT_EQ(t, mig_fill(mm), 0);
	KEXPECT_EQ(t, mig_bad_pages(mm, src, false), 0);
	KASSERT_EQ(t, tlb_design_enable(ops, true), 0);
	KEXPECT_EQ(t, mm_migrate_range(mm, MIG_VA, MIG_PAGES, dst, ops, &c), 0);
	KEXPECT_EQ(t, tlb_settle(ops, mm), 0);
	KEXPECT_EQ(t, tlb_design_enable(ops, false), 0);
	KEXPECT_EQ(t, c.moved, MIG_PAGES);
	KEXPECT_EQ(t, c.copies, MIG_PAGES);
	if (want)
		KEXPECT_EQ(t, c.flushes, want);
	KEXPECT(t, c.flushes <= MIG_PAGES);
	KEXPECT_EQ(t, mig_bad_pages(mm, dst, true), 0);
	for (unsigned i = 0; i < MIG_PAGES; i++)
		freed += mig_old_freed(mm, mig_old[i]);
	KEXPECT_EQ(t, freed, MIG_PAGES);
	ktest_log(t, "%s: %u pages node %u -> %u, %lu flush rounds", ops->d.name, MIG_PAGES, src,
		  dst, (unsigned long)c.flushes);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Every design but the controls: nodes, contents, frees; exact flush rounds where promised. */
static void test_migrate_designs(struct ktest *t)
{
	for (const struct design *const *d = tlb_designs; *d; d++)
		if (!(*d)->control)
			mig_design_check(t, tlb_ops_of(*d), 0);
}

/* A page not mapped: -EAGAIN, the pages before it moved, nothing leaked. */
static void test_migrate_hole(struct ktest *t)
{
	unsigned dst = mig_dst_node(0);
	struct migrate_counts c = { 0 };
	struct mm *mm;

	KASSERT_EQ(t, mm_create_node(&mm, 0, 0), 0);
	KASSERT_EQ(t, mm_map_region(mm, MIG_VA, 8 * PAGE_SIZE, MM_READ | MM_WRITE), 0);
	KASSERT_EQ(t, mm_populate(mm, MIG_VA, 4 * PAGE_SIZE), 0);
	KEXPECT_EQ(t, mm_migrate_range(mm, MIG_VA, 8, dst, &tlb_ops_batched, &c), -EAGAIN);
	KEXPECT_EQ(t, c.moved, 4);
	KEXPECT_EQ(t, c.flushes, 1);
	KEXPECT_EQ(t, page_node(phys_to_page(mig_pa(mm, 3))), dst);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

#ifdef HOST_BUILD
/* Two nodes: the first 24 MiB of the fake memory on node 0, the rest on node 1. */
static const struct pmm_node_range mig_ranges[] = {
	{ FAKE_PHYS_BASE, FAKE_PHYS_BASE + (24ull << 20), 0 },
	{ FAKE_PHYS_BASE + (24ull << 20), FAKE_PHYS_BASE + FAKE_MEM_SIZE, 1 },
};
static const u8 mig_dist[4] = { 10, 20, 20, 10 };
static const u8 mig_cpu_node[2] = { 0, 1 };

static int migrate_suite_init(struct ktest *t)
{
	paddr_t kroot;
	int err = emul_suite_init(t);

	fake_numa_set(2, mig_cpu_node, 2, mig_dist);
	if (!err)
		err = fake_pmm_init_nodes(mig_ranges, ARRAY_SIZE(mig_ranges), 2);
	if (!err)
		err = pt_root_alloc(&kroot, 0);
	if (!err)
		mm_init(kroot, 0);
	return err;
}

static void migrate_suite_exit(struct ktest *t)
{
	(void)t;
	fake_numa_set(1, NULL, 0, NULL);
	fake_pmm_init(0);
}
#else
#define migrate_suite_init NULL
#define migrate_suite_exit NULL
#endif

static const struct ktest_case migrate_cases[] = {
	KTEST_CASE(test_migrate_designs),
	KTEST_CASE(test_migrate_hole),
};
KTEST_SUITE_EXT(migrate, migrate_cases, migrate_suite_init, migrate_suite_exit, NULL);
