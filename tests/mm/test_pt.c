/*
 * Directed tests for mm/pt.c on private roots that no CPU loads: lookups
 * and protections on all three page sizes, argument errors, huge-page
 * splits and their exact table cost, gathers that free tables only after
 * their flush, the shared kernel half, and injected out-of-memory at every
 * allocation an operation makes. tests/mm/test_pt_random.c holds the
 * randomized run against a reference model.
 */
#include "errno.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "mm/pt_entry.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include <arch/pte.h>

#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

/* Looks up @va and compares with the expected translation (pa 0: expect none). */
static bool expect_map(struct ktest *t, paddr_t root, vaddr_t va, paddr_t pa, unsigned prot,
		       u64 size)
{
	paddr_t got_pa = 0;
	unsigned got_prot = 0;
	u64 got_size = 0;
	int err = pt_lookup(root, va, &got_pa, &got_prot, &got_size);
	bool ok =
	    pa ? !err && got_pa == pa && got_prot == pt_prot_effective(prot) && got_size == size
	       : err == -ENOENT;

	if (!KEXPECT(t, ok))
		ktest_log(t,
			  "va 0x%lx: err %d pa 0x%lx prot 0x%x size 0x%lx; want 0x%lx 0x%x 0x%lx",
			  va, err, got_pa, got_prot, got_size, pa, prot, size);
	return ok;
}

static void test_pt_map_lookup(struct ktest *t)
{
	u64 before = pt_table_pages();
	paddr_t root = mm_test_new_root(t);
	unsigned uprot = PROT_READ | PROT_EXEC | PROT_USER, uc = PROT_READ | PROT_NOCACHE;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, 0x400000, 0x12345000, 2 * KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 4); /* root, PDPT, PD, PT */
	expect_map(t, root, 0x400000, 0x12345000, PRW, KB4);
	expect_map(t, root, 0x401abc, 0x12346abc, PRW, KB4);
	expect_map(t, root, 0x402000, 0, 0, 0);
	KEXPECT_EQ(t, pt_map(root, 0x40000000, 0x80000000, 2 * MB2, uprot, MB2), 0);
	expect_map(t, root, 0x40212345, 0x80212345, uprot, MB2);
	KEXPECT_EQ(t, pt_map(root, 1ull << 39, 0x3ffc0000000ull, GB1, uc, GB1), 0);
	expect_map(t, root, (1ull << 39) + 0x3456789, 0x3ffc3456789ull, uc, GB1);
	KEXPECT_EQ(t, pt_map(root, 0x800000, 0xfee00000, KB4, PROT_ALL, KB4), 0);
	expect_map(t, root, 0x800000, 0xfee00000, PROT_ALL, KB4);
	KEXPECT_EQ(t, pt_lookup(root, 0x800000, NULL, NULL, NULL), 0);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0, 1ull << 40), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 1);
	KEXPECT_EQ(t, pt_root_free(root), 0);
	KEXPECT_EQ(t, pt_table_pages(), before);
}

/*
 * A CPU without NX: no PTE gets bit 63 (reserved then, SDM Vol. 3A 4.6), and
 * every mapping reads back executable. Host only: the kernel's flag is the
 * CPU's, read by every CPU's page-table code (the -cpu ...,-nx boot covers it).
 */
