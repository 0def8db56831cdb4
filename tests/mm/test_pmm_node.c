/*
 * Tests for memory by NUMA node: the frame allocator's per-node lists
 * (mm/pmm.c, mm/pmm_node.c) and an address space's frames from a chosen
 * node (mm_create_node()). On the host the suite lays the fake memory out
 * as three nodes: 0 and 1 with memory split at an unaligned address, 2
 * with a CPU and no memory. In the kernel the same address-space case runs
 * over whatever nodes the firmware described.
 */
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/pt_entry.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

#define NODE_TEST_VA 0x40000000ul
#define NODE_TEST_PAGES 64

/* Frames of @mm (its struct, its tables, its pages over the test range) not on @node. */
static u64 mm_frames_off_node(struct mm *mm, unsigned node)
{
	u64 off = page_node(phys_to_page(virt_to_phys(mm))) != node;

	for (u64 i = 0; i < NODE_TEST_PAGES; i++) {
		struct pt_slot s;
		paddr_t pa;

		if (pt_slot_find(mm->root, NODE_TEST_VA + i * PAGE_SIZE, &s))
			return ~0ull;
		for (int level = 1; level <= PT_LEVELS; level++)
			off += page_node(phys_to_page(s.tables[level])) != node;
		if (!pt_slot_mapped(&s, &pa, NULL))
			return ~0ull; /* populate left a hole */
		off += page_node(phys_to_page(pa)) != node;
	}
	return off;
}

/* An address space on @node, populated, and every one of its frames checked. */
static void node_mm_check(struct ktest *t, unsigned node)
{
	struct mm *mm;

	KASSERT_EQ(t, mm_create_node(&mm, node, 0), 0);
	KEXPECT_EQ(t, mm->node, node);
	KEXPECT_EQ(t, mm_map_region(mm, NODE_TEST_VA, NODE_TEST_PAGES * PAGE_SIZE,
				    MM_READ | MM_WRITE),
		   0);
	KEXPECT_EQ(t, mm_populate(mm, NODE_TEST_VA, NODE_TEST_PAGES * PAGE_SIZE), 0);
	KEXPECT_EQ(t, mm_frames_off_node(mm, node), 0);
	ktest_log(t, "node %u: the mm, its tables and %u pages all from node %u", node,
		  NODE_TEST_PAGES, node);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/*
 * Every node with room: all of an address space's frames come from it.
 * A node without memory: refused unless fallback is allowed, and then
 * served by another node and counted.
 */
static void test_pmm_node_mm_frames(struct ktest *t)
{
	unsigned checked = 0;
	struct mm *mm;

	for (unsigned n = 0; n < pmm_node_count(); n++) {
		struct pmm_node_stats ns;
		struct pmm_stats before, after;

		KASSERT_EQ(t, pmm_node_stats_get(n, &ns), 0);
		if (ns.free >= 4 * NODE_TEST_PAGES) {
			node_mm_check(t, n);
			checked++;
			continue;
		}
		if (ns.managed)
			continue; /* some memory, too little left to test with: neither case */
		KEXPECT_EQ(t, mm_create_node(&mm, n, 0), -ENOMEM);
		pmm_stats_get(&before);
		KASSERT_EQ(t, mm_create_node(&mm, n, PMM_FALLBACK), 0);
		pmm_stats_get(&after);
		KEXPECT_EQ(t, after.fallbacks - before.fallbacks, 2); /* the struct and the root */
		ktest_log(t, "node %u has no memory: refused, then served by node %u", n,
			  page_node(phys_to_page(mm->root)));
		KEXPECT_EQ(t, mm_destroy(mm), 0);
	}
	KEXPECT_LE(t, 1, checked);
	KEXPECT_EQ(t, mm_create_node(&mm, pmm_node_count(), 0), -ENOMEM);
}

/* mm_create() takes the calling CPU's node. */
static void test_pmm_node_mm_local(struct ktest *t)
{
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm->node, pmm_local_node());
	KEXPECT_EQ(t, mm->node_flags, PMM_FALLBACK);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

#ifdef HOST_BUILD
/* The fake layout: node 0 below NODE_SPLIT, node 1 above, node 2 a CPU and no memory. */
#define NODE_SPLIT (FAKE_PHYS_BASE + (25ull << 20) + 3 * PAGE_SIZE)

static const struct pmm_node_range node_ranges[] = {
	{ FAKE_PHYS_BASE + (32ull << 20), FAKE_PHYS_BASE + FAKE_MEM_SIZE, 1 },
	{ FAKE_PHYS_BASE, NODE_SPLIT, 0 },
	{ NODE_SPLIT, FAKE_PHYS_BASE + (32ull << 20), 1 },
};
/* From node 2, node 1 is nearer than node 0. */
static const u8 node_dist[9] = { 10, 30, 20, 30, 10, 12, 20, 12, 10 };
static const u8 node_of_cpu[3] = { 0, 1, 2 };

static int pmm_node_suite_init(struct ktest *t)
{
	paddr_t kroot;
	int err = emul_suite_init(t);

	fake_numa_set(3, node_of_cpu, 3, node_dist);
	if (!err)
		err = fake_pmm_init_nodes(node_ranges, ARRAY_SIZE(node_ranges), 3);
	if (!err)
		err = pt_root_alloc(&kroot, 0);
	if (!err)
		mm_init(kroot, 0);
	return err;
}

static void pmm_node_suite_exit(struct ktest *t)
{
	(void)t;
	fake_arch_set_cpu(0);
	fake_numa_set(1, NULL, 0, NULL);
	fake_pmm_init(0);
}

/* Per-node counts add up, and the frames either side of the split are on their nodes. */
static void test_pmm_node_layout(struct ktest *t)
{
	struct pmm_node_stats n0, n1, n2;
	struct pmm_stats s;
	u64 split = NODE_SPLIT >> PAGE_SHIFT;

	pmm_stats_get(&s);
	KASSERT_EQ(t, pmm_node_stats_get(0, &n0), 0);
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1), 0);
	KASSERT_EQ(t, pmm_node_stats_get(2, &n2), 0);
	KEXPECT_EQ(t, pmm_node_stats_get(3, &n2), -EINVAL);
	KEXPECT_EQ(t, s.nodes, 3);
	KEXPECT_EQ(t, n0.managed + n1.managed, s.managed);
	KEXPECT_EQ(t, n2.managed, 0);
	KEXPECT_EQ(t, s.unlisted, 0);
	KEXPECT_EQ(t, page_node(pfn_to_page(split - 1)), 0);
	KEXPECT_EQ(t, page_node(pfn_to_page(split)), 1);
}

