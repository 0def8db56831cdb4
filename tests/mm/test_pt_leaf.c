/*
 * Tests for mm/pt_leaf.c and what mm/pt.c gained for address spaces: the
 * fault path's single-entry install and replace, pt_populate(), swap
 * entries (kept in the entry counts, removed and reported by unmap), the
 * leaf walk, and gathers that hand unmapped frames to a release hook only
 * after their flush. Private roots that no CPU loads; host and kernel.
 */
#include "errno.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"

#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

#define VA 0x40000000ul

static void test_pt_leaf_install(struct ktest *t)
{
	u64 before = pt_table_pages();
	paddr_t root = mm_test_new_root(t), pa = 0;
	unsigned prot = 0;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_leaf_install(root, VA, 0x5000, PRW), -ENOENT);
	KEXPECT_EQ(t, pt_populate(root, VA, 3 * MB2, KB4), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 1 + 1 + 1 + 3); /* root, PDPT, PD, 3 PTs */
	KEXPECT_EQ(t, pt_populate(root, VA, 3 * MB2, KB4), 0);	/* nothing more */
	KEXPECT_EQ(t, pt_table_pages() - before, 6);
	KEXPECT_EQ(t, pt_leaf_install(root, VA + KB4, 0x5000, PRW), 0);
	KEXPECT_EQ(t, pt_leaf_install(root, VA + KB4, 0x6000, PRW), -EEXIST);
	KEXPECT_EQ(t, pt_leaf_install(root, VA + 0x800, 0x6000, PRW), -EINVAL);
	KEXPECT_EQ(t, pt_leaf_install(root, VA, 0x6000, PROT_WRITE), -EINVAL);
	KEXPECT_EQ(t, pt_lookup(root, VA + KB4 + 8, &pa, &prot, NULL), 0);
	KEXPECT_EQ(t, pa, 0x5008);
	KEXPECT_EQ(t, prot, pt_prot_effective(PRW));
	/* A huge leaf in the way is reported as occupied, not as a missing table. */
	KEXPECT_EQ(t, pt_map(root, 4 * GB1, 0, MB2, PRW, MB2), 0);
	KEXPECT_EQ(t, pt_leaf_install(root, 4 * GB1 + KB4, 0x5000, PRW), -EEXIST);
	KEXPECT_EQ(t, pt_populate(root, 4 * GB1, KB4, KB4), -EEXIST);
	/* The installed entry counts: unmapping it empties and frees its tables. */
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0, 8 * GB1), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 1);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