static void test_pt_no_nx(struct ktest *t)
{
	bool saved = pt_nx_enabled;
	paddr_t root;
	pte_t e = 0;
	int level = 0;

	if (!ktest_on_host()) {
		ktest_skip(t, "flips the CPU's NX flag (host only; a -cpu ...,-nx boot covers it)");
		return;
	}
	root = mm_test_new_root(t);
	KASSERT(t, root != 0);
	pt_nx_enabled = false;
	KEXPECT_EQ(t, pt_prot_effective(PRW), PRW | PROT_EXEC);
	KEXPECT_EQ(t, pt_map(root, 0x400000, 0x12345000, KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_map(root, 0x600000, 0x800000, MB2, PROT_READ, MB2), 0);
	expect_map(t, root, 0x400000, 0x12345000, PRW, KB4);
	expect_map(t, root, 0x600000, 0x800000, PROT_READ, MB2);
	KEXPECT(t, pt_find(root, 0x400000, &level, &e));
	KEXPECT_EQ(t, e & PTE_NX, 0);
	KEXPECT_EQ(t, pt_protect(root, 0x400000, KB4, PROT_READ), 0);
	KEXPECT(t, pt_find(root, 0x400000, &level, &e));
	KEXPECT_EQ(t, e & (PTE_NX | PTE_RW), 0);
	pt_nx_enabled = saved;
	KEXPECT_EQ(t, pt_prot_effective(PRW), PRW);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0, 1ull << 40), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

static void test_pt_errors(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t);
	u64 before;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, 0x200000, 0x200000, MB2, PRW, MB2), 0);
	before = pt_table_pages();
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0x1000, 0, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1800, 0x1000, KB4, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0x1800, KB4, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0x1000, 0x1800, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x601000, 0x600000, MB2, PRW, MB2), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0x1000, KB4, PRW, 8192), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0x1000, KB4, PROT_WRITE, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0x1000, KB4, PRW | 0x100, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x0000800000000000ull, 0, KB4, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x00007ffffffff000ull, 0, 2 * KB4, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x1000, 0xfffffffffffff000ull, KB4, PRW, KB4), -EINVAL);
	KEXPECT_EQ(t, pt_map(root, 0x3ff000, 0x1000, KB4, PRW, KB4), -EEXIST);
	KEXPECT_EQ(t, pt_map(root, 0x1f0000, 0x1000, 0x20000, PRW, KB4), -EEXIST);
	KEXPECT_EQ(t, pt_map(root, 0, 0, GB1, PRW, GB1), -EEXIST);
	KEXPECT_EQ(t, pt_unmap(root, 0x1800, KB4, NULL), -EINVAL);
	KEXPECT_EQ(t, pt_protect(root, 0x1800, KB4, PRW), -EINVAL);
	KEXPECT_EQ(t, pt_protect(root, 0x200000, KB4, 0), -EINVAL);
	KEXPECT_EQ(t, pt_lookup(root, 0x0000900000000000ull, NULL, NULL, NULL), -EINVAL);
	KEXPECT_EQ(t, pt_root_free(root), -EBUSY);
	KEXPECT_EQ(t, pt_table_pages(), before);
	expect_map(t, root, 0x200000, 0x200000, PRW, MB2);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0x200000, MB2), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

struct flush_probe {
	u64 tables_at_flush, free_at_flush, calls;
	vaddr_t start, last;
};

static void probe_flush(struct pt_gather *g)
{
	struct flush_probe *p = g->arg;
	struct pmm_stats s;

	pmm_stats_get(&s);
	p->tables_at_flush = pt_table_pages();
	p->free_at_flush = s.free;
	p->start = g->start;
	p->last = g->last;
	p->calls++;
}

/* Emptied tables stay allocated through the flush and are freed after it. */
static void test_pt_gather_frees_after_flush(struct ktest *t)
{
	struct flush_probe probe = { 0 };
	u64 before = pt_table_pages();
	paddr_t root = mm_test_new_root(t);
	struct pmm_stats s0, s1;
	struct pt_gather g;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, 0x40000000, 0x1000, 3 * KB4, PRW, KB4), 0);
	pmm_stats_get(&s0);
	pt_gather_init(&g, probe_flush, &probe);
	KEXPECT_EQ(t, pt_unmap(root, 0x40000000, 3 * KB4, &g), 0);
	KEXPECT_EQ(t, g.nr_tables, 3);
	KEXPECT_EQ(t, g.start, 0x40000000);
	KEXPECT_EQ(t, g.last, 0x40002fff);
	KEXPECT_EQ(t, g.unmapped, 3 * KB4);
	KEXPECT_EQ(t, pt_table_pages() - before, 4);
	pt_gather_finish(&g);
	pmm_stats_get(&s1);
	KEXPECT_EQ(t, probe.calls, 1);
	KEXPECT_EQ(t, probe.tables_at_flush - before, 4);
	KEXPECT_EQ(t, probe.free_at_flush, s0.free);
	KEXPECT_EQ(t, s1.free - s0.free, 3);
	KEXPECT_EQ(t, pt_table_pages() - before, 1);
	KEXPECT_EQ(t, g.nr_tables, 0);
	KEXPECT_GT(t, g.start, g.last);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, probe.calls, 1); /* nothing left: no second flush */
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