/* Takes every frame @node has, strictly: each one is on @node. Returns how many. */
static u64 drain_node(struct ktest *t, unsigned node, struct page_list *held)
{
	u64 n = 0, wrong = 0;
	struct page *p;

	while ((p = page_alloc_node(0, 0, node))) {
		wrong += page_node(p) != node;
		page_list_add(held, p);
		n++;
	}
	KEXPECT_EQ(t, wrong, 0);
	return n;
}

static void free_held(struct page_list *held)
{
	struct page *p;

	while ((p = page_list_pop(held)))
		page_free(p, 0);
}

/* A node runs dry alone; only PMM_FALLBACK then reaches another, and it is counted. */
static void test_pmm_node_strict_and_fallback(struct ktest *t)
{
	struct pmm_node_stats n1;
	struct pmm_stats before, after;
	struct page_list held;
	struct page *p;

	page_list_init(&held);
	pmm_drain_all();
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1), 0);
	pmm_stats_get(&before);
	KEXPECT_EQ(t, drain_node(t, 1, &held), n1.free);
	KEXPECT(t, page_alloc_node(0, 0, 1) == NULL);
	KEXPECT(t, page_alloc_node(3, 0, 1) == NULL);
	p = page_alloc_node(3, PMM_FALLBACK, 1);
	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, page_node(p), 0);
	pmm_stats_get(&after);
	KEXPECT_EQ(t, after.fallbacks - before.fallbacks, 1);
	page_free(p, 3);
	free_held(&held);
	pmm_drain_all();
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1), 0);
	KEXPECT_EQ(t, n1.free, n1.managed);
}

/* A CPU whose cache holds node 0 frames still gets node 1's, and they go back to node 1. */
static void test_pmm_node_cache(struct ktest *t)
{
	struct pmm_node_stats n1, n1_after;
	struct page *local, *remote;

	fake_arch_set_cpu(0);
	pmm_drain_all();
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1), 0);
	local = page_alloc(0, 0); /* fills CPU 0's cache from node 0 */
	remote = page_alloc_node(0, 0, 1);
	KASSERT(t, local && remote);
	KEXPECT_EQ(t, page_node(local), 0);
	KEXPECT_EQ(t, page_node(remote), 1);
	page_free(remote, 0);
	page_free(local, 0);
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1_after), 0);
	KEXPECT_EQ(t, n1_after.free, n1.free); /* straight back to node 1's lists */
	KEXPECT_EQ(t, n1_after.pcp, 0);
}

