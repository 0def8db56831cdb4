/*
 * Tests of the one flush policy (mm/tlb/tlb.c tlb_flush_local()) and of the
 * tlb_ceiling= option that sets it: a gather's default local flush follows
 * the ceiling as a shootdown does, and an address space's gather honours a
 * removed global leaf. Counted through this CPU's PCPU_TLB_FLUSH_ONE/ALL,
 * so the same cases run on the host and in the kernel. The shootdown's
 * counts across CPUs under both ceilings are in tests/mm/tlb/test_tlb.c.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"

#define POL_VA 0x10000000ul
#define POL_PAGES 64

static u64 pol_count(const struct pcpu_counter *c)
{
	return percpu_counter_read(this_cpu()->cpu_id, c);
}

/* Unmaps @n pages at @va through the default flush; checks this CPU's ONE and ALL deltas. */
static void pol_unmap_expect(struct ktest *t, paddr_t root, vaddr_t va, unsigned n, u64 one,
			     u64 all)
{
	u64 one0 = pol_count(PCPU_TLB_FLUSH_ONE), all0 = pol_count(PCPU_TLB_FLUSH_ALL);

	KEXPECT_EQ(t, mm_test_unmap_now(root, va, (u64)n * KB4), 0);
	KEXPECT_EQ(t, pol_count(PCPU_TLB_FLUSH_ONE) - one0, one);
	KEXPECT_EQ(t, pol_count(PCPU_TLB_FLUSH_ALL) - all0, all);
}

/* A gather with no flush function (the kernel's own tables) follows tlb_ceiling= too. */
static void test_tlb_policy_local_follows_ceiling(struct ktest *t)
{
	unsigned saved = tlb_ceiling();
	paddr_t root = mm_test_new_root(t);

	KASSERT(t, root != 0);
	KASSERT_EQ(t, pt_map(root, POL_VA, 0, POL_PAGES * KB4, PROT_READ | PROT_WRITE, KB4), 0);
	tlb_set_ceiling(1);
	pol_unmap_expect(t, root, POL_VA, 1, 1, 0);
	pol_unmap_expect(t, root, POL_VA + KB4, 2, 0, 1);
	tlb_set_ceiling(512);
	pol_unmap_expect(t, root, POL_VA + 3 * KB4, POL_PAGES - 3, POL_PAGES - 3, 0);
	tlb_set_ceiling(0);
	KEXPECT_EQ(t, tlb_ceiling(), TLB_FLUSH_CEILING);
	tlb_set_ceiling(saved);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

#ifdef HOST_BUILD
/* An address space's gather that removed a global leaf flushes global entries too. */
static void test_tlb_policy_gather_global(struct ktest *t)
{
	struct pt_gather g;
	struct mm *mm = NULL;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KASSERT_EQ(t, pt_map(mm->root, POL_VA, 0, POL_PAGES * KB4,
			     PROT_READ | PROT_WRITE | PROT_GLOBAL, KB4), 0);
	mm_switch(mm);
	fake_arch_reset_counts();
	mm_gather_init(&g, mm);
	KEXPECT_EQ(t, pt_unmap(mm->root, POL_VA, POL_PAGES * KB4, &g), 0);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, fake_flush_everything_calls, 1);
	KEXPECT_EQ(t, fake_flush_all_calls, 0);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}
#endif

static const struct ktest_case tlb_policy_cases[] = {
	KTEST_CASE(test_tlb_policy_local_follows_ceiling),
#ifdef HOST_BUILD
	KTEST_CASE(test_tlb_policy_gather_global),
#endif
};
KTEST_SUITE_EXT(tlb_policy, tlb_policy_cases, mm_test_fresh_pmm, NULL, NULL);