/* More emptied tables than a gather holds: it flushes and frees in rounds. */
static void test_pt_gather_overflow(struct ktest *t)
{
	struct flush_probe probe = { 0 };
	u64 before = pt_table_pages(), i;
	paddr_t root = mm_test_new_root(t);
	struct pt_gather g;

	KASSERT(t, root != 0);
	for (i = 0; i < 40; i++)
		KEXPECT_EQ(t, pt_map(root, i * MB2, i * KB4, KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 43);
	pt_gather_init(&g, probe_flush, &probe);
	KEXPECT_EQ(t, pt_unmap(root, 0, 40 * MB2, &g), 0);
	KEXPECT_EQ(t, probe.calls, 1);
	KEXPECT_EQ(t, probe.last, 32 * MB2 + KB4 - 1); /* the 33rd table's leaf was in */
	pt_gather_finish(&g);
	KEXPECT_EQ(t, probe.calls, 2);
	KEXPECT_EQ(t, g.flushes, 2);
	KEXPECT_EQ(t, pt_table_pages() - before, 1);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

static void test_pt_split_2m(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t), pa = 0x40000000;
	vaddr_t va = 0x80000000;
	struct pt_gather g;
	u64 tables;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, va, pa, 2 * MB2, PRW, MB2), 0);
	tables = pt_table_pages();
	pt_gather_init(&g, NULL, NULL);
	KEXPECT_EQ(t, pt_unmap(root, va + 0x5000, KB4, &g), 0);
	/* The whole huge page's translations are flushed, not just the hole. */
	KEXPECT_EQ(t, g.start, va);
	KEXPECT_EQ(t, g.last, va + MB2 - 1);
	pt_gather_finish(&g);
	KEXPECT_EQ(t, pt_table_pages() - tables, 1);
	expect_map(t, root, va + 0x4000, pa + 0x4000, PRW, KB4);
	expect_map(t, root, va + 0x5000, 0, 0, 0);
	expect_map(t, root, va + 0x1ff123, pa + 0x1ff123, PRW, KB4);
	expect_map(t, root, va + MB2, pa + MB2, PRW, MB2);
	KEXPECT_EQ(t, pt_protect(root, va + MB2, KB4, PRW), 0); /* same protection: no split */
	KEXPECT_EQ(t, pt_table_pages() - tables, 1);
	KEXPECT_EQ(t, pt_protect(root, va + MB2 + 0x10000, KB4, PROT_READ), 0);
	KEXPECT_EQ(t, pt_table_pages() - tables, 2);
	expect_map(t, root, va + MB2 + 0x10000, pa + MB2 + 0x10000, PROT_READ, KB4);
	expect_map(t, root, va + MB2 + 0x11000, pa + MB2 + 0x11000, PRW, KB4);
	KEXPECT_EQ(t, mm_test_unmap_now(root, va, 2 * MB2), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

static void test_pt_split_1g(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t), pa = 5 * GB1;
	vaddr_t va = 3 * GB1;
	u64 tables;

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, va, pa, GB1, PRW, GB1), 0);
	tables = pt_table_pages();
	/* Both ends unaligned, in different 2 MiB pages of one 1 GiB page: PD + 2 PTs. */
	KEXPECT_EQ(t, mm_test_unmap_now(root, va + MB2 + 0x3000, 3 * MB2), 0);
	KEXPECT_EQ(t, pt_table_pages() - tables, 3);
	expect_map(t, root, va, pa, PRW, MB2);
	expect_map(t, root, va + MB2 + 0x2000, pa + MB2 + 0x2000, PRW, KB4);
	expect_map(t, root, va + MB2 + 0x3000, 0, 0, 0);
	expect_map(t, root, va + 4 * MB2 + 0x2000, 0, 0, 0);
	expect_map(t, root, va + 4 * MB2 + 0x3000, pa + 4 * MB2 + 0x3000, PRW, KB4);
	expect_map(t, root, va + 5 * MB2, pa + 5 * MB2, PRW, MB2);
	KEXPECT_EQ(t, mm_test_unmap_now(root, va, GB1), 0);
	/* Both ends in one 2 MiB page: PD + 1 PT. */
	KEXPECT_EQ(t, pt_map(root, va, pa, GB1, PRW, GB1), 0);
	tables = pt_table_pages();
	KEXPECT_EQ(t, pt_protect(root, va + 0x7000, 2 * KB4, PROT_READ | PROT_USER), 0);
	KEXPECT_EQ(t, pt_table_pages() - tables, 2);
	expect_map(t, root, va + 0x8000, pa + 0x8000, PROT_READ | PROT_USER, KB4);
	expect_map(t, root, va + 0x9000, pa + 0x9000, PRW, KB4);
	expect_map(t, root, va + GB1 - 1, pa + GB1 - 1, PRW, MB2);
	/* 2 MiB aligned ends: PD only. */
	KEXPECT_EQ(t, pt_map(root, 4 * GB1, pa, GB1, PRW, GB1), 0);
	tables = pt_table_pages();
	KEXPECT_EQ(t, pt_protect(root, 4 * GB1 + MB2, MB2, PROT_READ), 0);
	KEXPECT_EQ(t, pt_table_pages() - tables, 1);
	expect_map(t, root, 4 * GB1 + MB2, pa + MB2, PROT_READ, MB2);
	KEXPECT_EQ(t, mm_test_unmap_now(root, va, 2 * GB1), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

/* The kernel half is shared by copied roots and its PDPTs are never unlinked. */
static void test_pt_kernel_half(struct ktest *t)
{
	vaddr_t kva = 0xffff900040000000ull;
	paddr_t kroot = mm_test_new_root(t), root = 0;
	u64 before = pt_table_pages();

	KASSERT(t, kroot != 0);
	KEXPECT_EQ(t, pt_map(kroot, kva, 0x1000, KB4, PRW | PROT_GLOBAL, KB4), 0);
	KEXPECT_EQ(t, pt_root_alloc(&root, kroot), 0);
	expect_map(t, root, kva, 0x1000, PRW | PROT_GLOBAL, KB4);
	KEXPECT_EQ(t, pt_map(root, kva + KB4, 0x2000, KB4, PRW, KB4), 0);
	expect_map(t, kroot, kva + KB4, 0x2000, PRW, KB4);
	KEXPECT_EQ(t, mm_test_unmap_now(kroot, kva, 2 * KB4), 0);
	expect_map(t, root, kva, 0, 0, 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 2); /* the copy, and the kept PDPT */
	KEXPECT_EQ(t, pt_root_free(root), 0);
	KEXPECT_EQ(t, pt_root_free(kroot), 0);
	ktest_log(t, "one kernel-half PDPT stays allocated, by design");
}

/* A frame for a foreign table: the reserved "kernel image" (host), or a new frame (kernel). */
static struct page *foreign_table(void)
{
#ifdef HOST_BUILD
	struct page *p = phys_to_page(FAKE_PHYS_BASE + (1ull << 20));

	memset(page_address(p), 0, PAGE_SIZE);
	return p;
#else
	return page_alloc(0, PMM_ZERO);
#endif
}

static void set_entry(struct page *table, unsigned i, pte_t e)
{
	((pte_t *)page_address(table))[i] = e;
}

/* Tables built by hand, as the boot code builds its own, taken over by pt. */
static void test_pt_adopt(struct ktest *t)
{
	struct page *rp = page_alloc(0, PMM_ZERO), *pd = page_alloc(0, PMM_ZERO);
	struct page *pdpt = foreign_table();
	u64 before = pt_table_pages();
	struct pmm_stats s0, s1;
	paddr_t root;
	unsigned i;

	KASSERT(t, rp && pd && pdpt);
	pmm_stats_get(&s0);
	root = page_to_phys(rp);
	for (i = 0; i < 3; i++)
		set_entry(pd, i, (i * MB2) | PTE_P | PTE_RW | PTE_PS);
	set_entry(pdpt, 2, page_to_phys(pd) | PTE_P | PTE_RW);
	set_entry(rp, 0, page_to_phys(pdpt) | PTE_P | PTE_RW);
	KEXPECT_EQ(t, pt_root_adopt(root), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 3);
	KEXPECT_EQ(t, pd->priv, 3);
	expect_map(t, root, 2 * GB1 + MB2 + 5, MB2 + 5, PRW | PROT_EXEC, MB2);
	KEXPECT_EQ(t, pt_map(root, 2 * GB1 + 3 * MB2, 0, KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pd->priv, 4);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 2 * GB1, GB1), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 1);
	pmm_stats_get(&s1);
	KEXPECT_EQ(t, s1.errors, s0.errors); /* the image's frame was not handed back */
	KEXPECT_EQ(t, pt_root_free(root), 0);
	KEXPECT_EQ(t, pt_table_pages(), before);
}