/* A batch of dropped frames of both nodes: each to its own node, none into the other's cache. */
static void test_pmm_node_dropped_batch(struct ktest *t)
{
	struct pmm_node_stats n0, n1, n0_after, n1_after;
	struct page *batch[6];

	fake_arch_set_cpu(0);
	pmm_drain_all();
	KASSERT_EQ(t, pmm_node_stats_get(0, &n0), 0);
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(batch); i++) {
		batch[i] = page_alloc_node(0, 0, i % 2);
		KASSERT(t, batch[i] != NULL);
		KEXPECT(t, page_ref_dec_and_test(batch[i]));
	}
	KEXPECT_EQ(t, page_free_dropped(batch, ARRAY_SIZE(batch)), ARRAY_SIZE(batch));
	/* Through CPU 0's cache again: only node 0's frames come out for node 0. */
	for (unsigned i = 0; i < ARRAY_SIZE(batch); i++) {
		batch[i] = page_alloc_node(0, 0, 0);
		KASSERT(t, batch[i] != NULL);
		KEXPECT_EQ(t, page_node(batch[i]), 0);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(batch); i++)
		page_free(batch[i], 0);
	pmm_drain_all();
	KASSERT_EQ(t, pmm_node_stats_get(0, &n0_after), 0);
	KASSERT_EQ(t, pmm_node_stats_get(1, &n1_after), 0);
	KEXPECT_EQ(t, n0_after.free, n0.free);
	KEXPECT_EQ(t, n1_after.free, n1.free);
}

/* The CPU of memory-less node 2: its local frames come from node 1, the nearer. */
static void test_pmm_node_memoryless_cpu(struct ktest *t)
{
	struct page *p;
	struct mm *mm;

	KEXPECT_EQ(t, pmm_node_next(2, 2, 3), 1);
	KEXPECT_EQ(t, pmm_node_next(2, 1, 3), 0);
	KEXPECT_EQ(t, pmm_node_next(2, 0, 3), PMM_NODE_NONE);
	KEXPECT_EQ(t, pmm_node_next(0, 0, 3), 2);
	fake_arch_set_cpu(2);
	KEXPECT_EQ(t, pmm_local_node(), 2);
	p = page_alloc(0, 0);
	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, page_node(p), 1);
	page_free(p, 0);
	KEXPECT(t, page_alloc_node(0, 0, PMM_NODE_LOCAL) == NULL);
	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm->node, 2);
	KEXPECT_EQ(t, page_node(phys_to_page(mm->root)), 1);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	fake_arch_set_cpu(0);
}

/* Memory no range names is node 0's, and counted; pmm_init() warns about it. */
static void test_pmm_node_unlisted(struct ktest *t)
{
	struct pmm_stats s;
	u64 pfn = (FAKE_PHYS_BASE + (40ull << 20)) >> PAGE_SHIFT;

	KASSERT_EQ(t, fake_pmm_init_nodes(node_ranges + 1, 2, 3), 0);
	pmm_stats_get(&s);
	KEXPECT_LE(t, 1, s.unlisted);
	KEXPECT_EQ(t, page_node(pfn_to_page(pfn)), 0);
	KEXPECT_EQ(t, pmm_node_stats_get(2, &(struct pmm_node_stats){ 0 }), 0);
	KASSERT_EQ(t, pmm_node_suite_init(t), 0); /* back to the suite's layout */
}

#else
#define HOST_ONLY(fn)                                                                              \
	static void fn(struct ktest *t)                                                            \
	{                                                                                          \
		ktest_skip(t, "needs a fake node layout over a fresh allocator (host only)");      \
	}
HOST_ONLY(test_pmm_node_layout)
HOST_ONLY(test_pmm_node_strict_and_fallback)
HOST_ONLY(test_pmm_node_cache)
HOST_ONLY(test_pmm_node_dropped_batch)
HOST_ONLY(test_pmm_node_memoryless_cpu)
HOST_ONLY(test_pmm_node_unlisted)
#define pmm_node_suite_init NULL
#define pmm_node_suite_exit NULL
#endif

static const struct ktest_case pmm_node_cases[] = {
	KTEST_CASE(test_pmm_node_mm_frames),
	KTEST_CASE(test_pmm_node_mm_local),
	KTEST_CASE(test_pmm_node_layout),
	KTEST_CASE(test_pmm_node_strict_and_fallback),
	KTEST_CASE(test_pmm_node_cache),
	KTEST_CASE(test_pmm_node_dropped_batch),
	KTEST_CASE(test_pmm_node_memoryless_cpu),
	KTEST_CASE(test_pmm_node_unlisted),
};
KTEST_SUITE_EXT(pmm_node, pmm_node_cases, pmm_node_suite_init, pmm_node_suite_exit, NULL);
