/*
 * Helpers shared by the memory-management tests (host and kernel): a fresh
 * frame allocator per case on the host, a new page-table root, and an
 * unmap whose tables are freed at once after a local flush.
 */
#ifndef TESTS_MM_TEST_H
#define TESTS_MM_TEST_H

#include "mm/pt.h"
#include "tests/ktest.h"
#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

/* The protections and page sizes the mm tests name most. */
#define PRW (PROT_READ | PROT_WRITE)
#define KB4 PT_PAGE_4K
#define MB2 PT_PAGE_2M
#define GB1 PT_PAGE_1G

/*
 * Suite init hook: on the host, CPU 0 and a fresh allocator over the fake
 * arena (the kernel keeps its real one). Returns 0 or the init error.
 */
static inline int mm_test_fresh_pmm(struct ktest *t)
{
	(void)t;
#ifdef HOST_BUILD
	fake_arch_set_cpu(0);
	return fake_pmm_init(0);
#else
	return 0;
#endif
}

/* A new empty root (0 and a recorded failure if none could be had). */
static inline paddr_t mm_test_new_root(struct ktest *t)
{
	paddr_t root = 0;

	KEXPECT_EQ(t, pt_root_alloc(&root, 0), 0);
	return root;
}

/* Unmaps [va, va + len) of @root and frees the tables at once (local flush). */
static inline int mm_test_unmap_now(paddr_t root, vaddr_t va, u64 len)
{
	struct pt_gather g;
	int err;

	pt_gather_init(&g, NULL, NULL);
	err = pt_unmap(root, va, len, &g);
	pt_gather_finish(&g);
	return err;
}

#endif