#ifdef HOST_BUILD
/* A PD linked from two PDPT entries is one mapping, and is never freed. */
static void test_pt_adopt_shared(struct ktest *t)
{
	struct page *rp = page_alloc(0, PMM_ZERO), *pdpt = page_alloc(0, PMM_ZERO);
	struct page *pd = page_alloc(0, PMM_ZERO);
	u64 before = pt_table_pages();
	paddr_t root;

	KASSERT(t, rp && pdpt && pd);
	root = page_to_phys(rp);
	set_entry(pd, 0, PTE_P | PTE_RW | PTE_PS);
	set_entry(pdpt, 0, page_to_phys(pd) | PTE_P | PTE_RW);
	set_entry(pdpt, 3, page_to_phys(pd) | PTE_P | PTE_RW);
	set_entry(rp, 0, page_to_phys(pdpt) | PTE_P | PTE_RW);
	KEXPECT_EQ(t, pt_root_adopt(root), 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 3);
	expect_map(t, root, 3 * GB1 + 7, 7, PRW | PROT_EXEC, MB2);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0, MB2), 0);
	expect_map(t, root, 3 * GB1, 0, 0, 0);
	KEXPECT_EQ(t, pt_table_pages() - before, 3);
	KEXPECT_EQ(t, pt_map(root, 3 * GB1, 2 * MB2, MB2, PROT_READ, MB2), 0);
	expect_map(t, root, 0, 2 * MB2, PROT_READ, MB2);
}
#else
static void test_pt_adopt_shared(struct ktest *t)
{
	ktest_skip(t, "leaves the shared table behind by design (host only)");
}
#endif