static void test_pt_leaf_replace(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t), pa = 0;
	unsigned prot = 0;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_leaf_replace(root, VA, 0x5000, 0x6000, PRW), -EAGAIN);
	KEXPECT_EQ(t, pt_map(root, VA, 0x5000, KB4, PROT_READ, KB4), 0);
	KEXPECT_EQ(t, pt_leaf_replace(root, VA, 0x7000, 0x6000, PRW), -EAGAIN);
	KEXPECT_EQ(t, pt_leaf_replace(root, VA, 0x5000, 0x5000, PRW), 0);
	KEXPECT_EQ(t, pt_lookup(root, VA, &pa, &prot, NULL), 0);
	KEXPECT_EQ(t, pa, 0x5000);
	KEXPECT_EQ(t, prot, pt_prot_effective(PRW));
	KEXPECT_EQ(t, pt_leaf_replace(root, VA, 0x5000, 0x6000, PROT_READ), 0);
	KEXPECT_EQ(t, pt_lookup(root, VA, &pa, &prot, NULL), 0);
	KEXPECT_EQ(t, pa, 0x6000);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ));
	KEXPECT_EQ(t, mm_test_unmap_now(root, VA, KB4), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

struct swap_probe {
	u64 calls, entries, last;
};

static void probe_swap(struct pt_gather *g, const u64 *swp, unsigned n)
{
	struct swap_probe *p = g->arg;

	p->calls++;
	p->entries += n;
	p->last = swp[n - 1];
}

static void test_pt_leaf_swap(struct ktest *t)
{
	struct swap_probe probe = { 0 };
	u64 before = pt_table_pages(), swp = 0;
	paddr_t root = mm_test_new_root(t);
	struct pt_gather g;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_swap_set(root, VA, 0), -EINVAL);
	KEXPECT_EQ(t, pt_swap_set(root, VA, PT_SWAP_MAX + 1), -EINVAL);
	KEXPECT_EQ(t, pt_swap_lookup(root, VA, &swp), -ENOENT);
	KEXPECT_EQ(t, pt_swap_set(root, VA, PT_SWAP_MAX), 0);
	KEXPECT_EQ(t, pt_swap_lookup(root, VA, &swp), 0);
	KEXPECT_EQ(t, swp, PT_SWAP_MAX);
	KEXPECT_EQ(t, pt_swap_set(root, VA, 7), -EEXIST);
	/* A swap entry is no translation, and occupies its slot. */
	KEXPECT_EQ(t, pt_lookup(root, VA, NULL, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, pt_map(root, VA, 0x5000, KB4, PRW, KB4), -EEXIST);
	KEXPECT_EQ(t, pt_leaf_install(root, VA, 0x5000, PRW), -EEXIST);
	KEXPECT_EQ(t, pt_protect(root, VA, KB4, PROT_READ), 0);
	KEXPECT_EQ(t, pt_swap_lookup(root, VA, &swp), 0);
	/* The last entry of its table: the table stays until unmap removes it. */
	KEXPECT_EQ(t, pt_table_pages() - before, 4);
	pt_gather_init(&g, NULL, &probe);
	g.swap_free = probe_swap;
	KEXPECT_EQ(t, pt_unmap(root, VA, MB2, &g), 0);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, probe.calls, 1);
	KEXPECT_EQ(t, probe.entries, 1);
	KEXPECT_EQ(t, probe.last, PT_SWAP_MAX);
	KEXPECT_EQ(t, g.swap_cleared, 1);
	KEXPECT_EQ(t, pt_table_pages() - before, 1);
	KEXPECT_EQ(t, pt_swap_lookup(root, VA, &swp), -ENOENT);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

/*
 * Unmap hands swap entries over in runs of consecutive pages, cut at gaps
 * and at each PT_GATHER_SWAPS-page boundary, so an aligned folio arrives
 * whole; a 4 KiB leaf between entries also ends a run.
 */
static void test_pt_leaf_swap_runs(struct ktest *t)
{
	struct swap_probe probe = { 0 };
	paddr_t root = mm_test_new_root(t);
	vaddr_t base = VA + (PT_GATHER_SWAPS - 4) * KB4;
	struct pt_gather g;
	unsigned i;

	KASSERT(t, root != 0);
	for (i = 0; i < 8; i++) /* 4 before the boundary, 4 after */
		KEXPECT_EQ(t, pt_swap_set(root, base + i * KB4, 100 + i), 0);
	KEXPECT_EQ(t, pt_map(root, base + 8 * KB4, 0x5000, KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_swap_set(root, base + 9 * KB4, 200), 0);
	KEXPECT_EQ(t, pt_swap_set(root, base + 11 * KB4, 201), 0);
	pt_gather_init(&g, NULL, &probe);
	g.swap_free = probe_swap;
	KEXPECT_EQ(t, pt_unmap(root, VA, MB2, &g), 0);
	/* Handed over by the unmap itself, before the gather's finish. */
	KEXPECT_EQ(t, probe.calls, 4);
	KEXPECT_EQ(t, probe.entries, 10);
	KEXPECT_EQ(t, probe.last, 201);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, probe.calls, 4);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

/* Swap-out and swap-in of one leaf: leaf -> entry (flush range gathered) -> leaf. */
static void test_pt_leaf_swap_exchange(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t), pa = 0;
	struct pt_gather g;
	unsigned prot = 0;
	u64 swp = 0;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, VA, 0x5000, KB4, PRW, KB4), 0);
	pt_gather_init(&g, NULL, NULL);
	KEXPECT_EQ(t, pt_leaf_to_swap(root, VA, 0x6000, 42, &g, &prot), -ENOENT);
	KEXPECT_EQ(t, pt_leaf_to_swap(root, VA + KB4, 0x5000, 42, &g, &prot), -ENOENT);
	KEXPECT_EQ(t, pt_leaf_to_swap(root, VA, 0x5000, 0, &g, &prot), -EINVAL);
	KEXPECT_EQ(t, pt_leaf_to_swap(root, VA, 0x5000, 42, &g, &prot), 0);
	KEXPECT_EQ(t, prot, pt_prot_effective(PRW));
	KEXPECT_EQ(t, g.start, VA);
	KEXPECT_EQ(t, g.last, VA + KB4 - 1);
	KEXPECT_EQ(t, g.unmapped, KB4);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, pt_lookup(root, VA, NULL, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, pt_swap_lookup(root, VA, &swp), 0);
	KEXPECT_EQ(t, swp, 42);
	KEXPECT_EQ(t, pt_swap_to_leaf(root, VA, 41, 0x7000, PROT_READ), -EAGAIN);
	KEXPECT_EQ(t, pt_swap_to_leaf(root, VA + MB2, 42, 0x7000, PROT_READ), -EAGAIN);
	KEXPECT_EQ(t, pt_swap_to_leaf(root, VA, 42, 0x7000, PROT_READ), 0);
	KEXPECT_EQ(t, pt_swap_to_leaf(root, VA, 42, 0x7000, PROT_READ), -EAGAIN);
	KEXPECT_EQ(t, pt_lookup(root, VA, &pa, &prot, NULL), 0);
	KEXPECT_EQ(t, pa, 0x7000);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ));
	/* The entry count stayed right throughout: one unmap empties the table. */
	KEXPECT_EQ(t, mm_test_unmap_now(root, VA, KB4), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

struct walk_log {
	unsigned n;
	struct pt_leaf leaf[8];
};

static int log_leaf(void *arg, const struct pt_leaf *leaf)
{
	struct walk_log *w = arg;

	if (w->n == 8)
		return -E2BIG;
	w->leaf[w->n++] = *leaf;
	return 0;
}

static void test_pt_leaf_walk(struct ktest *t)
{
	struct walk_log w = { 0 };
	paddr_t root = mm_test_new_root(t);

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, VA + 3 * KB4, 0x5000, 2 * KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_map(root, VA + MB2, 0x40000000, MB2, PROT_READ, MB2), 0);
	KEXPECT_EQ(t, pt_swap_set(root, VA + 9 * KB4, 42), 0);
	KEXPECT_EQ(t, pt_walk(root, VA + 4 * KB4, MB2 + KB4, log_leaf, &w), 0);
	KASSERT(t, w.n == 3);
	KEXPECT_EQ(t, w.leaf[0].va, VA + 4 * KB4);
	KEXPECT_EQ(t, w.leaf[0].pa, 0x6000);
	KEXPECT_EQ(t, w.leaf[0].size, KB4);
	KEXPECT_EQ(t, w.leaf[0].prot, pt_prot_effective(PRW));
	KEXPECT_EQ(t, w.leaf[1].va, VA + 9 * KB4);
	KEXPECT_EQ(t, w.leaf[1].swp, 42);
	KEXPECT_EQ(t, w.leaf[1].pa, 0);
	KEXPECT_EQ(t, w.leaf[2].va, VA + MB2);
	KEXPECT_EQ(t, w.leaf[2].size, MB2);
	KEXPECT_EQ(t, w.leaf[2].prot, pt_prot_effective(PROT_READ));
	w.n = 8;
	KEXPECT_EQ(t, pt_walk(root, VA, GB1, log_leaf, &w), -E2BIG);
	KEXPECT_EQ(t, pt_walk(root, VA + 1, KB4, log_leaf, &w), -EINVAL);
	KEXPECT_EQ(t, mm_test_unmap_now(root, VA, GB1), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

struct release_probe {
	u64 flushes, released, released_before_flush;
	u64 calls; /* release calls: one per batch */
	paddr_t frames[4];
};

static void probe_flush(struct pt_gather *g)
{
	struct release_probe *p = g->arg;

	p->flushes++;
}

static void probe_release(struct pt_gather *g, struct page **pages, unsigned n)
{
	struct release_probe *p = g->arg;

	p->calls++;
	for (unsigned i = 0; i < n; i++) {
		if (!p->flushes)
			p->released_before_flush++;
		if (p->released < 4)
			p->frames[p->released] = page_to_phys(pages[i]);
		p->released++;
	}
}

/*
 * Unmapped frames go to the release hook after the flush; huge leaves and
 * non-memmap frames do not.
 */
static void test_pt_leaf_gather_release(struct ktest *t)
{
	struct page *a = page_alloc(0, 0), *b = page_alloc(0, 0);
	struct release_probe probe = { 0 };
	paddr_t root = mm_test_new_root(t);
	struct pt_gather g;

	KASSERT(t, root && a && b);
	KEXPECT_EQ(t, pt_map(root, VA, page_to_phys(a), KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_map(root, VA + KB4, page_to_phys(b), KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_map(root, VA + MB2, 0x40000000, MB2, PRW, MB2), 0);
	pt_gather_init(&g, probe_flush, &probe);
	g.release = probe_release;
	KEXPECT_EQ(t, pt_unmap(root, VA, 2 * MB2, &g), 0);
	KEXPECT_EQ(t, g.nr_pages, 2);
	KEXPECT_EQ(t, probe.released, 0);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, probe.flushes, 1);
	KEXPECT_EQ(t, probe.released, 2);
	KEXPECT_EQ(t, probe.released_before_flush, 0);
	KEXPECT_EQ(t, probe.frames[0], page_to_phys(a));
	KEXPECT_EQ(t, probe.frames[1], page_to_phys(b));
	KEXPECT_EQ(t, pt_root_free(root), 0);
	page_free(a, 0);
	page_free(b, 0);
}

#define GATHER_ALIAS_BYTES (2 * MB2) /* one order-10 block: 1024 frames */
#define GATHER_ALIASES 9		/* 9216 pages: more than one gather holds */

/* Maps the 1024 frames of @block at GATHER_ALIASES consecutive places from VA. */
static void map_aliases(struct ktest *t, paddr_t root, struct page *block)
{
	for (unsigned k = 0; k < GATHER_ALIASES; k++)
		KEXPECT_EQ(t, pt_map(root, VA + k * GATHER_ALIAS_BYTES, page_to_phys(block),
				     GATHER_ALIAS_BYTES, PRW, KB4), 0);
}

/*
 * More frames than a gather holds: it grows (local array, then batch
 * pages) to PT_GATHER_PAGES, flushes and releases once inside the unmap,
 * and frees its batch pages at the finish.
 */
/* Frames where pt_gather_copy_pages() and pt_gather_page_at() differ, or -1 (no memory). */
static int gather_copy_mismatches(const struct pt_gather *g)
{
	struct page *buf = page_alloc(4, 0);
	struct page **copy;
	int bad = 0;

	BUILD_ASSERT(PT_GATHER_PAGES * sizeof(*copy) <= (PAGE_SIZE << 4));
	if (!buf)
		return -1;
	copy = page_address(buf);
	pt_gather_copy_pages(g, copy);
	for (unsigned i = 0; i < g->nr_pages; i++)
		bad += copy[i] != pt_gather_page_at(g, i);
	page_free(buf, 4);
	return bad;
}

static void test_pt_leaf_gather_rounds(struct ktest *t)
{
	struct release_probe probe = { 0 };
	struct page *block = page_alloc(10, 0);
	paddr_t root = mm_test_new_root(t);
	struct pmm_stats s0, s1;
	struct pt_gather g;
	u64 tables;

	KASSERT(t, root && block);
	map_aliases(t, root, block);
	tables = pt_table_pages();
	pmm_stats_get(&s0);
	pt_gather_init(&g, probe_flush, &probe);
	g.release = probe_release;
	BUILD_ASSERT(PT_GATHER_PAGES == 8192 && PT_GATHER_LOCAL == 64 && PT_GATHER_BATCH == 510);
	/* A batch is flushed when the next frame does not fit: one round inside the unmap, */
	KEXPECT_EQ(t, pt_unmap(root, VA, GATHER_ALIASES * GATHER_ALIAS_BYTES, &g), 0);
	KEXPECT_EQ(t, probe.flushes, 1);
	KEXPECT_EQ(t, probe.released, PT_GATHER_PAGES);
	/* in one release per batch: the local 64, then 16 batch pages (15 x 510 + 478), */
	KEXPECT_EQ(t, probe.calls, 17);
	KEXPECT_EQ(t, g.nr_pages, GATHER_ALIASES * 1024 - PT_GATHER_PAGES);
	KEXPECT(t, pt_gather_page_at(&g, g.nr_pages - 1) == block + 1023);
	/* Copied in one pass over the local array and two batch pages, in the order gathered; */
	KEXPECT_EQ(t, gather_copy_mismatches(&g), 0);
	/* and the rest goes with the emptied tables; the batch pages go back too. */
	pt_gather_finish(&g);
	pmm_stats_get(&s1);
	KEXPECT_EQ(t, probe.flushes, 2);
	KEXPECT_EQ(t, probe.released, GATHER_ALIASES * 1024);
	KEXPECT_EQ(t, probe.released_before_flush, 0);
	KEXPECT(t, g.batches == NULL);
	KEXPECT_EQ(t, s1.free - s0.free, tables - pt_table_pages());
	KEXPECT_EQ(t, pt_root_free(root), 0);
	page_free(block, 10);
}

/* A gather that cannot grow (no frame for a batch page) flushes when its own 64 are full. */
static void test_pt_leaf_gather_no_memory(struct ktest *t)
{
	struct release_probe probe = { 0 };
	struct page *block = page_alloc(10, 0);
	paddr_t root = mm_test_new_root(t);
	struct pt_gather g;

	KASSERT(t, root && block);
	KEXPECT_EQ(t, pt_map(root, VA, page_to_phys(block), 300 * KB4, PRW, KB4), 0);
	pt_gather_init(&g, probe_flush, &probe);
	g.release = probe_release;
	pmm_inject_fail(0, 1000);
	KEXPECT_EQ(t, pt_unmap(root, VA, 300 * KB4, &g), 0);
	pmm_inject_fail(0, 0);
	KEXPECT_EQ(t, probe.flushes, 300 / PT_GATHER_LOCAL);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, probe.flushes, (300 + PT_GATHER_LOCAL - 1) / PT_GATHER_LOCAL);
	KEXPECT_EQ(t, probe.released, 300);
	KEXPECT_EQ(t, probe.released_before_flush, 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
	page_free(block, 10);
}

/*
 * A fault goes down the page tables once, and so does the unmap of a
 * range (edge checks and change together); counted by the host build's
 * debug counter. Before the walk was shared: 6, 3 and 3 walks.
 */
static void test_pt_leaf_walk_once(struct ktest *t)
{
#ifdef HOST_BUILD
	struct mm *mm;
	u64 w;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KASSERT_EQ(t, mm_map_region(mm, VA, 4 * KB4, MM_READ | MM_WRITE), 0);
	w = pt_debug_root_walks;
	KEXPECT_EQ(t, fault_handle_mm(mm, VA + KB4, FAULT_WRITE), 0); /* no tables yet */
	KEXPECT_EQ(t, pt_debug_root_walks - w, 1);
	w = pt_debug_root_walks;
	KEXPECT_EQ(t, fault_handle_mm(mm, VA + 2 * KB4, FAULT_WRITE), 0); /* the table is there */
	KEXPECT_EQ(t, pt_debug_root_walks - w, 1);
	w = pt_debug_root_walks;
	KEXPECT_EQ(t, mm_unmap_region(mm, VA + KB4, 2 * KB4), 0);
	KEXPECT_EQ(t, pt_debug_root_walks - w, 1);
	KEXPECT_EQ(t, pt_lookup(mm->root, VA + KB4, NULL, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
#else
	ktest_skip(t, "counts walks with a host-build debug counter");
#endif
}

static const struct ktest_case pt_leaf_cases[] = {
	KTEST_CASE(test_pt_leaf_install),
	KTEST_CASE(test_pt_leaf_replace),
	KTEST_CASE(test_pt_leaf_swap),
	KTEST_CASE(test_pt_leaf_swap_runs),
	KTEST_CASE(test_pt_leaf_swap_exchange),
	KTEST_CASE(test_pt_leaf_walk),
	KTEST_CASE(test_pt_leaf_gather_release),
	KTEST_CASE(test_pt_leaf_gather_rounds),
	KTEST_CASE(test_pt_leaf_gather_no_memory),
	KTEST_CASE(test_pt_leaf_walk_once),
};
KTEST_SUITE_EXT(pt_leaf, pt_leaf_cases, mm_test_fresh_pmm, NULL, NULL);