/* Every allocation an operation needs fails in turn: nothing may change. */
static void test_pt_oom(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t);
	u64 tables, k;
	int err;

	KASSERT(t, root != 0);
	tables = pt_table_pages();
	for (k = 0; k < 3; k++) {
		pmm_inject_fail((u32)k, 1);
		KEXPECT_EQ(t, pt_map(root, 0x7000, 0x7000, KB4, PRW, KB4), -ENOMEM);
		KEXPECT_EQ(t, pt_table_pages(), tables);
		expect_map(t, root, 0x7000, 0, 0, 0);
	}
	pmm_inject_fail(0, 0);
	KEXPECT_EQ(t, pt_map(root, GB1, 0, GB1, PRW, GB1), 0);
	tables = pt_table_pages();
	for (k = 0; k < 2; k++) {
		pmm_inject_fail((u32)k, 1);
		KEXPECT_EQ(t, mm_test_unmap_now(root, GB1 + 0x3000, KB4), -ENOMEM);
		pmm_inject_fail((u32)k, 1);
		KEXPECT_EQ(t, pt_protect(root, GB1 + 0x3000, KB4, PROT_READ), -ENOMEM);
		KEXPECT_EQ(t, pt_table_pages(), tables);
		expect_map(t, root, GB1 + 0x3000, 0x3000, PRW, GB1);
	}
	pmm_inject_fail(2, 1);
	err = pt_protect(root, GB1 + 0x3000, KB4, PROT_READ);
	pmm_inject_fail(0, 0);
	KEXPECT_EQ(t, err, 0);
	expect_map(t, root, GB1 + 0x3000, 0x3000, PROT_READ, KB4);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0, 4 * GB1), 0);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}

#ifdef HOST_BUILD
static void test_pt_flush_policy(struct ktest *t)
{
	paddr_t root = mm_test_new_root(t);

	KASSERT(t, root != 0);
	KEXPECT_EQ(t, pt_map(root, 0x10000000, 0, 128 * KB4, PRW, KB4), 0);
	KEXPECT_EQ(t, pt_map(root, 0x20000000, 0, 64 * KB4, PRW | PROT_GLOBAL, KB4), 0);
	fake_arch_reset_counts();
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0x10000000, 4 * KB4), 0);
	KEXPECT_EQ(t, fake_flush_one_calls, 4);
	KEXPECT_EQ(t, fake_flush_last_va, 0x10003000);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0x10004000, TLB_FLUSH_CEILING * KB4), 0);
	KEXPECT_EQ(t, fake_flush_one_calls, 4 + TLB_FLUSH_CEILING);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0x10000000, 128 * KB4), 0);
	KEXPECT_EQ(t, fake_flush_all_calls, 1);
	KEXPECT_EQ(t, mm_test_unmap_now(root, 0x20000000, 64 * KB4), 0);
	KEXPECT_EQ(t, fake_flush_everything_calls, 1);
	KEXPECT_EQ(t, fake_flush_all_calls, 1);
	KEXPECT_EQ(t, pt_root_free(root), 0);
}
#else
static void test_pt_flush_policy(struct ktest *t)
{
	ktest_skip(t, "counts flushes through the fake arch (host only)");
}
#endif

static const struct ktest_case pt_cases[] = {
	KTEST_CASE(test_pt_map_lookup),
	KTEST_CASE(test_pt_no_nx),
	KTEST_CASE(test_pt_errors),
	KTEST_CASE(test_pt_gather_frees_after_flush),
	KTEST_CASE(test_pt_gather_overflow),
	KTEST_CASE(test_pt_split_2m),
	KTEST_CASE(test_pt_split_1g),
	KTEST_CASE(test_pt_kernel_half),
	KTEST_CASE(test_pt_adopt),
	KTEST_CASE(test_pt_adopt_shared),
	KTEST_CASE(test_pt_oom),
	KTEST_CASE(test_pt_flush_policy),
};
KTEST_SUITE_EXT(pt, pt_cases, mm_test_fresh_pmm, NULL, NULL);
